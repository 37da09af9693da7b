package embedded

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/nodes"
)

// ErrNotReady is wrapped by errors from Start and Restart when the servers
// did not become ready within Options.ReadyTimeout.
var ErrNotReady = nodes.ErrNotReady

// waiter waits for the servers within Options.ReadyTimeout; Shutdown ends its waits.
func (c *Cluster) waiter() nodes.Waiter {
	return nodes.Waiter{Every: 20 * time.Millisecond, Timeout: c.opts.ReadyTimeout, Closing: c.closing}
}

// withReadyTimeout bounds a whole Start or Restart by Options.ReadyTimeout.
func (c *Cluster) withReadyTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	return c.waiter().WithTimeout(ctx)
}

// poll calls check until it reports nothing pending (nodes.Waiter.Poll).
func (c *Cluster) poll(ctx context.Context, check func() (pending string, err error)) error {
	return c.waiter().Poll(ctx, check)
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
			return "", fmt.Errorf("%s is not running", n.Name)
		}
		r := running[i]
		if msg := r.log.fatalError(); msg != "" {
			return "", fmt.Errorf("%s failed: %s", n.Name, msg)
		}
		if !c.listening(n, r.srv) {
			return n.Name + " not accepting connections", nil
		}
		if !r.srv.JetStreamEnabled() {
			return n.Name + " has no JetStream", nil
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
		if !slices.Contains(peers, r.Name) {
			return fmt.Sprintf("meta leader %s does not see %s as a peer", leader.Name(), r.Name)
		}
	}
	for _, r := range running {
		if !r.srv.JetStreamIsCurrent() {
			return r.Name + " not current with the JetStream meta leader"
		}
	}
	for _, r := range running {
		if got := metaLeader(r.srv); got != leader.Name() {
			return fmt.Sprintf("%s follows meta leader %q, not %s", r.Name, got, leader.Name())
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
