package procs

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/nodes"
)

const pollInterval = 50 * time.Millisecond

var httpClient = &http.Client{Timeout: 2 * time.Second}

type varz struct {
	Version string `json:"version"`
}

// jsz is the part of /jsz readiness reads; the fields exist in 2.10 onwards.
type jsz struct {
	Config *json.RawMessage `json:"config"`
	Meta   *struct {
		Leader   string `json:"leader"`
		Replicas []struct {
			Name    string `json:"name"`
			Current bool   `json:"current"`
		} `json:"replicas"`
	} `json:"meta_cluster"`
}

func (c *Cluster) monitor(n *node) string {
	return "http://" + hostPort(c.opts.dialHost(), n.httpPort)
}

func getJSON[T any](ctx context.Context, base, path string) (T, error) {
	var v T
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+path, nil)
	if err != nil {
		return v, err
	}
	resp, err := httpClient.Do(req)
	if err != nil {
		return v, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return v, fmt.Errorf("%s: %s", path, resp.Status)
	}
	return v, json.NewDecoder(resp.Body).Decode(&v)
}

// waiter waits for the servers within Options.ReadyTimeout; Shutdown ends its waits.
func (c *Cluster) waiter() nodes.Waiter {
	return nodes.Waiter{Every: pollInterval, Timeout: c.opts.ReadyTimeout, Closing: c.closing}
}

// poll calls check until nothing is pending (nodes.Waiter.Poll).
func (c *Cluster) poll(ctx context.Context, check func() (pending string, err error)) error {
	return c.waiter().Poll(ctx, check)
}

// alive is an error when node n's process has exited (naming the end of its log).
func (c *Cluster) alive(n *node) error {
	c.mu.Lock()
	p := n.proc
	c.mu.Unlock()
	if p == nil {
		return fmt.Errorf("%s is not running", n.Name)
	}
	select {
	case <-p.done:
		tail := logTail(n.logPath)
		if strings.Contains(tail, "address already in use") {
			return fmt.Errorf("%s exited (%v): %s: %w", n.Name, p.err, tail, errPortTaken)
		}
		return fmt.Errorf("%s exited (%v): %s", n.Name, p.err, tail)
	default:
		return nil
	}
}

// listening: node n's monitoring port answers (the client port opens before it).
func (c *Cluster) listening(n *node) (string, error) {
	if err := c.alive(n); err != nil {
		return "", err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	if _, err := getJSON[varz](ctx, c.monitor(n), "/varz"); err != nil {
		return n.Name + " not answering", nil
	}
	return "", nil
}

// ready: every running node has JetStream; in a cluster one meta leader that every running
// node follows, and that sees every other running node as a current peer.
func (c *Cluster) ready() (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	running := c.running()
	infos := make([]jsz, len(running))
	for i, n := range running {
		if err := c.alive(n); err != nil {
			return "", err
		}
		j, err := getJSON[jsz](ctx, c.monitor(n), "/jsz")
		if err != nil || j.Config == nil {
			return n.Name + " has no JetStream yet", nil
		}
		infos[i] = j
	}
	if len(c.nodes) == 1 {
		return "", nil
	}
	leader := -1
	for i, j := range infos {
		if j.Meta == nil || j.Meta.Leader == "" {
			return "no JetStream meta leader elected", nil
		}
		if j.Meta.Leader == running[i].Name {
			leader = i
		}
	}
	if leader < 0 {
		return "the JetStream meta leader is not running", nil
	}
	lname := running[leader].Name
	for i, j := range infos {
		if j.Meta.Leader != lname {
			return fmt.Sprintf("%s follows meta leader %q, not %s", running[i].Name, j.Meta.Leader, lname), nil
		}
	}
	for _, n := range running {
		if n.Name == lname {
			continue
		}
		k := slices.IndexFunc(infos[leader].Meta.Replicas, func(p struct {
			Name    string `json:"name"`
			Current bool   `json:"current"`
		}) bool {
			return p.Name == n.Name
		})
		if k < 0 {
			return fmt.Sprintf("meta leader %s does not see %s as a peer", lname, n.Name), nil
		}
		if !infos[leader].Meta.Replicas[k].Current {
			return n.Name + " not current with the JetStream meta leader", nil
		}
	}
	return "", nil
}

func (c *Cluster) running() []*node {
	c.mu.Lock()
	defer c.mu.Unlock()
	var out []*node
	for _, n := range c.nodes {
		if n.proc != nil {
			out = append(out, n)
		}
	}
	return out
}

// logTail is the last lines of a node's log, on one line, for an error.
func logTail(path string) string {
	b, _ := os.ReadFile(path)
	b = bytes.TrimSpace(b)
	lines := strings.Split(string(b), "\n")
	if len(lines) > 3 {
		lines = lines[len(lines)-3:]
	}
	return strings.Join(lines, " | ")
}
