package js

import (
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/result"
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
	// refused are its publishes that failed fast, in runs of one reason (refuse).
	refused []result.Refusals
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

// maxRefusalRuns bounds a publisher's record of refusals: runs of one reason, each merged
// with the next refusal of its reason within refusalJoin; past the bound, a refusal joins its
// reason's last run whenever it came.
const (
	maxRefusalRuns = 256
	refusalJoin    = 50 * time.Millisecond
)

// refuse records k publishes failed fast at at (from the run's start) for reason. Written
// only on a failure, never per acknowledged message.
func (w *ackWait) refuse(at time.Duration, reason string, k int64) {
	if w == nil || k <= 0 {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	last := len(w.refused) - 1
	for last >= 0 && w.refused[last].Reason != reason {
		last--
	}
	if last >= 0 && (at-w.refused[last].To <= refusalJoin || len(w.refused) >= maxRefusalRuns) {
		r := &w.refused[last]
		r.Count += k
		r.From, r.To = min(r.From, at), max(r.To, at)
		return
	}
	if len(w.refused) >= maxRefusalRuns { // a new reason past the bound: with the last run
		last = len(w.refused) - 1
		w.refused[last].Count += k
		return
	}
	w.refused = append(w.refused, result.Refusals{Reason: reason, Count: k, From: at, To: at})
}

// TimedOutRuns are publisher id's publishes given up at their timeout, in runs of ones whose
// waits overlapped (from the first one's send to the last one's give-up), in time order. A
// run never takes in a publish sent at or after a cut (a fault's start) when its last one was
// sent before it: each run's publishes were sent within one stretch between faults.
func (a *AckWaits) TimedOutRuns(id int, cuts ...time.Duration) []result.Refusals {
	w := a.publisher(id)
	if w == nil {
		return nil
	}
	w.mu.Lock()
	each := slices.Clone(w.each)
	w.mu.Unlock()
	slices.SortFunc(each, func(x, y Span) int { return int(x.From - y.From) })
	cut := func(from, to time.Duration) bool {
		return slices.ContainsFunc(cuts, func(c time.Duration) bool { return from < c && c <= to })
	}
	var out []result.Refusals
	var lastSent time.Duration
	for _, e := range each {
		if n := len(out); n > 0 && e.From <= out[n-1].To && !cut(lastSent, e.From) {
			out[n-1].Count++
			out[n-1].To = max(out[n-1].To, e.To)
			lastSent = e.From
			continue
		}
		out = append(out, result.Refusals{Reason: result.ReasonTimedOut, Count: 1, From: e.From, To: e.To})
		lastSent = e.From
	}
	return out
}

// Runs are all of publisher id's runs of publishes that failed fast, in time order.
func (a *AckWaits) Runs(id int) []result.Refusals {
	w := a.publisher(id)
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	out := slices.Clone(w.refused)
	slices.SortStableFunc(out, func(x, y result.Refusals) int { return int(x.From - y.From) })
	return out
}

// Refused are publisher id's publishes that failed fast within from..to, by reason in the
// order each reason first came: how many, the first and the last.
func (a *AckWaits) Refused(id int, from, to time.Duration) []result.Refusals {
	w := a.publisher(id)
	if w == nil {
		return nil
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []result.Refusals
	for _, r := range w.refused {
		if r.To < from || r.From > to {
			continue
		}
		// A run reaching out of the stretch counts whole: runs are short next to a stretch.
		out = result.AddByReason(out, r)
	}
	return out
}

// Reason words why a publish failed fast, from a short list (a reason per error text would
// make every refusal its own run).
func Reason(err error) string {
	var api *jetstream.APIError
	switch {
	case errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse):
		return ReasonNoResponders
	case errors.As(err, &api) && api.Code == 503:
		return "JetStream unavailable (503: " + api.Description + ")"
	case errors.As(err, &api):
		return fmt.Sprintf("refused by the server (%d: %s)", api.Code, api.Description)
	case errors.Is(err, nats.ErrConnectionReconnecting) || errors.Is(err, nats.ErrDisconnected) || errors.Is(err, nats.ErrConnectionClosed):
		return ReasonConnLost
	case errors.Is(err, jetstream.ErrTooManyStalledMsgs):
		return "too many publishes pending in the client"
	}
	if s := err.Error(); len(s) <= 80 {
		return s
	}
	return err.Error()[:80]
}

// Reasons other errors' texts do not give (result's, which the report words).
const (
	ReasonNoResponders = result.ReasonNoResponders
	ReasonNotSent      = result.ReasonNotSent
	ReasonConnLost     = result.ReasonConnLost
)
