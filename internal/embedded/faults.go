package embedded

import (
	"context"
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
func (c *Cluster) Kill(i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if err := c.checkRunning(n); err != nil {
		return fmt.Errorf("embedded: kill %s: %w", n.Name, err)
	}
	c.kill(n)
	return nil
}

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
func (c *Cluster) Restart(i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if c.shut {
		return fmt.Errorf("embedded: restart %s: %w", n.Name, ErrShutdown)
	}
	if c.isRunning(n) {
		c.kill(n)
	}
	if err := c.restart(n); err != nil {
		c.kill(n)
		return fmt.Errorf("embedded: restart %s: %w", n.Name, err)
	}
	return nil
}

func (c *Cluster) restart(n *node) error {
	if err := c.startAgain(n); err != nil {
		return err
	}
	ctx, cancel := c.withReadyTimeout(context.Background())
	defer cancel()
	return c.poll(ctx, func() (string, error) { return c.readiness([]*node{n}, true) })
}

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
	if d <= 0 {
		return fmt.Errorf("embedded: pause %s: duration must be positive, got %s", n.Name, d)
	}
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if err := c.checkRunning(n); err != nil {
		return fmt.Errorf("embedded: pause %s: %w", n.Name, err)
	}
	n.gate.pause(d)
	return nil
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

func (c *Cluster) checkRunning(n *node) error {
	if c.shut {
		return ErrShutdown
	}
	if !c.isRunning(n) {
		return ErrNodeDown
	}
	return nil
}

func (c *Cluster) isRunning(n *node) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	return n.srv != nil
}
