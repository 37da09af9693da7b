package procs

import (
	"context"
	"fmt"
	"time"
)

// Kill SIGKILLs node i: a crash, with no leadership handed off. Its store stays for Restart.
func (c *Cluster) Kill(i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if err := c.checkRunning(n); err != nil {
		return fmt.Errorf("procs: kill %s: %w", n.Name, err)
	}
	c.stopNode(n, true)
	return nil
}

// Restart starts node i again on its config, ports and store, and waits until it is current
// with the meta leader (a cluster) or has JetStream (one node). A running node is killed first.
func (c *Cluster) Restart(i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if c.shut {
		return fmt.Errorf("procs: restart %s: %w", n.Name, ErrShutdown)
	}
	c.stopNode(n, true)
	ctx, cancel := c.waiter().WithTimeout(context.Background())
	defer cancel()
	if err := c.startNode(n); err != nil {
		return fmt.Errorf("procs: restart %s: %w", n.Name, err)
	}
	if err := c.poll(ctx, func() (string, error) { return c.listening(n) }); err != nil {
		c.stopNode(n, true)
		return fmt.Errorf("procs: restart %s: %w", n.Name, err)
	}
	if err := c.poll(ctx, c.ready); err != nil {
		c.stopNode(n, true)
		return fmt.Errorf("procs: restart %s: %w", n.Name, err)
	}
	return nil
}

// Pause SIGSTOPs node i and SIGCONTs it after d: the process is frozen (state T), timers and
// all, while its sockets stay open. It returns at once; pausing a paused node restarts the
// countdown. Resume ends it early.
func (c *Cluster) Pause(i int, d time.Duration) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	if d <= 0 {
		return fmt.Errorf("procs: pause %s: duration must be positive, got %s", n.Name, d)
	}
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if err := c.checkRunning(n); err != nil {
		return fmt.Errorf("procs: pause %s: %w", n.Name, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	p := n.proc
	if err := sigStop(p.cmd.Process.Pid); err != nil {
		return fmt.Errorf("procs: pause %s: %w", n.Name, err)
	}
	p.paused = true
	if n.pauseTimer != nil {
		n.pauseTimer.Stop()
	}
	n.pauseTimer = time.AfterFunc(d, func() { c.resume(n, p) })
	return nil
}

// Resume ends a Pause of node i early; a node not paused is left alone.
func (c *Cluster) Resume(i int) error {
	n, err := c.node(i)
	if err != nil {
		return err
	}
	c.mu.Lock()
	p := n.proc
	c.mu.Unlock()
	if p != nil {
		c.resume(n, p)
	}
	return nil
}

func (c *Cluster) resume(n *node, p *process) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if n.proc != p || !p.paused {
		return
	}
	_ = sigCont(p.cmd.Process.Pid)
	p.paused = false
}

// Paused reports whether node i is stopped by Pause.
func (c *Cluster) Paused(i int) bool {
	n, err := c.node(i)
	if err != nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return n.proc != nil && n.proc.paused
}

func (c *Cluster) checkRunning(n *node) error {
	if c.shut {
		return ErrShutdown
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if n.proc == nil {
		return ErrNodeDown
	}
	return nil
}
