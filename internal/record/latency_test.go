package record

import (
	"bytes"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/result"
)

func TestReceivedExtendedStamp(t *testing.T) {
	tests := []struct {
		name      string
		size      int
		extended  bool
		wantUncor bool
	}{
		{"extended stamp gives both latencies", 24, true, true},
		{"plain stamp gives only the corrected one", 64, false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Options{Clock: NewClock(), Latency: true})
			buf := make([]byte, tt.size)
			const intended, actual, arrive = 1_000_000, 1_400_000, 1_500_000 // 500us late, 100us in flight
			for seq := uint64(1); seq <= 10; seq++ {
				if tt.extended {
					stamp.PutExt(buf, 3, seq, intended, actual)
				} else {
					stamp.Put(buf, 3, seq, intended)
				}
				r.Received(arrive, buf)
			}
			c := r.Client(1, 10, false)
			if c.Latency == nil || c.Latency.Count != 10 || c.Latency.Min < 499_000 || c.Latency.Max > 501_000 {
				t.Fatalf("corrected latency %+v, want 10 x 500us", c.Latency)
			}
			u := c.Latency.Uncorrected
			if (u != nil) != tt.wantUncor {
				t.Fatalf("uncorrected = %+v, want present=%v", u, tt.wantUncor)
			}
			if u != nil && (u.Count != 10 || u.Min < 99_900 || u.Max > 100_100) {
				t.Fatalf("uncorrected latency %+v, want 10 x 100us", u)
			}
			if c.Correctness.Lost != 0 || c.Correctness.Publishers != 1 {
				t.Fatalf("correctness %+v", c.Correctness)
			}
		})
	}
}

// TestMergeExactAndRoundTrip: the merged histogram of several clients equals one histogram fed
// every value, and the JSON Result keeps every percentile.
func TestMergeExactAndRoundTrip(t *testing.T) {
	clk := NewClock()
	rng := rand.New(rand.NewPCG(1, 2))
	all := histo.New()
	var recs []*Recorder
	for i := 0; i < 4; i++ {
		r := New(Options{Clock: clk, Latency: true, Corrected: true})
		for j := 0; j < 5000; j++ {
			lat := int64(rng.ExpFloat64()*float64(200*time.Microsecond)) + int64(i)*int64(time.Millisecond)
			r.OpCorrected(clk.Start()+int64(j), 16, lat, lat/2)
			histo.Record(all, lat)
		}
		r.Finish()
		recs = append(recs, r)
	}
	agg := Aggregate(recs, clientsOf(recs), 0, false)
	want := histo.Summary(all, false)
	if agg.Latency.Count != want.Count || agg.Latency.Min != want.Min || agg.Latency.Max != want.Max {
		t.Fatalf("merged count/min/max %d/%d/%d, want %d/%d/%d", agg.Latency.Count, agg.Latency.Min, agg.Latency.Max, want.Count, want.Min, want.Max)
	}
	for i, p := range want.Percentiles {
		if got := agg.Latency.Percentiles[i]; got != p {
			t.Errorf("merged P%v = %d, one histogram says %d", p.P, got.Ns, p.Ns)
		}
	}
	if agg.Latency.Uncorrected == nil || agg.Latency.Uncorrected.Count != want.Count {
		t.Fatalf("merged uncorrected %+v", agg.Latency.Uncorrected)
	}

	var buf bytes.Buffer
	res := &result.Result{Schema: result.Schema, Groups: []result.Group{{Name: "request", Aggregate: agg}}}
	if err := result.Write(&buf, res); err != nil {
		t.Fatal(err)
	}
	back, err := result.Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	l := back.Groups[0].Aggregate.Latency
	h, err := histo.Decode(l.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	again := histo.Summary(h, false)
	for i, p := range want.Percentiles {
		if l.Percentiles[i] != p || again.Percentiles[i] != p {
			t.Errorf("P%v: table %d, decoded histogram %d, want %d", p.P, l.Percentiles[i].Ns, again.Percentiles[i].Ns, p.Ns)
		}
	}
	if again.Count != want.Count || again.Max != want.Max || again.Mean != want.Mean {
		t.Errorf("decoded count/max/mean %d/%d/%v, want %d/%d/%v", again.Count, again.Max, again.Mean, want.Count, want.Max, want.Mean)
	}
}

// TestSeriesLatencyAndBound: each interval carries its own percentiles, and a long run keeps a
// small, fixed cost per interval.
func TestSeriesLatencyAndBound(t *testing.T) {
	clk := NewClock()
	start := clk.Start()
	r := New(Options{Clock: clk, Latency: true, Interval: time.Second})
	r.Start(start, 0)
	const seconds = 600
	for s := int64(0); s < seconds; s++ {
		lat := (s%3 + 1) * int64(time.Millisecond) // 1, 2, 3 ms, repeating
		for j := int64(0); j < 100; j++ {
			r.Op(start+s*int64(time.Second)+j*int64(time.Millisecond), 16, lat)
		}
	}
	r.Finish()
	series := Series([]*Recorder{r}, start)
	if len(series) != seconds {
		t.Fatalf("%d intervals, want %d", len(series), seconds)
	}
	var encoded int
	for _, s := range r.intervals {
		encoded += len(s.Lat)
	}
	if per := encoded / seconds; per > 200 {
		t.Errorf("an interval's histogram takes %d bytes encoded, want a few dozen", per)
	}
	for i, iv := range series[:6] {
		want := int64(i%3+1) * int64(time.Millisecond)
		if iv.Msgs != 100 || iv.P50 < want*999/1000 || iv.P50 > want*1001/1000 || iv.P99 > want*1001/1000 {
			t.Errorf("interval %d: %+v, want 100 msgs at %v", i, iv, time.Duration(want))
		}
		if iv.Offset != time.Duration(i)*time.Second {
			t.Errorf("interval %d offset %v", i, iv.Offset)
		}
	}
}

func BenchmarkReceivedExtended(b *testing.B) {
	clk := NewClock()
	r := New(Options{Clock: clk, Latency: true})
	buf := make([]byte, stamp.ExtSize)
	now := clk.Now()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stamp.PutExt(buf, 3, uint64(i+1), now, now+1000)
		r.Received(now+int64(i), buf)
	}
}

// BenchmarkRecordOnly is the recording alone: a stamped message's Received, the payload
// stamped once up front (sequence tracking sees a duplicate, which is as cheap as a new one).
func BenchmarkRecordOnly(b *testing.B) {
	clk := NewClock()
	r := New(Options{Clock: clk, Latency: true})
	buf := make([]byte, stamp.Size)
	now := clk.Now()
	stamp.Put(buf, 3, 1, now)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r.Received(now+int64(i), buf)
	}
}

// TestReceivedSince: a reader of stored messages counts what an earlier run stored for
// throughput only, and what this run published for latency and delivery too.
func TestReceivedSince(t *testing.T) {
	clk := NewClock()
	r := New(Options{Clock: clk, Latency: true})
	start := clk.Now()
	buf := make([]byte, 32)
	stamp.Put(buf, 4, 1, start-int64(time.Hour)) // stored an hour ago
	r.ReceivedSince(start+10, buf, start)
	stamp.Put(buf, 5, 1, start+100) // published during the run
	r.ReceivedSince(start+1100, buf, start)
	r.ReceivedSince(start+1200, []byte("foreign"), start)
	c := r.Client(1, 0, false)
	if c.Msgs != 3 || c.Latency == nil || c.Latency.Count != 1 || c.Latency.Max > 1010 {
		t.Fatalf("msgs %d, latency %+v: want 3 counted, one latency of 1us", c.Msgs, c.Latency)
	}
	if c.Correctness == nil || c.Correctness.Publishers != 1 || c.Correctness.Unstamped != 0 {
		t.Fatalf("correctness %+v: want only this run's publisher", c.Correctness)
	}
}

// A JetStream message's latency split at its stored time costs no allocation once the
// split's histograms exist, and the two parts add up to the end-to-end latency.
func TestReceivedStoredSplitsWithoutAllocating(t *testing.T) {
	clk := NewClock()
	r := New(Options{Clock: clk, Latency: true})
	buf := make([]byte, stamp.Size)
	now := clk.Now()
	stamp.Put(buf, 3, 1, now-3_000_000)
	r.ReceivedStored(now, len(buf), buf, 0, now-1_000_000) // stored 2 ms after the send, delivered 1 ms later
	if n := testing.AllocsPerRun(1000, func() { r.ReceivedStored(now, len(buf), buf, 0, now-1_000_000) }); n != 0 {
		t.Fatalf("%v allocations per message", n)
	}
	b := Breakdown(r)
	if b == nil || b.PublishToStored.Max > 2_002_000 || b.PublishToStored.Min < 1_998_000 || b.StoredToDelivered.Max > 1_001_000 || b.StoredToDelivered.Min < 999_000 {
		t.Fatalf("breakdown %+v %+v", b.PublishToStored, b.StoredToDelivered)
	}
}
