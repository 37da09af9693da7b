package nodes

import (
	"errors"
	"fmt"

	"github.com/natsperf/natsperf/internal/corrupt"
	"github.com/natsperf/natsperf/internal/powerfs"
)

// ErrNoPower is returned by PowerFail unless the stores are on powerfs (Options.PowerFail).
var ErrNoPower = errors.New("power failures need Options.PowerFail (stores on powerfs)")

// powerFail is a power failure of ns around its instant, which each cluster takes its own
// way: every node must be running (running says why not) with its store on powerfs; stop ends
// them all at one instant, so that no acknowledgement leaves a node after it, and returns once
// they are gone; then what they had not fsynced is dropped from their stores, as a machine
// loses its page cache. It says how much was dropped.
func powerFail[N Node](ns []N, running func(N) error, stop func([]N)) (string, error) {
	for _, n := range ns {
		s := n.slot()
		if err := running(n); err != nil {
			return "", fmt.Errorf("power-fail %s: %w", s.Name, err)
		}
		if s.Disk == nil {
			return "", fmt.Errorf("power-fail %s: %w", s.Name, ErrNoPower)
		}
	}
	stop(ns)
	detail, err := powerfs.LoseAll(ns, func(n N) (string, *powerfs.FS) { s := n.slot(); return s.Name, s.Disk })
	if err != nil {
		return detail, fmt.Errorf("power-fail: %w", err)
	}
	return detail, nil
}

// Corrupt flips one bit in the middle of the newest message block of the node's store, as a
// bad sector would. The node must be down (killed or power-failed): a running server would
// overwrite it. It says which file and byte.
func (s *Slot) Corrupt(running bool) (string, error) {
	if running {
		return "", fmt.Errorf("corrupt %s: the node is running (kill or power-fail it first)", s.Name)
	}
	fl, err := corrupt.Flip(s.DiskDir())
	if err != nil {
		return "", fmt.Errorf("corrupt %s: %w", s.Name, err)
	}
	return fl.String(), nil
}
