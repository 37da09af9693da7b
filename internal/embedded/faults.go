package embedded

import (
	"errors"
	"fmt"
	"time"

	"github.com/natsperf/natsperf/internal/nodes"
)

var (
	// ErrNodeDown is returned when an operation needs a running node.
	ErrNodeDown = nodes.ErrNodeDown
	// ErrShutdown is returned after Shutdown.
	ErrShutdown = nodes.ErrShutdown
	// ErrNotPausable is returned by Pause unless Options.Pausable was set.
	ErrNotPausable = errors.New("pause needs Options.Pausable")
)

// Kill stops node i as a crash stand-in: the server shuts down and its
// store stays for Restart. nats-server's Shutdown hands off the leadership
// of raft groups it leads before exiting, so failover is quicker than after
// a real crash; for a node that vanishes silently use Pause.
func (c *Cluster) Kill(i int) error { return nodes.Kill(ops{c}, i) }

func (c *Cluster) kill(n *node) {
	if n.gate.paused() {
		// A stalled node could wait out write deadlines while shutting
		// down; a frozen process that is killed just loses its sockets.
		c.dropConns(n)
	}
	c.stopNode(n)
	c.dropConns(n)
	n.gate.resume()
}

// dropConns closes node n's public ports and every proxied connection that
// has n at either end.
func (c *Cluster) dropConns(n *node) {
	if !n.proxied() {
		return
	}
	n.clientProxy.stop()
	if n.routeProxy == nil {
		return
	}
	n.routeProxy.stop()
	for _, o := range c.nodes {
		if o != n && o.routeProxy != nil {
			o.routeProxy.dropOrigin(n.gate)
		}
	}
}

// Restart brings node i back on the same client and cluster ports and the
// same store, and waits until it accepts clients and, in a cluster, is
// current with the meta leader. A running node is killed first.
func (c *Cluster) Restart(i int) error { return nodes.Restart(ops{c}, i) }

// startAgain reopens a down node's ports and store and starts its server without waiting.
func (c *Cluster) startAgain(n *node) error {
	if n.Disk != nil {
		if err := n.Disk.Remount(); err != nil {
			return err
		}
	}
	if n.proxied() {
		if err := n.clientProxy.start(); err != nil {
			return err
		}
		if n.routeProxy != nil {
			if err := n.routeProxy.start(); err != nil {
				return err
			}
		}
	}
	return c.startNode(n)
}

// Pause stalls node i for d, a stand-in for SIGSTOP followed by SIGCONT:
// no byte reaches or leaves the node through its client and cluster ports,
// while all TCP connections stay open and senders see back-pressure. Pause
// returns at once; traffic resumes after d, on Resume, or when the node is
// killed. Pausing a paused node restarts the countdown.
//
// Unlike SIGSTOP the node's own timers keep running, so during a long pause
// it may, for example, start raft elections nobody hears or drop clients
// whose writes time out; what other nodes and clients observe is the same.
// It needs Options.Pausable: nats-server cannot freeze an in-process
// server, so the stall happens in the proxies that option adds.
func (c *Cluster) Pause(i int, d time.Duration) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	if !c.opts.Pausable {
		return fmt.Errorf("embedded: pause %s: %w (nats-server has no in-process freeze)", n.Name, ErrNotPausable)
	}
	return nodes.Pause(ops{c}, i, d, func(n *node) error {
		n.gate.pause(d)
		return nil
	})
}

// Resume ends a Pause of node i early; resuming a node that is not paused
// does nothing.
func (c *Cluster) Resume(i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	n.gate.resume()
	return nil
}

// Paused reports whether node i is currently paused.
func (c *Cluster) Paused(i int) bool {
	n, err := c.node(i)
	return err == nil && n.gate.paused()
}

func (c *Cluster) isRunning(n *node) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return n.srv != nil
}

// ops is the Cluster as the fault operations both clusters share (nodes.Kill ...) see it.
type ops struct{ c *Cluster }

func (o ops) Kind() string             { return "embedded" }
func (o ops) Nodes() nodes.List[*node] { return o.c.nodes }
func (o ops) Lock()                    { o.c.opMu.Lock() }
func (o ops) Unlock()                  { o.c.opMu.Unlock() }
func (o ops) Shut() bool               { return o.c.shut }
func (o ops) Running(n *node) bool     { return o.c.isRunning(n) }
func (o ops) Stop(n *node)             { o.c.kill(n) }

func (o ops) Start(n *node, again bool) error {
	if again {
		return o.c.startAgain(n)
	}
	return o.c.startNode(n)
}

func (o ops) Waiter() nodes.Waiter { return o.c.waiter() }

// Listening: n accepts clients and has JetStream (readiness without the meta group).
func (o ops) Listening(n *node) (string, error) { return o.c.readiness([]*node{n}, false) }

// Ready: ns still are, and in a cluster a current meta leader that every running node follows.
func (o ops) Ready(ns []*node) (string, error) { return o.c.readiness(ns, true) }
