package record

import (
	"bytes"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/result"
)

func TestSeqTracker(t *testing.T) {
	tests := []struct {
		name                 string
		seqs                 []uint64
		gaps, dup, ooo, dist int64
	}{
		{"in order", []uint64{1, 2, 3, 4}, 0, 0, 0, 4},
		{"gap", []uint64{1, 2, 5}, 2, 0, 0, 3},
		{"duplicate", []uint64{1, 2, 2, 3, 1}, 0, 2, 0, 3},
		{"reordered", []uint64{1, 3, 2, 4}, 0, 0, 1, 4},
		{"late fills gap", []uint64{1, 4, 2}, 1, 0, 1, 3},
		{"huge jump", []uint64{1, window * 3, window*3 - 1}, window*3 - 3, 0, 1, 3},
		{"too old", []uint64{window * 2, 1}, window*2 - 2, 0, 1, 2},
		{"ring reuse is not a duplicate", []uint64{1, window + 1, window + 2}, window - 1, 0, 0, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var tr seqTracker
			for _, s := range tt.seqs {
				tr.observe(s)
			}
			if tr.gaps() != tt.gaps || tr.duplicated != tt.dup || tr.outOfOrder != tt.ooo || tr.distinct != tt.dist {
				t.Fatalf("gaps=%d dup=%d ooo=%d distinct=%d, want %d %d %d %d",
					tr.gaps(), tr.duplicated, tr.outOfOrder, tr.distinct, tt.gaps, tt.dup, tt.ooo, tt.dist)
			}
		})
	}
}

func TestRecorderReceivedLatencyAndLoss(t *testing.T) {
	clk := NewClock()
	r := New(Options{Clock: clk, Latency: true})
	buf := make([]byte, 64)
	base := clk.Now()
	for seq := uint64(1); seq <= 10; seq++ {
		if seq == 5 {
			continue // lost
		}
		stamp.Put(buf, 7, seq, base)
		r.Received(base+int64(seq)*1000, buf)
	}
	r.Finish()
	c := r.Client(1, 10, false)
	if c.Msgs != 9 || c.Bytes != 9*64 {
		t.Fatalf("msgs=%d bytes=%d", c.Msgs, c.Bytes)
	}
	if c.Correctness == nil || c.Correctness.Lost != 1 || c.Correctness.Publishers != 1 {
		t.Fatalf("correctness = %+v", c.Correctness)
	}
	if c.Latency == nil || c.Latency.Min != 1000 || c.Latency.Count != 9 {
		t.Fatalf("latency = %+v", c.Latency)
	}
	if got := histo.At(c.Latency, 100); got < 9990 || got > 10010 {
		t.Fatalf("max latency %d, want ~10000", got)
	}
}

func TestRecorderExpectedTailLoss(t *testing.T) {
	r := New(Options{Clock: NewClock()})
	buf := make([]byte, 16)
	for seq := uint64(1); seq <= 3; seq++ {
		stamp.Put(buf, 1, seq, 1)
		r.Received(int64(seq), buf)
	}
	if c := r.Client(1, 5, false); c.Correctness.Lost != 0 || c.Correctness.NotReceived != 2 || c.Correctness.HighestSeqMax != 3 {
		t.Fatalf("correctness %+v, want the tail of 2 not received, not lost", c.Correctness)
	}
	if c := r.Client(1, 5, true); c.Correctness.Lost != 0 {
		t.Fatalf("queue member lost = %d, want 0 (judged on the group)", c.Correctness.Lost)
	}
}

func TestWarmupExcluded(t *testing.T) {
	clk := NewClock()
	start := clk.Start()
	r := New(Options{Clock: clk, WarmupEnd: start + 100})
	for i := int64(0); i < 200; i += 10 {
		r.Sent(start+i, 8)
	}
	c := r.Client(1, 0, false)
	if c.Msgs != 10 || c.Bytes != 80 || r.Progress() != 20 {
		t.Fatalf("msgs=%d bytes=%d progress=%d", c.Msgs, c.Bytes, r.Progress())
	}
}

func TestAggregateAndSeries(t *testing.T) {
	clk := NewClock()
	start := clk.Start()
	var recs []*Recorder
	for i := 0; i < 3; i++ {
		r := New(Options{Clock: clk, Latency: true, Interval: time.Second})
		r.Begin(start)
		for j := int64(1); j <= 100; j++ {
			// 100 ops spread over 2 seconds, latency 1ms*(i+1)
			r.Op(start+j*int64(20*time.Millisecond), 10, int64(i+1)*int64(time.Millisecond))
		}
		r.Finish()
		recs = append(recs, r)
	}
	cs := clientsOf(recs)
	a := Aggregate(recs, cs, 300, false)
	if a.Msgs != 300 || a.Bytes != 3000 {
		t.Fatalf("aggregate %d msgs %d bytes", a.Msgs, a.Bytes)
	}
	if a.MsgsPerSec < 149 || a.MsgsPerSec > 151 {
		t.Fatalf("aggregate rate %.1f, want 150", a.MsgsPerSec)
	}
	if a.Rates.Min != a.Rates.Max || a.Rates.StdDev != 0 {
		t.Fatalf("rates spread %+v, want equal", a.Rates)
	}
	if a.Latency == nil || a.Latency.Count != 300 || a.Latency.Min < 999_000 || a.Latency.Max < 2_990_000 {
		t.Fatalf("merged latency %+v", a.Latency)
	}
	series := Series(recs, start)
	if len(series) != 3 { // [0,1s) [1s,2s) [2s,3s): the op at exactly 2s opens the third
		t.Fatalf("series has %d intervals: %+v", len(series), series)
	}
	var total int64
	for _, iv := range series {
		total += iv.Msgs
	}
	if total != 300 || series[0].Max < 2_990_000 {
		t.Fatalf("series total %d, first %+v", total, series[0])
	}
}

func clientsOf(recs []*Recorder) []result.Client {
	out := make([]result.Client, len(recs))
	for i, r := range recs {
		out[i] = r.Client(i+1, 100, false)
	}
	return out
}

func BenchmarkReceived(b *testing.B) {
	clk := NewClock()
	r := New(Options{Clock: clk, Latency: true})
	buf := make([]byte, 16)
	now := clk.Now()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stamp.Put(buf, 3, uint64(i+1), now)
		r.Received(now+int64(i), buf)
	}
}

func BenchmarkSent(b *testing.B) {
	clk := NewClock()
	r := New(Options{Clock: clk})
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		r.Sent(clk.Now(), 16)
	}
}

// BenchmarkSentLate is a fixed-rate sender's per-message recording: the send and its lateness
// against the schedule (0 allocs: the lateness histogram is made once, at the first message).
func BenchmarkSentLate(b *testing.B) {
	clk := NewClock()
	r := New(Options{Clock: clk})
	r.Late(0, 0)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		now := clk.Now()
		r.Sent(now, 16)
		r.Late(now-int64(i%5000), now)
	}
}

// TestSendLateness: a fixed-rate sender's lateness reaches the Result's client and aggregate.
func TestSendLateness(t *testing.T) {
	clk := NewClock()
	r := New(Options{Clock: clk})
	for i := range 100 {
		now := clk.Now()
		r.Sent(now, 16)
		r.Late(now-int64(i)*int64(time.Microsecond), now) // 0 .. 99us
	}
	c := r.Client(1, 100, false)
	if c.SendLateness == nil || c.SendLateness.Count != 100 || c.SendLateness.Max < 98*int64(time.Microsecond) {
		t.Fatalf("client send lateness %+v", c.SendLateness)
	}
	a := Aggregate([]*Recorder{r}, []result.Client{c}, 100, false)
	if a.SendLateness == nil || a.SendLateness.Count != 100 {
		t.Fatalf("aggregate send lateness %+v", a.SendLateness)
	}
	if n := New(Options{Clock: clk}).Client(1, 0, false); n.SendLateness != nil {
		t.Errorf("a sender without a schedule has send lateness %+v", n.SendLateness)
	}
}

// TestQueueGroupAggregate: two members of a queue group each hear one publisher; the group
// heard two, lost nothing of its total, and a member that got a single message (no rate)
// does not count as a slow client in the spread.
func TestQueueGroupAggregate(t *testing.T) {
	clk := NewClock()
	now := clk.Now()
	var recs []*Recorder
	for member, pub := range []uint32{11, 12} {
		r := New(Options{Clock: clk})
		buf := make([]byte, 16)
		n := uint64(1 + member*9) // member 0 gets one message, member 1 ten
		for seq := uint64(1); seq <= n; seq++ {
			stamp.Put(buf, pub, seq, now)
			r.Received(now+int64(seq)*1000, buf)
		}
		recs = append(recs, r)
	}
	clients := []result.Client{recs[0].Client(1, 5, true), recs[1].Client(2, 6, true)}
	a := Aggregate(recs, clients, 11, true)
	if a.Correctness.Publishers != 2 || a.Correctness.Lost != 0 || a.Correctness.Received != 11 {
		t.Fatalf("correctness %+v, want 2 publishers, 11 received, none lost", a.Correctness)
	}
	if a.Rates.Min == 0 || a.Rates.Min != a.Rates.Max {
		t.Fatalf("rates spread %+v counts the one-message client", a.Rates)
	}
}

func TestRecorderUniqueSkipsDuplicates(t *testing.T) {
	r := New(Options{Clock: NewClock()})
	buf := make([]byte, 16)
	for _, seq := range []uint64{1, 2, 2, 3, 1, 5, 4} {
		stamp.Put(buf, 9, seq, 1)
		r.Received(int64(seq), buf)
	}
	r.Received(10, []byte("unstamped"))
	if r.Progress() != 8 || r.Unique() != 6 {
		t.Fatalf("progress %d unique %d, want 8 and 6", r.Progress(), r.Unique())
	}
}

func TestSentTail(t *testing.T) {
	tests := []struct {
		name                    string
		c                       result.Correctness
		sent                    int64
		lost, notRecv, expected int64
	}{
		{"publisher stopped: nothing sent was missed", result.Correctness{Received: 600, Expected: 1000, NotReceived: 400}, 600, 0, 0, 600},
		{"sent and never arrived", result.Correctness{Received: 600, Expected: 1000, NotReceived: 400}, 1000, 400, 0, 1000},
		{"part sent", result.Correctness{Received: 600, Lost: 5, Expected: 1000, NotReceived: 395}, 800, 200, 0, 800},
		{"duplicates are not seen twice", result.Correctness{Received: 650, Duplicated: 50, Expected: 1000, NotReceived: 400}, 700, 100, 0, 700},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.c
			SentTail(&c, tt.sent)
			if c.Lost != tt.lost || c.NotReceived != tt.notRecv || c.Expected != tt.expected {
				t.Fatalf("lost %d not received %d expected %d, want %d %d %d", c.Lost, c.NotReceived, c.Expected, tt.lost, tt.notRecv, tt.expected)
			}
		})
	}
}

// TestSentNIsSentKTimes: recording a batch at one clock reading is recording each message of
// it at that reading, warm-up, intervals and gaps included.
func TestSentNIsSentKTimes(t *testing.T) {
	clk := NewClock()
	base := clk.Now()
	one, batch := New(Options{Clock: clk}), New(Options{Clock: clk})
	for _, r := range []*Recorder{one, batch} {
		r.Start(base, base+int64(10*time.Millisecond))
	}
	for i, at := range []int64{base, base + int64(20*time.Millisecond), base + int64(1500*time.Millisecond), base + int64(3*time.Second)} {
		k := 3 + i
		for range k {
			one.Sent(at, 16)
		}
		batch.SentN(at, k, 16)
	}
	a, b := one.Client(1, 0, false), batch.Client(1, 0, false)
	if a.Msgs != b.Msgs || a.Bytes != b.Bytes || a.Start != b.Start || a.End != b.End || one.Progress() != batch.Progress() || one.Unique() != batch.Unique() ||
		a.Gap == nil || b.Gap == nil || *a.Gap != *b.Gap || len(one.intervals) != len(batch.intervals) {
		t.Fatalf("one by one %+v, batched %+v", a, b)
	}
	for i := range one.intervals {
		if one.intervals[i] != batch.intervals[i] {
			t.Fatalf("interval %d: %+v vs %+v", i, one.intervals[i], batch.intervals[i])
		}
	}
}

// TestStartWhileReceiving: a receiver's subscription is live before the start barrier, so a
// publisher in another process may deliver while the runner calls Start. Run under -race (CI
// does) this failed while Start wrote plain fields the message path read.
func TestStartWhileReceiving(t *testing.T) {
	clk := NewClock()
	r := New(Options{Clock: clk, Latency: true, Interval: time.Millisecond})
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, stamp.Size)
		for seq := uint64(1); seq <= 2000; seq++ {
			stamp.Put(buf, 5, seq, clk.Now())
			r.Received(clk.Now(), buf)
		}
	}()
	epoch := clk.Now()
	r.Start(epoch, epoch+int64(time.Hour)) // a warm-up that outlasts the test
	<-done
	r.Finish()
	c := r.Client(1, 2000, false)
	if c.Msgs+r.warmup != 2000 || c.Correctness == nil || c.Correctness.Lost != 0 {
		t.Fatalf("measured %d + warm-up %d of 2000, correctness %+v", c.Msgs, r.warmup, c.Correctness)
	}
}

// A payload natsperf did not stamp can still decode as a stamp: 128 'x' bytes read as publisher
// 0x787878, sequence 0x7878787878, sent in the year 2245. A receiver on foreign traffic (text,
// JSON, `nats pub`) counted each one as a duplicate of one sequence and reported billions lost.
// A stamp whose send time is more than a day from the receiver's clock is no stamp.
func TestRecorderForeignPayloadIsUnstamped(t *testing.T) {
	clk := NewClock()
	now := clk.Now()
	r := New(Options{Clock: clk, Latency: true})
	text := bytes.Repeat([]byte("x"), 128)
	json := []byte(`{"order":17,"item":"natsperf","qty":3}`)
	for i := 0; i < 100; i++ {
		r.Received(now+int64(i), text)
		r.Received(now+int64(i), json)
	}
	buf := make([]byte, 16)
	stamp.Put(buf, 9, 1, now-int64(time.Millisecond))
	r.Received(now, buf)
	stamp.Put(buf, 9, 2, now+2*int64(24*time.Hour)) // two days ahead: not this run's stamp
	r.Received(now, buf)
	c := r.Client(1, 202, false)
	if c.Correctness == nil {
		t.Fatal("no correctness")
	}
	got := *c.Correctness
	if got.Unstamped != 201 || got.Publishers != 1 || got.Lost != 0 || got.Duplicated != 0 || got.Received != 1 {
		t.Fatalf("correctness %+v, want 201 unstamped, 1 publisher with 1 received, none lost or duplicated", got)
	}
	if c.Latency == nil || c.Latency.Max > int64(time.Second) {
		t.Fatalf("latency %+v, want the one stamped message's 1 ms", c.Latency)
	}
}
