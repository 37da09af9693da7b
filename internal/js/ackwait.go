package js

import (
	"sync"
	"time"
)

// AckWaits collects, per publisher (by client id), the time spent waiting on acknowledgements
// that timed out: the union of the spans from each such publish to its timeout. After a leader
// kill most of a publisher's time without acks is this wait (--ack-timeout), not the failover.
// It is written only when a publish times out, never per acknowledged message.
type AckWaits struct {
	mu   sync.Mutex
	pubs map[int]*ackWait
}

// NewAckWaits returns an empty registry.
func NewAckWaits() *AckWaits { return &AckWaits{pubs: map[int]*ackWait{}} }

// Span is a stretch of a run, from its start.
type Span struct{ From, To time.Duration }

type ackWait struct {
	mu    sync.Mutex
	spans []Span
	each  []Span // every publish that timed out: sent, given up
}

// publisher returns client id's record; nil on a nil registry.
func (a *AckWaits) publisher(id int) *ackWait {
	if a == nil {
		return nil
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	w := a.pubs[id]
	if w == nil {
		w = &ackWait{}
		a.pubs[id] = w
	}
	return w
}

// add records a publish that timed out, sent at from and given up at to (offsets from the run's
// start), merged with the spans it overlaps.
func (w *ackWait) add(from, to time.Duration) {
	if w == nil || to <= from {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	w.each = append(w.each, Span{from, to})
	// Timeouts come about in the order of their publishes: merge with the last span.
	if n := len(w.spans); n > 0 && from <= w.spans[n-1].To {
		w.spans[n-1].To = max(w.spans[n-1].To, to)
		w.spans[n-1].From = min(w.spans[n-1].From, from)
		return
	}
	w.spans = append(w.spans, Span{from, to})
}

// Within is how much of from..to publisher id spent waiting on acks that timed out.
func (a *AckWaits) Within(id int, from, to time.Duration) time.Duration {
	w := a.publisher(id)
	if w == nil {
		return 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var d time.Duration
	for _, s := range w.spans {
		if lo, hi := max(s.From, from), min(s.To, to); hi > lo {
			d += hi - lo
		}
	}
	return d
}

// TimedOut is how many of publisher id's publishes were given up (timed out) within from..to,
// and when the first of them was sent: the publishes whose wait made that stretch longer.
func (a *AckWaits) TimedOut(id int, from, to time.Duration) (n int64, firstSent time.Duration) {
	w := a.publisher(id)
	if w == nil {
		return 0, 0
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, s := range w.each {
		if s.To < from || s.To > to {
			continue
		}
		if n == 0 || s.From < firstSent {
			firstSent = s.From
		}
		n++
	}
	return n, firstSent
}
