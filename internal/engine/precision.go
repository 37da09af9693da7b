package engine

import (
	"sync"
	"time"

	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/spec"
)

// pacePrecision is the pacing precision a run of s paces at: its pace_precision, or
// natsperf's default.
func pacePrecision(s *spec.Spec) time.Duration {
	if d := s.PacePrecision.D(); d > 0 {
		return d
	}
	return loop.DefaultPrecision
}

// The pacing precision is the process's (loop.SetPrecision): every paced sender of the
// process waits on it. runsPacing holds the precisions of the runs going on in this process
// (agents' parts in one test process, a library's concurrent runs), so that each run sets it
// while it goes and the process returns to the default once none goes; runs that overlap pace
// at the finest of theirs, which only makes a run's sends less late than its own precision
// allows.
var runsPacing struct {
	sync.Mutex
	live map[*Run]time.Duration
}

// pace sets the process's precision for r, until unpace.
func (r *Run) pace() {
	runsPacing.Lock()
	defer runsPacing.Unlock()
	if runsPacing.live == nil {
		runsPacing.live = map[*Run]time.Duration{}
	}
	runsPacing.live[r] = pacePrecision(r.Spec)
	applyPacing()
}

// unpace ends r's hold on the process's precision; it may be called more than once.
func (r *Run) unpace() {
	runsPacing.Lock()
	defer runsPacing.Unlock()
	if _, ok := runsPacing.live[r]; !ok {
		return
	}
	delete(runsPacing.live, r)
	applyPacing()
}

// applyPacing sets the finest precision of the live runs, or the default. runsPacing is held.
func applyPacing() {
	d := time.Duration(0) // none live: loop's default
	for _, p := range runsPacing.live {
		if d == 0 || p < d {
			d = p
		}
	}
	loop.SetPrecision(d)
}
