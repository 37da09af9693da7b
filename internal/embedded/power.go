package embedded

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/natsperf/natsperf/internal/nodes"
)

// ErrNoPower is returned by PowerFail unless Options.PowerFail was set.
var ErrNoPower = nodes.ErrNoPower

// PowerFail stops the nodes at one instant as a power failure would and drops what they had
// not fsynced. At the instant every node's ports stall (no byte, and so no acknowledgement,
// leaves after it) and its filesystem refuses every write; only then are the servers shut
// down, their connections dropped and the unsynced contents dropped from their stores. It
// says how much was dropped. Restart or RestartAll brings the nodes back on what survived.
func (c *Cluster) PowerFail(idx []int) (string, error) {
	ns, err := c.pick(idx)
	if err != nil {
		return "", err
	}
	c.opMu.Lock()
	defer c.opMu.Unlock()
	detail, err := nodes.PowerFail(ns, c.checkRunning, func(ns []*node) {
		for _, n := range ns { // the instant
			n.gate.pause(24 * time.Hour)
			n.Disk.Cut()
		}
		var wg sync.WaitGroup
		for _, n := range ns {
			wg.Go(func() { c.kill(n) })
		}
		wg.Wait()
	})
	if err != nil {
		return detail, fmt.Errorf("embedded: %w", err)
	}
	return detail, nil
}

// RestartAll brings the nodes that are down among nodes back together, and waits until they
// accept clients and follow a current meta leader. Nodes that all lost power must start
// together: one alone has no quorum and would never be ready.
func (c *Cluster) RestartAll(idx []int) error {
	ns, err := c.pick(idx)
	if err != nil {
		return err
	}
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if c.shut {
		return fmt.Errorf("embedded: restart: %w", ErrShutdown)
	}
	var down []*node
	for _, n := range ns {
		if !c.isRunning(n) {
			down = append(down, n)
		}
	}
	for _, n := range down {
		if err := c.startAgain(n); err != nil {
			c.kill(n)
			return fmt.Errorf("embedded: restart %s: %w", n.Name, err)
		}
	}
	ctx, cancel := c.withReadyTimeout(context.Background())
	defer cancel()
	if err := c.poll(ctx, func() (string, error) { return c.readiness(down, true) }); err != nil {
		return fmt.Errorf("embedded: restart: %w", err)
	}
	return nil
}

// pick maps 1-based indexes to nodes.
func (c *Cluster) pick(idx []int) ([]*node, error) {
	ns, err := c.nodes.Pick(idx)
	if err != nil {
		return nil, fmt.Errorf("embedded: %w", err)
	}
	return ns, nil
}

// Corrupt flips one bit in the middle of the newest message block of node i's store, as a bad
// sector would. The node must be down (killed or power-failed): a running server would
// overwrite it. It says which file and byte.
func (c *Cluster) Corrupt(i int) (string, error) {
	n, err := c.node(i)
	if err != nil {
		return "", err
	}
	c.opMu.Lock()
	defer c.opMu.Unlock()
	fl, err := n.Corrupt(c.isRunning(n))
	if err != nil {
		return "", fmt.Errorf("embedded: %w", err)
	}
	return fl, nil
}
