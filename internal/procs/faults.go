package procs

import (
	"time"

	"github.com/natsperf/natsperf/internal/nodes"
)

// Kill SIGKILLs node i: a crash, with no leadership handed off. Its store stays for Restart.
func (c *Cluster) Kill(i int) error { return nodes.Kill(ops{c}, i) }

// Restart starts node i again on its config, ports and store, and waits until it is current
// with the meta leader (a cluster) or has JetStream (one node). A running node is killed first.
func (c *Cluster) Restart(i int) error { return nodes.Restart(ops{c}, i) }

// Pause SIGSTOPs node i and SIGCONTs it after d: the process is frozen (state T), timers and
// all, while its sockets stay open. It returns at once; pausing a paused node restarts the
// countdown. Resume ends it early.
func (c *Cluster) Pause(i int, d time.Duration) error {
	return nodes.Pause(ops{c}, i, d, func(n *node) error {
		c.mu.Lock()
		defer c.mu.Unlock()
		p := n.proc
		if err := sigStop(p.cmd.Process.Pid); err != nil {
			return err
		}
		p.paused = true
		if n.pauseTimer != nil {
			n.pauseTimer.Stop()
		}
		n.pauseTimer = time.AfterFunc(d, func() { c.resume(n, p) })
		return nil
	})
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

// ops is the Cluster as the fault operations both clusters share (nodes.Kill ...) see it.
type ops struct{ c *Cluster }

func (o ops) Kind() string                { return "procs" }
func (o ops) Nodes() nodes.List[*node]    { return o.c.nodes }
func (o ops) Lock()                       { o.c.opMu.Lock() }
func (o ops) Unlock()                     { o.c.opMu.Unlock() }
func (o ops) Shut() bool                  { return o.c.shut }
func (o ops) Start(n *node, _ bool) error { return o.c.startNode(n) } // a store lost to power is remounted
func (o ops) Stop(n *node)                { o.c.stopNode(n, true) }

// Running: n has a process (it may have exited since; alive says).
func (o ops) Running(n *node) bool {
	o.c.mu.Lock()
	defer o.c.mu.Unlock()
	return n.proc != nil
}

func (o ops) Waiter() nodes.Waiter              { return o.c.waiter() }
func (o ops) Listening(n *node) (string, error) { return o.c.listening(n) }

// Ready is the cluster's readiness (ready), whichever nodes were waited for.
func (o ops) Ready([]*node) (string, error) { return o.c.ready() }
