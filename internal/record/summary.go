package record

import (
	"cmp"
	"slices"
	"sort"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/result"
)

// End moves the client's last time to now, for work that ends after its last message (a
// publisher's final flush). Call it from the owner.
func (r *Recorder) End(now int64) {
	if r.msgs.Load() > r.warmup && now > r.last {
		r.last = now
	}
}

// Counted is the number of messages past the warm-up.
func (r *Recorder) Counted() int64 { return r.msgs.Load() - r.warmup }

// start is when the client's measured work began: its first measured message or, for a
// fixed-rate sender past a warm-up, its first measured slot when it ended on its schedule.
// A sender behind its schedule at the warm-up's end sends the slots it owes after it, faster
// than its rate: they are counted, and over the time from its first measured message the
// rate would exceed the one asked. From its first measured slot (as Begin starts a run
// without a warm-up) the rate is the schedule's when the sender caught up; one still behind
// at its end starts that much later (never later than its first measured message), so its
// rate is what it managed. How far behind it ended is how far its end is past its last slot's
// own (the mean gap of its measured slots), at most its last send's lateness: an end on the
// schedule while the last send was a little late (a requester whose end is the slot after its
// last request) leaves the start at the first slot, so the count over the span is never above
// the rate asked.
func (r *Recorder) start() int64 {
	if r.answers || r.warmupEnd.Load() == 0 || r.lateN == 0 || r.begin == 0 {
		return r.begin
	}
	past := r.last - r.lateTo
	if r.lateN > 1 {
		past -= (r.lateTo - r.lateFrom) / (r.lateN - 1)
	}
	behind := max(0, min(r.lateLast, past))
	return min(r.begin, r.lateFrom+behind)
}

// Client returns the client's figures for a Result. expected is its share of the work (0 when
// unknown); shared marks a queue-group member, whose sequence gaps are other members' messages.
func (r *Recorder) Client(id int, expected int64, shared bool) result.Client {
	r.Finish() // the open interval's latencies join the run's histogram
	c := result.Client{
		ID:       id,
		Expected: expected,
		Msgs:     r.Counted(),
		Bytes:    r.bytes,
		Start:    Time(r.start()),
		End:      Time(r.last),
		Events:   r.Events.snapshot(),
	}
	if d := r.last - r.start(); d > 0 && c.Msgs > 0 {
		c.MsgsPerSec = float64(c.Msgs) / (float64(d) / 1e9)
		c.BytesPerSec = float64(c.Bytes) / (float64(d) / 1e9)
	}
	if r.lat != nil {
		c.Latency = histo.SparseSummary(r.sparse(r.lat), true)
		if c.Latency != nil && r.uncorr != nil {
			c.Latency.Uncorrected = histo.SparseSummary(r.sparse(r.uncorr), true)
		}
	}
	if r.late != nil {
		// Its figures without the encoded histogram: the aggregate's carries it (it is what
		// merges across processes), and encoding one per client cost a 1,000-client paced run
		// half a CPU second at its end (a compressor set up per histogram).
		c.SendLateness = histo.SparseSummary(r.late, false)
	}
	c.Breakdown = Breakdown(r)
	if len(r.trackers) > 0 || r.unstamp > 0 {
		c.Correctness = r.correctness(expected, shared)
	}
	if r.gap > 0 {
		c.Gap = &result.Gap{Duration: time.Duration(r.gap), From: time.Duration(r.gapEnd - r.gap - r.epoch.Load()), To: time.Duration(r.gapEnd - r.epoch.Load())}
	}
	open := r.openGap()
	if open != nil {
		c.NotRecovered = open
		if c.Gap == nil || open.Duration >= c.Gap.Duration {
			c.Gap = open
		}
	}
	c.Gaps = r.keptGaps(open)
	return c
}

// Failed marks an operation that failed at now: a publish that timed out, was refused or could
// not be sent. Safe from any goroutine (an ack timer's); never on the path of a success.
func (r *Recorder) Failed(now int64) {
	for {
		old := r.lastFail.Load()
		if now <= old || r.lastFail.CompareAndSwap(old, now) {
			return
		}
	}
}

// Stopped records when the client's work ended (its Run returned), for an outage still open
// then. Call it once the client is done.
func (r *Recorder) Stopped(now int64) { r.stopped.Store(now) }

// openGap is the client's time without a success that was still open when it stopped: from
// its last success (or the run's start) to its end, when an operation failed after that last
// success. nil when the client succeeded after its last failure.
func (r *Recorder) openGap() *result.Gap {
	stop, fail, epoch := r.stopped.Load(), r.lastFail.Load(), r.epoch.Load()
	from := r.prev
	if from == 0 {
		from = epoch
	}
	if stop == 0 || fail == 0 || fail < from || stop <= from {
		return nil
	}
	return &result.Gap{Duration: time.Duration(stop - from), From: time.Duration(from - epoch), To: time.Duration(stop - epoch), Open: true}
}

func (r *Recorder) correctness(expected int64, shared bool) *result.Correctness {
	c := &result.Correctness{Unstamped: r.unstamp, Publishers: len(r.trackers)}
	var distinct int64
	for _, t := range r.trackers {
		distinct += t.distinct
		c.Received += t.distinct + t.duplicated
		c.Duplicated += t.duplicated
		c.OutOfOrder += t.outOfOrder
		c.HighestSeqMin, c.HighestSeqMax = highest(c.HighestSeqMin, c.HighestSeqMax, t.highest)
		if !shared {
			c.Lost += t.gaps()
		}
	}
	if !shared {
		c.Expected = expected
		c.NotReceived = notReceived(expected, distinct+r.unstamp, c.Lost)
	}
	return c
}

// notReceived is what a receiver expected beyond what it saw and the gaps below the highest
// sequences: the tail, which it cannot tell apart from messages never sent.
func notReceived(expected, unique, lost int64) int64 {
	if expected <= 0 {
		return 0
	}
	return max(0, expected-unique-lost)
}

// SentTail settles c's NotReceived against what in-process publishers are known to have sent
// (sent messages in all): what they sent and never arrived is lost; what they never sent
// (a publisher behind its schedule stopped at the duration) is neither lost nor awaited, so
// the receiver expected only what was sent.
func SentTail(c *result.Correctness, sent int64) {
	if c == nil || c.NotReceived == 0 {
		return
	}
	unseen := sent - (c.Received - c.Duplicated + c.Unstamped) - c.Lost
	if moved := min(max(0, unseen), c.NotReceived); moved > 0 {
		c.Lost += moved
		c.NotReceived -= moved
	}
	if c.NotReceived > 0 { // the rest was never sent
		c.NotReceived = 0
		c.Expected = min(c.Expected, sent)
	}
}

func highest(lo, hi, seq uint64) (uint64, uint64) {
	if lo == 0 || seq < lo {
		lo = seq
	}
	return lo, max(hi, seq)
}

func (e *Events) snapshot() result.Events {
	return result.Events{
		Errors:        e.Errors.Load(),
		Timeouts:      e.Timeouts.Load(),
		Disconnects:   e.Disconnects.Load(),
		Reconnects:    e.Reconnects.Load(),
		SlowConsumers: e.SlowConsumers.Load(),
		Dropped:       e.Dropped.Load(),
		NotSent:       e.NotSent.Load(),
		MaxInflight:   e.MaxInflight.Load(),
		InflightFull:  e.InflightFull.Load(),
		SendBlocked:   e.SendBlocked.Load(),
	}
}

// Aggregate merges the clients of one group. expected is the group's total share (0 when
// unknown); shared marks a queue group, where losses are judged on the group's total.
func Aggregate(recs []*Recorder, clients []result.Client, expected int64, shared bool) result.Aggregate {
	var a result.Aggregate
	var begin, last int64
	rates := make([]float64, 0, len(clients))
	perMsg := make([]float64, 0, len(clients))
	for i, r := range recs {
		c := clients[i]
		a.Msgs += c.Msgs
		a.Bytes += c.Bytes
		a.Events.Add(c.Events)
		if c.Msgs > 0 {
			if b := r.start(); begin == 0 || b < begin {
				begin = b
			}
			if r.last > last {
				last = r.last
			}
		}
		// A client with no rate (no message, or one: no interval) is not a slow client.
		if c.MsgsPerSec > 0 {
			rates = append(rates, c.MsgsPerSec)
			perMsg = append(perMsg, 1e9/c.MsgsPerSec)
		}
	}
	a.Start, a.End = Time(begin), Time(last)
	if d := last - begin; d > 0 {
		a.MsgsPerSec = float64(a.Msgs) / (float64(d) / 1e9)
		a.BytesPerSec = float64(a.Bytes) / (float64(d) / 1e9)
	}
	a.Rates = result.SpreadOf(rates)
	a.TimePerMsg = result.SpreadOf(perMsg)
	a.Latency = mergedLatency(recs)
	var late *histo.Sparse
	for _, r := range recs {
		if r.late != nil {
			if late == nil {
				late = histo.NewSparse()
			}
			late.Merge(r.late)
		}
	}
	a.SendLateness = histo.SparseSummary(late, true)
	a.Breakdown = Breakdown(recs...)
	a.Correctness = mergedCorrectness(recs, clients, expected, shared)
	return a
}

// publisherList is what the recorders saw of each publisher, sorted by id, for the Result.
func publisherList(pubs map[uint32]*seenOf) []result.PublisherSeen {
	out := make([]result.PublisherSeen, 0, len(pubs))
	for id, p := range pubs {
		out = append(out, result.PublisherSeen{ID: id, Highest: uint64(p.highest), Distinct: p.distinct})
	}
	slices.SortFunc(out, func(a, b result.PublisherSeen) int { return cmp.Compare(a.ID, b.ID) })
	return out
}

func mergedLatency(recs []*Recorder) *result.Latency {
	if len(recs) == 0 || recs[0].lat == nil {
		return nil
	}
	l := mergedSummary(recs, func(r *Recorder) *hdrhistogram.Histogram { return r.lat })
	if l != nil {
		l.Uncorrected = mergedSummary(recs, func(r *Recorder) *hdrhistogram.Histogram { return r.uncorr })
	}
	return l
}

// mergedSummary summarises the recorders' histograms that of picks, merged (nil: none).
func mergedSummary(recs []*Recorder, of func(*Recorder) *hdrhistogram.Histogram) *result.Latency {
	var all *histo.Sparse
	for _, r := range recs {
		if s := r.sparse(of(r)); s != nil {
			if all == nil {
				all = histo.NewSparse()
			}
			all.Merge(s)
		}
	}
	return histo.SparseSummary(all, true)
}

// sparse is h's sparse copy (histo.Sparse), made once at the client's end for its own
// figures and its group's; made again should h have recorded more since. nil for nil.
func (r *Recorder) sparse(h *hdrhistogram.Histogram) *histo.Sparse {
	if h == nil {
		return nil
	}
	for _, c := range r.sparses {
		if c.of == h && c.count == h.TotalCount() {
			return c.s
		}
	}
	s := histo.SparseOf(h)
	r.sparses = append(r.sparses, sparseCopy{of: h, count: h.TotalCount(), s: s})
	return s
}

// sparseCopy is a histogram's sparse copy and the count it was made at.
type sparseCopy struct {
	of    *hdrhistogram.Histogram
	count int64
	s     *histo.Sparse
}

func mergedCorrectness(recs []*Recorder, clients []result.Client, expected int64, shared bool) *result.Correctness {
	var c result.Correctness
	seen := false
	for _, cl := range clients {
		if cl.Correctness == nil {
			continue
		}
		seen = true
		x := cl.Correctness
		c.Add(x)
	}
	if !seen {
		return nil
	}
	pubs := perPublisher(recs)
	c.Publishers = len(pubs)
	// Where each publisher went silent is the furthest any receiver saw of it.
	for _, p := range pubs {
		c.HighestSeqMin, c.HighestSeqMax = highest(c.HighestSeqMin, c.HighestSeqMax, uint64(p.highest))
	}
	c.PerPublisher = publisherList(pubs)
	if shared {
		// Queue-group members each see some of every publisher's sequence: gaps are judged on
		// the union, below each publisher's highest sequence seen by any member.
		c.Lost = sharedGaps(recs)
		c.Expected = expected
		c.NotReceived = notReceived(expected, c.Received-c.Duplicated+c.Unstamped, c.Lost)
	}
	return &c
}

// sharedGaps is the sequence numbers below each publisher's highest, as seen by any of the
// recorders, that none of them saw.
func sharedGaps(recs []*Recorder) int64 {
	var lost int64
	for _, p := range perPublisher(recs) {
		lost += max(0, p.highest-p.distinct)
	}
	return lost
}

// seenOf is what the recorders together saw of one publisher.
type seenOf struct{ highest, distinct int64 }

func perPublisher(recs []*Recorder) map[uint32]*seenOf {
	pubs := map[uint32]*seenOf{}
	for _, r := range recs {
		for id, t := range r.trackers {
			p := pubs[id]
			if p == nil {
				p = &seenOf{}
				pubs[id] = p
			}
			p.highest = max(p.highest, int64(t.highest))
			p.distinct += t.distinct
		}
	}
	return pubs
}

// Series merges the clients' interval slices into the group's series, offsets from start.
func Series(recs []*Recorder, start int64) []result.Interval {
	byStart := map[int64]*groupSlice{}
	eachSlice(recs, func(at int64, s *groupSlice) {
		a := byStart[at]
		if a == nil {
			a = &groupSlice{}
			byStart[at] = a
		}
		a.msgs += s.msgs
		a.bytes += s.bytes
		a.uncorr = max(a.uncorr, s.uncorr)
		if s.lat != nil {
			if a.lat == nil {
				a.lat = histo.NewSparse()
			}
			a.lat.Merge(s.lat)
		}
	})
	starts := make([]int64, 0, len(byStart))
	for s := range byStart {
		starts = append(starts, s)
	}
	sort.Slice(starts, func(i, j int) bool { return starts[i] < starts[j] })
	out := make([]result.Interval, 0, len(starts))
	for _, s := range starts {
		a := byStart[s]
		iv := result.Interval{Offset: time.Duration(s - start), Msgs: a.msgs, Bytes: a.bytes, MaxUncorrected: a.uncorr}
		if a.lat != nil && a.lat.TotalCount() > 0 {
			iv.P50 = a.lat.ValueAtPercentile(50)
			iv.P90 = a.lat.ValueAtPercentile(90)
			iv.P99 = a.lat.ValueAtPercentile(99)
			iv.Max = a.lat.Max()
			iv.Histogram, _ = histo.EncodeSparse(a.lat) // "" if it cannot be encoded: the series then merges approximately
		}
		out = append(out, iv)
	}
	return out
}

// eachSlice calls fn with every closed interval of recs: those their Groups summed (each
// Group once) and those kept per recorder (decoded). fn must not keep s.
func eachSlice(recs []*Recorder, fn func(start int64, s *groupSlice)) {
	seen := map[*Group]bool{}
	for _, r := range recs {
		if g := r.opts.Group; g != nil && !seen[g] {
			seen[g] = true
			g.each(fn)
		}
		for _, s := range r.intervals {
			one := groupSlice{msgs: s.Msgs, bytes: s.Bytes, uncorr: s.MaxUncorrected}
			if s.Lat != "" {
				if h, err := histo.DecodeSparse(s.Lat); err == nil {
					one.lat = h
				}
			}
			fn(s.Start, &one)
		}
	}
}
