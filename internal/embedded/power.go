package embedded

import (
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
	return nodes.PowerFail(ops{c}, idx, func(ns []*node) {
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
}

// RestartAll brings the nodes that are down among idx back together, and waits until they
// accept clients and follow a current meta leader. Nodes that all lost power must start
// together: one alone has no quorum and would never be ready.
func (c *Cluster) RestartAll(idx []int) error { return nodes.RestartAll(ops{c}, idx) }

// Corrupt flips one bit in the middle of the newest message block of node i's store, as a bad
// sector would. The node must be down (killed or power-failed): a running server would
// overwrite it. It says which file and byte.
func (c *Cluster) Corrupt(i int) (string, error) { return nodes.Corrupt(ops{c}, i) }
