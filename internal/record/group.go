package record

import (
	"sync"

	"github.com/natsperf/natsperf/internal/histo"
)

// Group is where the recorders of one group of clients (Options.Group) merge their closed
// intervals when nothing streams them (no Sink): the group's series needs only their sum, so
// each client adds its interval's counts and recorded latency buckets here, once per interval,
// instead of encoding its own histogram every interval for Series to decode again. A run's
// series then costs one histogram per group and interval, encoded once, whatever the number
// of clients. Safe for concurrent use.
type Group struct {
	mu      sync.Mutex
	byStart map[int64]*groupSlice
}

// groupSlice is one interval of a group: its clients' slices summed.
type groupSlice struct {
	msgs, bytes, uncorr int64
	lat                 *histo.Sparse // nil: no latency recorded
}

// NewGroup returns an empty Group.
func NewGroup() *Group { return &Group{byStart: map[int64]*groupSlice{}} }

// add merges one client's closed interval (lat: its recorded latencies, or nil).
func (g *Group) add(s Slice, lat *histo.Sparse) {
	g.mu.Lock()
	defer g.mu.Unlock()
	a := g.byStart[s.Start]
	if a == nil {
		a = &groupSlice{}
		g.byStart[s.Start] = a
	}
	a.msgs += s.Msgs
	a.bytes += s.Bytes
	a.uncorr = max(a.uncorr, s.MaxUncorrected)
	if lat != nil && lat.TotalCount() > 0 {
		if a.lat == nil {
			a.lat = histo.NewSparse()
		}
		a.lat.Merge(lat)
	}
}

// each calls fn with every interval of the group, under its lock.
func (g *Group) each(fn func(start int64, s *groupSlice)) {
	g.mu.Lock()
	defer g.mu.Unlock()
	for start, s := range g.byStart {
		fn(start, s)
	}
}
