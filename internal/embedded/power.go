package embedded

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/natsperf/natsperf/internal/corrupt"
	"github.com/natsperf/natsperf/internal/powerfs"
)

// ErrNoPower is returned by PowerFail unless Options.PowerFail was set.
var ErrNoPower = errors.New("power failures need Options.PowerFail (stores on powerfs)")

// diskDir is where the node's store lives on disk: the powerfs backing directory (readable
// while the node is down and unmounted), else the store itself.
func (n *node) diskDir() string {
	if n.disk != nil {
		return n.disk.Backing()
	}
	return n.storeDir
}

// mountStore puts node n's store on its own powerfs: the backing directory is .disk/n<i>
// under the store root, mounted on the store directory the server uses.
func (c *Cluster) mountStore(n *node) error {
	disk, err := powerfs.MountStore(c.root, n.storeDir)
	if err != nil {
		return err
	}
	n.disk = disk
	return nil
}

// unmountStores unmounts every node's powerfs, keeping what was written (Shutdown).
func (c *Cluster) unmountStores() {
	for _, n := range c.nodes {
		if n.disk != nil {
			_ = n.disk.Unmount()
		}
	}
}

// PowerFail stops the nodes at one instant as a power failure would and drops what they had
// not fsynced. At the instant every node's ports stall (no byte, and so no acknowledgement,
// leaves after it) and its filesystem refuses every write; only then are the servers shut
// down, their connections dropped and the unsynced contents dropped from their stores. It
// says how much was dropped. Restart or RestartAll brings the nodes back on what survived.
func (c *Cluster) PowerFail(nodes []int) (string, error) {
	ns, err := c.pick(nodes)
	if err != nil {
		return "", err
	}
	c.opMu.Lock()
	defer c.opMu.Unlock()
	for _, n := range ns {
		if err := c.checkRunning(n); err != nil {
			return "", fmt.Errorf("embedded: power-fail %s: %w", n.name, err)
		}
		if n.disk == nil {
			return "", fmt.Errorf("embedded: power-fail %s: %w", n.name, ErrNoPower)
		}
	}
	for _, n := range ns { // the instant
		n.gate.pause(24 * time.Hour)
		n.disk.Cut()
	}
	var wg sync.WaitGroup
	for _, n := range ns {
		wg.Go(func() { c.kill(n) })
	}
	wg.Wait()
	detail, err := powerfs.LoseAll(ns, func(n *node) (string, *powerfs.FS) { return n.name, n.disk })
	if err != nil {
		return detail, fmt.Errorf("embedded: power-fail: %w", err)
	}
	return detail, nil
}

// RestartAll brings the nodes that are down among nodes back together, and waits until they
// accept clients and follow a current meta leader. Nodes that all lost power must start
// together: one alone has no quorum and would never be ready.
func (c *Cluster) RestartAll(nodes []int) error {
	ns, err := c.pick(nodes)
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
			return fmt.Errorf("embedded: restart %s: %w", n.name, err)
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
func (c *Cluster) pick(nodes []int) ([]*node, error) {
	var ns []*node
	for _, i := range nodes {
		n, err := c.node(i)
		if err != nil {
			return nil, err
		}
		ns = append(ns, n)
	}
	if len(ns) == 0 {
		return nil, errors.New("embedded: no node given")
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
	if c.isRunning(n) {
		return "", fmt.Errorf("embedded: corrupt %s: the node is running (kill or power-fail it first)", n.name)
	}
	fl, err := corrupt.Flip(n.diskDir())
	if err != nil {
		return "", fmt.Errorf("embedded: corrupt %s: %w", n.name, err)
	}
	return fl.String(), nil
}
