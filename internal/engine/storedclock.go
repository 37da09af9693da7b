package engine

import (
	"sync"
	"sync/atomic"

	"github.com/natsperf/natsperf/result"
)

// storedClock places the JetStream latency breakdown's split on natsperf's clock: the
// offset every consumer's recorder adds (harness.Runner.StoredClock), set from the
// telemetry's first reading before the start barrier, and what the Result says of it.
type storedClock struct {
	offset atomic.Int64
	mu     sync.Mutex
	clock  result.StoredClock
}

// newStoredClock is the clock before any reading: exact on the embedded servers, else
// uncorrected for why (a part of a distributed run: its agent samples no server).
func newStoredClock(t *Target, part bool) *storedClock {
	c := &storedClock{clock: result.StoredClock{Basis: result.ClockUncorrected,
		Note: "no server telemetry to estimate the server's clock from (--server-metrics or --sys-creds)"}}
	switch {
	case t != nil && t.Embedded != nil:
		c.clock = result.StoredClock{Basis: result.ClockExact}
	case part:
		c.clock.Note = "a distributed run's split is on the server's clock"
	}
	return c
}

// set applies sc from now on; servers in natsperf's process stay exact.
func (c *storedClock) set(sc result.StoredClock) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.clock.Basis == result.ClockExact {
		return
	}
	c.clock = sc
	c.offset.Store(sc.OffsetNS)
}

// mark says on every breakdown of res how its split was placed.
func (c *storedClock) mark(res *result.Result) {
	c.mu.Lock()
	sc := c.clock
	c.mu.Unlock()
	for gi := range res.Groups {
		g := &res.Groups[gi]
		if b := g.Aggregate.Breakdown; b != nil {
			b.Clock = &sc
		}
		for ci := range g.Clients {
			if b := g.Clients[ci].Breakdown; b != nil {
				b.Clock = &sc
			}
		}
	}
}
