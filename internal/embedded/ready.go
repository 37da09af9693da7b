package embedded

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ErrNotReady is wrapped by errors from Start and Restart when the servers
// did not become ready within Options.ReadyTimeout.
var ErrNotReady = errors.New("not ready")

// errTimedOut tells our own ReadyTimeout apart from the caller's ctx.
var errTimedOut = errors.New("ready timeout")

const pollInterval = 20 * time.Millisecond

// withReadyTimeout bounds a whole Start or Restart by Options.ReadyTimeout.
func (c *Cluster) withReadyTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeoutCause(ctx, c.opts.ReadyTimeout, errTimedOut)
}

// poll calls check until it reports nothing pending. The error names the
// condition that was still unmet when ctx ended.
func (c *Cluster) poll(ctx context.Context, check func() (pending string, err error)) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for {
		pending, err := check()
		if err != nil {
			return err
		}
		if pending == "" {
			return nil
		}
		select {
		case <-ctx.Done():
			if cause := context.Cause(ctx); !errors.Is(cause, errTimedOut) {
				return fmt.Errorf("gave up waiting (%s): %w", pending, cause)
			}
			return fmt.Errorf("%s within %s: %w", pending, c.opts.ReadyTimeout, ErrNotReady)
		case <-c.closing:
			return fmt.Errorf("%s: shut down while waiting: %w", pending, ErrNotReady)
		case <-tick.C:
		}
	}
}

type runningNode struct {
	*node
	srv *server.Server
	log *nodeLogger
}

func (c *Cluster) running() []runningNode {
	c.mu.RLock()
	defer c.mu.RUnlock()
	var out []runningNode
	for _, n := range c.nodes {
		if n.srv != nil {
			out = append(out, runningNode{n, n.srv, n.log})
		}
	}
	return out
}

// readiness returns what is still pending ("" = ready), or an error when
// waiting is pointless because a server reported a fatal error. With meta,
// a cluster must also agree on a current JetStream meta leader.
func (c *Cluster) readiness(wait []*node, meta bool) (string, error) {
	running := c.running()
	for _, n := range wait {
		i := slices.IndexFunc(running, func(r runningNode) bool { return r.node == n })
		if i < 0 {
			return "", fmt.Errorf("%s is not running", n.name)
		}
		r := running[i]
		if msg := r.log.fatalError(); msg != "" {
			return "", fmt.Errorf("%s failed: %s", n.name, msg)
		}
		if !c.listening(n, r.srv) {
			return n.name + " not accepting connections", nil
		}
		if !r.srv.JetStreamEnabled() {
			return n.name + " has no JetStream", nil
		}
	}
	if !meta || !c.opts.clustered() {
		return "", nil
	}
	if p := c.gatewaysPending(running); p != "" {
		return p, nil
	}
	return metaPending(running), nil
}

// metaPending checks the JetStream meta group the way nats-server's tests
// do (waitOnClusterReady): one leader, which sees every running node as a
// peer, and every running node current and following that leader.
func metaPending(running []runningNode) string {
	var leader *server.Server
	for _, r := range running {
		if r.srv.JetStreamIsLeader() {
			leader = r.srv
		}
	}
	if leader == nil {
		return "no JetStream meta leader elected"
	}
	peers := leader.JetStreamClusterPeers()
	for _, r := range running {
		if !slices.Contains(peers, r.name) {
			return fmt.Sprintf("meta leader %s does not see %s as a peer", leader.Name(), r.name)
		}
	}
	for _, r := range running {
		if !r.srv.JetStreamIsCurrent() {
			return r.name + " not current with the JetStream meta leader"
		}
	}
	for _, r := range running {
		if got := metaLeader(r.srv); got != leader.Name() {
			return fmt.Sprintf("%s follows meta leader %q, not %s", r.name, got, leader.Name())
		}
	}
	return ""
}

// metaLeader is the meta leader's name as node s sees it.
func metaLeader(s *server.Server) string {
	jsi, err := s.Jsz(&server.JSzOptions{})
	if err != nil || jsi.Meta == nil {
		return ""
	}
	return jsi.Meta.Leader
}
