package procs

import (
	"fmt"
	"strings"
)

// Node describes one node for the Result.
type Node struct {
	Name    string
	URL     string
	Version string
	Binary  string
	Options map[string]any
	Pid     int // 0 while down
}

// Nodes describes every node slot, running or not, in order.
func (c *Cluster) Nodes() []Node {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]Node, 0, len(c.nodes))
	for _, n := range c.nodes {
		nd := Node{Name: n.Name, URL: c.clientURL(n), Version: c.version, Binary: c.opts.Binary, Options: c.options()}
		if n.proc != nil {
			nd.Pid = n.proc.cmd.Process.Pid
		}
		out = append(out, nd)
	}
	return out
}

func (c *Cluster) clientURL(n *node) string {
	return "nats://" + hostPort(c.opts.dialHost(), n.clientPort)
}

// ClientURLs returns one URL per running node, in node order.
func (c *Cluster) ClientURLs() []string {
	var urls []string
	for _, n := range c.running() {
		urls = append(urls, c.clientURL(n))
	}
	return urls
}

// URL is every node's URL comma-joined, as nats.Connect takes (down nodes too: they may
// come back, and a client reconnects through the others meanwhile).
func (c *Cluster) URL() string {
	urls := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		urls[i] = c.clientURL(n)
	}
	return strings.Join(urls, ",")
}

// MonitorURLs are every node's monitoring base URL (http://host:port), in node order.
func (c *Cluster) MonitorURLs() []string {
	urls := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		urls[i] = c.monitor(n)
	}
	return urls
}

// Version is the servers' version as /varz gives it, with a v: "v2.12.15".
func (c *Cluster) Version() string { return c.version }

// Binary is the nats-server executable the nodes run.
func (c *Cluster) Binary() string { return c.opts.Binary }

// Size is the number of node slots, running or not.
func (c *Cluster) Size() int { return len(c.nodes) }

// ServerName is node i's server name ("natsperf-n1" ...), "" out of range.
func (c *Cluster) ServerName(i int) string { return c.nodes.ServerName(i) }

// NodeByName is the 1-based index of the node with the server name.
func (c *Cluster) NodeByName(name string) (int, bool) { return c.nodes.ByName(name) }

// Pid is node i's process id, 0 while it is down.
func (c *Cluster) Pid(i int) int {
	n, err := c.node(i)
	if err != nil {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n.proc == nil {
		return 0
	}
	return n.proc.cmd.Process.Pid
}

// Describe is one line for the CLI: "nats-server v2.12.15 processes (JetStream, 3 nodes,
// cluster "natsperf") at nats://..., binary PATH, store DIR".
func (c *Cluster) Describe() string {
	what := "1 node"
	if len(c.nodes) > 1 {
		what = fmt.Sprintf("%d nodes, cluster %q", len(c.nodes), ClusterName)
	}
	if c.opts.PowerFail {
		what += ", stores on powerfs"
	}
	return fmt.Sprintf("nats-server %s processes (JetStream, %s) at %s, binary %s, store %s",
		c.version, what, c.URL(), c.opts.Binary, c.root)
}
