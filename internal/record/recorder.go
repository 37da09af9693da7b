package record

import (
	"sync/atomic"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/result"
)

// Options configure a Recorder.
type Options struct {
	Clock Clock
	// Interval is the width of one slice of the per-interval series; 0 means one second.
	Interval time.Duration
	// WarmupEnd, in Clock nanoseconds, leaves what happens before it out of the statistics
	// (sequence tracking still sees every message). 0 means no warm-up.
	WarmupEnd int64
	// Latency enables latency histograms.
	Latency bool
	// Corrected adds a second histogram for latency from the actual send, next to the main one
	// measured from the intended send time (fixed-rate runs).
	Corrected bool
	// Sink, when set, receives each interval as it closes (once per interval, never per
	// message), tagged with Src, so long runs stream their series instead of keeping it: a
	// slice the sink takes is not kept. The send never blocks: when the sink is full, the
	// slice is kept in the Recorder as without a sink.
	Sink chan<- Slice
	Src  string
	// Group, when set, takes the recorder's closed intervals when there is no Sink: the
	// group's clients' slices are summed there instead of kept (and encoded) per client.
	Group *Group
	// Skew, when set, is this receiver's clock minus a publisher's, subtracted from the
	// latency of that publisher's messages (a run across machines, corrected by the clock
	// offsets the coordinator measured). It is asked once per publisher, never per message.
	Skew func(publisher uint32) int64
	// StoredClock, when set, is the server's clock minus natsperf's (ns), by which a JetStream
	// message's stored timestamp is put on natsperf's clock before its latency is split
	// (Split). An atomic set before the start barrier (the telemetry's first reading): a plain
	// load per message.
	StoredClock *atomic.Int64
	// GapMin is the shortest stretch without success kept in result.Client.Gaps; 0:
	// result.GapMin (a fault run keeps shorter ones: result.FaultGapMin).
	GapMin time.Duration
}

// Recorder collects what one client did. Only its owner goroutine calls the recording methods;
// Progress and the Events counters are safe to read or bump from other goroutines.
type Recorder struct {
	opts     Options
	interval int64

	msgs     atomic.Int64 // read by progress bars and idle detection while running
	unique   atomic.Int64 // msgs less duplicates: what a receiver's share is counted in
	bytes    int64
	warmup   int64 // messages before WarmupEnd
	begin    int64
	last     int64
	lat      *hdrhistogram.Histogram
	uncorr   *hdrhistogram.Histogram
	late     *histo.Sparse // a fixed-rate sender's send lateness, past the warm-up
	unstamp  int64
	trackers map[uint32]*seqTracker
	lastPub  uint32
	lastTrk  *seqTracker
	prev     int64 // time of the previous message, for the longest gap
	gap      int64 // longest time between two consecutive messages
	gapEnd   int64 // when that gap ended
	// gaps are the stretches of result.GapMin or more (the MaxGaps longest): a fixed array,
	// written only when such a stretch ends, so a message allocates nothing for them.
	gaps  [maxGaps]gapRec
	ngaps int
	// gapMin is Options.GapMin in clock nanoseconds.
	gapMin int64
	// lastFail is when an operation last failed (a publish timed out, was refused or could
	// not be sent) and stopped when the client's work ended: a failure after the last success
	// leaves the client without success from then to its end (an outage still open).
	lastFail atomic.Int64
	stopped  atomic.Int64

	// epoch (intervals are aligned to it) and warmupEnd are set by Start while a receiver's
	// subscription may already be delivering (a publisher in another process): atomics, so
	// that early message reads them safely; a plain load on the per-message path.
	epoch     atomic.Int64
	warmupEnd atomic.Int64
	ivStart   int64 // start of the open interval, 0 before the first message
	ivMsgs    int64
	ivBytes   int64
	ivLat     *hdrhistogram.Histogram
	ivUncorr  int64         // the open interval's largest latency from the actual send (fixed rates)
	ivSparse  *histo.Sparse // the closing interval's latencies, reused interval to interval
	// toStored and toDelivered split a JetStream consumer's latencies at the moment the
	// stream stored each message (made at the first such message).
	toStored, toDelivered *hdrhistogram.Histogram
	intervals             []Slice
	sparses               []sparseCopy // the run's histograms' sparse copies, made at the end

	// lateFrom and lateTo are the intended times of a fixed-rate sender's first and last sends
	// past the warm-up, lateLast the last one's lateness, lateN their number: where its
	// measured span starts (start). Written by Late only, which may run on another goroutine
	// than the one that counts.
	lateFrom, lateTo, lateLast, lateN int64
	// answers marks an open-model client (Answers): its measured span is its answers'.
	answers bool

	Events Events
}

// Slice is one closed interval of a client's series (Src: Options.Src, on slices sent to a
// Sink); public as result.Slice, since runner.Options.Series hands them to programs.
type Slice = result.Slice

// New returns an empty recorder.
func New(opts Options) *Recorder {
	if opts.Interval <= 0 {
		opts.Interval = time.Second
	}
	r := &Recorder{opts: opts, interval: int64(opts.Interval), trackers: make(map[uint32]*seqTracker), gapMin: gapMin}
	if opts.GapMin > 0 {
		r.gapMin = int64(opts.GapMin)
	}
	r.warmupEnd.Store(opts.WarmupEnd)
	if opts.Latency {
		r.lat = histo.New()
		r.ivLat = histo.New()
		if opts.Corrected {
			r.uncorr = histo.New()
		}
	}
	return r
}

// Start sets the run's start (intervals are aligned to it) and the end of the warm-up (0: none).
// Call it before the client starts.
func (r *Recorder) Start(epoch, warmupEnd int64) {
	r.epoch.Store(epoch)
	r.warmupEnd.Store(warmupEnd)
}

// Begin marks the start of the client's measured work (a publisher's first send, a JetStream
// consumer's start on messages that are stored or on their way); other receivers need not
// call it: their first message begins them.
func (r *Recorder) Begin(now int64) {
	if r.begin == 0 {
		r.begin = now
	}
}

// Answers marks an open-model client (internal/inflight), which counts answers a response
// time after their sends: its measured span runs from its first measured answer to its last,
// so its rate is the answer rate. From its first slot instead, the response time of its last
// answers would count against the rate (n / (T + L): 10% at 250ms on a 2.5s probe), which a
// closed loop, whose last answer comes before the slot after it, never paid. Call it before the
// client's first operation, instead of Begin.
func (r *Recorder) Answers() { r.answers = true }

// Sent records one message of n payload bytes published at now.
func (r *Recorder) Sent(now int64, n int) {
	r.count(now, n, true)
}

// Received records one message that arrived at now. A stamped payload (one whose send time is
// within stamp.Window of now; other payloads count as unstamped) also gives its
// end-to-end latency, returned (or -1), and its publisher's sequence number; an extended stamp
// (fixed-rate publisher) also gives the uncorrected latency, from the actual send.
func (r *Recorder) Received(now int64, data []byte) (latency int64) {
	return r.ReceivedStamp(now, len(data), data)
}

// ReceivedStamp is Received for a message of size payload bytes whose stamp is st: the
// payload, or the Natsperf-Stamp header decoded (stamp.Find).
func (r *Recorder) ReceivedStamp(now int64, size int, st []byte) (latency int64) {
	pub, seq, sent, actual, ok := stamp.GetExt(st)
	if !ok || !stamp.Current(sent, now) {
		r.unstamp++
		r.count(now, size, true)
		return -1
	}
	r.stamped(now, size, pub, seq, sent, actual, 0)
	return now - sent
}

// ReceivedSince is Received for readers of stored messages: a message stamped before from (a
// replay of what an earlier run stored), or not stamped by natsperf, counts for throughput
// only; its stamp would give its age, not a latency, and its publisher is not this run's.
func (r *Recorder) ReceivedSince(now int64, data []byte, from int64) {
	r.ReceivedSinceStamp(now, len(data), data, from)
}

// ReceivedSinceStamp is ReceivedSince with the stamp apart from the payload (ReceivedStamp).
func (r *Recorder) ReceivedSinceStamp(now int64, size int, st []byte, from int64) {
	r.ReceivedStored(now, size, st, from, 0)
}

// ReceivedStored is ReceivedSinceStamp for a JetStream message that says when its stream
// stored it (stored, Unix ns from its metadata; 0: unknown): its latency is also split into
// publish -> stored and stored -> delivered, which add up to it exactly (Breakdown).
func (r *Recorder) ReceivedStored(now int64, size int, st []byte, from, stored int64) {
	pub, seq, sent, actual, ok := stamp.GetExt(st)
	if !ok || sent < from || !stamp.Current(sent, now) {
		r.count(now, size, true)
		return
	}
	r.stamped(now, size, pub, seq, sent, actual, stored)
}

func (r *Recorder) stamped(now int64, n int, pub uint32, seq uint64, sent, actual, stored int64) {
	if pub != r.lastPub || r.lastTrk == nil {
		r.lastTrk = r.tracker(pub)
		r.lastPub = pub
	}
	fresh := r.lastTrk.observe(seq)
	if r.count(now, n, fresh) && r.lat != nil {
		skew := r.lastTrk.skew
		r.latency(now - sent - skew)
		if stored != 0 {
			r.breakdown(Split(now-sent-skew, now, stored, r.storedOffset()))
		}
		if actual != 0 {
			r.uncorrected(now - actual - skew)
		}
	}
}

// uncorrected records a latency from the actual send. A receiver cannot know in advance whether
// its publishers are paced, so the histogram is made at the first extended stamp.
func (r *Recorder) uncorrected(ns int64) {
	if r.uncorr == nil {
		r.uncorr = histo.New()
	}
	histo.Record(r.uncorr, ns)
	r.ivUncorr = max(r.ivUncorr, ns)
}

// Late records how late a fixed-rate sender sent a message: its actual send time (sent)
// minus the intended one (the generator's own check: a sender that cannot keep its schedule
// is the bottleneck, not the server). A send before the warm-up's end is left out, as its
// message is (a publisher's count is cut at the same send time), so the lateness describes
// the measured sends only. The histogram is made at the first call, once per client. It
// is sparse: a paced client's lateness takes a few dozen buckets (a thousand clients at 10
// msgs/s each send a few dozen messages), where a dense histogram is 270 KB to allocate and
// read through at the end, per client; a record costs a search among the buckets used instead
// of an array write, at rates where a sender sleeps between its messages.
//
// It may be called from a goroutine other than the one that counts the operations (an
// asynchronous publisher counts on its acks' goroutine): it touches only its own fields.
func (r *Recorder) Late(intended, sent int64) {
	if sent < r.warmupEnd.Load() {
		return
	}
	if r.late == nil {
		r.late = histo.NewSparse()
	}
	histo.RecordSparse(r.late, sent-intended)
	if r.lateN == 0 {
		r.lateFrom = intended
	}
	r.lateTo, r.lateLast = intended, sent-intended
	r.lateN++
}

// Op records one operation with a measured latency, such as a request and its reply.
func (r *Recorder) Op(now int64, n int, latency int64) {
	if r.count(now, n, true) && r.lat != nil {
		r.latency(latency)
	}
}

// OpCorrected records one operation with its latency from the intended send time and, when
// the recorder keeps it (fixed-rate runs), the uncorrected one from the actual send. Outside
// a fixed rate the two are the same and only the first is kept.
//
// At a fixed rate the operation belongs to the warm-up when it was sent in it (now -
// uncorrected), as its send lateness does (Late): one sent before the warm-up's end and
// answered after it is left out of both, so the sender's lateness counts one value per
// operation counted.
func (r *Recorder) OpCorrected(now int64, n int, latency, uncorrected int64) {
	cut := now
	if r.opts.Corrected {
		cut = now - uncorrected
	}
	if !r.countAt(now, cut, 1, n, true) {
		return
	}
	if r.lat != nil {
		r.latency(latency)
		if r.uncorr != nil {
			histo.Record(r.uncorr, uncorrected)
			r.ivUncorr = max(r.ivUncorr, uncorrected)
		}
	}
}

// count adds one message (fresh: not a duplicate) and reports whether it is past the warm-up.
func (r *Recorder) count(now int64, n int, fresh bool) bool {
	return r.countN(now, 1, n, fresh)
}

// countN is count for k messages of n bytes each, at one clock reading.
func (r *Recorder) countN(now int64, k, n int, fresh bool) bool {
	return r.countAt(now, now, k, n, fresh)
}

// countAt is countN for messages left out as the warm-up's when cut (a fixed-rate operation's
// send) is before its end.
func (r *Recorder) countAt(now, cut int64, k, n int, fresh bool) bool {
	r.msgs.Add(int64(k))
	if fresh {
		r.unique.Add(int64(k))
	}
	if r.prev != 0 {
		g := now - r.prev
		if g > r.gap {
			r.gap, r.gapEnd = g, now
		}
		if g >= r.gapMin {
			r.keepGap(g, now)
		}
	}
	r.prev = now
	warmupEnd := r.warmupEnd.Load()
	if cut < warmupEnd {
		r.warmup += int64(k)
		return false
	}
	if r.begin == 0 || r.begin < warmupEnd {
		r.begin = now
	}
	r.last = now
	r.bytes += int64(k * n)
	if now-r.ivStart >= r.interval {
		r.roll(now)
	}
	r.ivMsgs += int64(k)
	r.ivBytes += int64(k * n)
	return true
}

// latency records into the open interval's histogram only; closing the interval merges it
// into the whole run's, so each sample costs one histogram write.
func (r *Recorder) latency(ns int64) {
	histo.Record(r.ivLat, ns)
}

// roll closes the open interval and opens the one holding now. Once per interval, off the
// per-message path.
func (r *Recorder) roll(now int64) {
	r.closeInterval()
	base := r.epoch.Load()
	if base == 0 {
		base = r.opts.Clock.Start()
	}
	r.ivStart = base + (now-base)/r.interval*r.interval
}

// closeInterval ends the open interval: its latencies join the run's histogram, and the
// slice goes to the Sink, the Group, or the recorder's own series. Once per interval: the
// interval's recorded buckets are copied out in one pass over the dense histogram, and
// everything after that costs what was recorded, not the histogram's range.
func (r *Recorder) closeInterval() {
	if r.ivMsgs == 0 {
		return
	}
	s := Slice{Start: r.ivStart, Msgs: r.ivMsgs, Bytes: r.ivBytes, MaxUncorrected: r.ivUncorr}
	var lat *histo.Sparse
	if r.ivLat != nil && r.ivLat.TotalCount() > 0 {
		if r.ivSparse == nil {
			r.ivSparse = histo.NewSparse()
		}
		lat = r.ivSparse
		lat.Reset()
		lat.MergeFrom(r.ivLat)
		lat.MergeInto(r.lat)
		r.ivLat.Reset()
	}
	r.ivMsgs, r.ivBytes, r.ivUncorr = 0, 0, 0
	if r.opts.Sink == nil && r.opts.Group != nil {
		r.opts.Group.add(s, lat)
		return
	}
	if lat != nil {
		s.Lat, _ = histo.EncodeSparse(lat)
	}
	if r.opts.Sink != nil {
		s.Src = r.opts.Src
		select {
		case r.opts.Sink <- s:
			return
		default:
		}
	}
	r.intervals = append(r.intervals, s)
}

func (r *Recorder) tracker(pub uint32) *seqTracker {
	t, ok := r.trackers[pub]
	if !ok {
		t = new(seqTracker)
		if r.opts.Skew != nil {
			t.skew = r.opts.Skew(pub)
		}
		r.trackers[pub] = t
	}
	return t
}

// Progress is the number of messages recorded so far; safe from any goroutine.
func (r *Recorder) Progress() int64 { return r.msgs.Load() }

// Unique is Progress less the duplicates (a stamped message whose sequence number was already
// seen): a receiver's share is counted in unique messages, so duplicates never end it early.
// Safe from any goroutine.
func (r *Recorder) Unique() int64 { return r.unique.Load() }

// Finish closes the series. Call it from the owner once the client is done.
func (r *Recorder) Finish() { r.closeInterval() }

// LastMessage is when the client's last message was sent or received (0: none). End does not
// move it: a fixed-rate publisher's End is the slot after its last message. Call it from the
// owner.
func (r *Recorder) LastMessage() int64 { return r.prev }

// Events counts anomalies. They are bumped from client library callbacks on other goroutines.
type Events struct {
	Errors        atomic.Int64
	Timeouts      atomic.Int64
	Disconnects   atomic.Int64
	Reconnects    atomic.Int64
	SlowConsumers atomic.Int64
	Dropped       atomic.Int64
	NotSent       atomic.Int64 // fixed-rate sends that could not go out at their time
	// MaxInflight is an open-model sender's bound on operations awaiting answers
	// (internal/inflight); InflightFull counts its sends that waited for one to be answered.
	MaxInflight  atomic.Int64
	InflightFull atomic.Int64
	// SendBlocked counts its sends whose call took 1ms or more: the connection's buffers were
	// full (the system pushed back), or the host stalled inside the call.
	SendBlocked atomic.Int64
}
