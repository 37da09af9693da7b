package nodes

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/natsperf/natsperf/internal/powerfs"
)

var (
	// ErrNoNode is returned for a node index outside 1..Size.
	ErrNoNode = errors.New("no such node")
	// ErrNodeDown is returned when an operation needs a running node.
	ErrNodeDown = errors.New("node is not running")
	// ErrShutdown is returned after Shutdown.
	ErrShutdown = errors.New("cluster is shut down")
)

// Slot is what stays of a node across its restarts; a cluster's node type embeds it.
type Slot struct {
	Index    int         // 1-based
	Name     string      // the server name, natsperf-n<Index>
	StoreDir string      // the store the server uses: <root>/n<Index>
	Disk     *powerfs.FS // the store's powerfs mount; nil unless the stores are on powerfs
}

// NewSlot is node i's slot under the store root.
func NewSlot(root string, i int) Slot {
	return Slot{Index: i, Name: fmt.Sprintf("natsperf-n%d", i), StoreDir: filepath.Join(root, fmt.Sprintf("n%d", i))}
}

// MakeStore creates the slot's store directory and, with power, mounts it on its own powerfs:
// the backing directory is .disk/n<i> under root (for both clusters, so the stale sweep's
// unmount of everything under a dead owner's root covers both).
func (s *Slot) MakeStore(root string, power bool) error {
	if err := os.MkdirAll(s.StoreDir, 0o750); err != nil {
		return fmt.Errorf("create store dir: %w", err)
	}
	if !power {
		return nil
	}
	disk, err := powerfs.MountStore(root, s.StoreDir)
	if err != nil {
		return err
	}
	s.Disk = disk
	return nil
}

// DiskDir is where the store lives on disk: the powerfs backing directory (readable while
// the node is down and unmounted), else the store itself.
func (s *Slot) DiskDir() string {
	if s.Disk != nil {
		return s.Disk.Backing()
	}
	return s.StoreDir
}

func (s *Slot) slot() *Slot { return s }

// Node is a cluster's node type: one that embeds Slot.
type Node interface{ slot() *Slot }

// List is a cluster's nodes in order: node i (1-based) is List[i-1].
type List[N Node] []N

// At is node i.
func (l List[N]) At(i int) (N, error) {
	if i < 1 || i > len(l) {
		var zero N
		return zero, fmt.Errorf("node %d: %w (cluster has %d)", i, ErrNoNode, len(l))
	}
	return l[i-1], nil
}

// Pick maps 1-based indexes to nodes; it needs at least one.
func (l List[N]) Pick(idx []int) ([]N, error) {
	ns := make([]N, 0, len(idx))
	for _, i := range idx {
		n, err := l.At(i)
		if err != nil {
			return nil, err
		}
		ns = append(ns, n)
	}
	if len(ns) == 0 {
		return nil, errors.New("no node given")
	}
	return ns, nil
}

// ServerName is node i's server name, "" out of range.
func (l List[N]) ServerName(i int) string {
	n, err := l.At(i)
	if err != nil {
		return ""
	}
	return n.slot().Name
}

// ByName is the 1-based index of the node with the server name.
func (l List[N]) ByName(name string) (int, bool) {
	for _, n := range l {
		if s := n.slot(); s.Name == name {
			return s.Index, true
		}
	}
	return 0, false
}

// Unmount unmounts every node's powerfs, keeping what was written; the servers must be gone
// (a process holds its files open).
func (l List[N]) Unmount() {
	for _, n := range l {
		if d := n.slot().Disk; d != nil {
			_ = d.Unmount()
		}
	}
}
