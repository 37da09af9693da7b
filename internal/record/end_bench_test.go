package record

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/cpuuse"
	"github.com/natsperf/natsperf/result"
)

// cpuMs is the process's CPU time (user+sys, getrusage) from s to now, in milliseconds: on a
// shared machine far steadier than the wall-clock ns/op.
func cpuMs(s cpuuse.Sample) float64 { return cpuuse.Since(s, 0).Seconds * 1e3 }

// BenchmarkIntervalClose is what one client pays per interval of the series: 50 latencies
// recorded, then the interval closed (its latencies merged into the run's, and summed into
// the group's or encoded). docs/performance.md has the figures before and after.
func BenchmarkIntervalClose(b *testing.B) {
	clk := NewClock()
	start := clk.Start()
	r := New(Options{Clock: clk, Latency: true, Corrected: true, Group: NewGroup()})
	r.Start(start, 0)
	rng := rand.New(rand.NewPCG(1, 2))
	b.ReportAllocs()
	cpu := cpuuse.Now()
	n := 0
	for i := 0; b.Loop(); i++ {
		at := start + int64(i)*int64(time.Second)
		for j := range 50 {
			v := int64(rng.ExpFloat64() * 300e3)
			r.OpCorrected(at+int64(j), 16, v+50e3, v)
		}
		n++
	}
	b.ReportMetric(cpuMs(cpu)/float64(n), "cpu-ms/op")
}

// BenchmarkGroupEnd is what the end of a run costs a group: each client's figures (Client),
// the group's (Aggregate) and its series (Series), after 5 one-second intervals of 200
// operations a client: 50 requesters (a latency from the intended and one from the actual
// send each, and a send lateness) or 1,000 paced publishers (a send lateness each).
func BenchmarkGroupEnd(b *testing.B) {
	for _, tt := range []struct {
		name    string
		clients int
		latency bool
	}{{"requesters-50", 50, true}, {"publishers-1000", 1000, false}} {
		b.Run(tt.name, func(b *testing.B) {
			clk := NewClock()
			start := clk.Start()
			rng := rand.New(rand.NewPCG(1, 2))
			var spent float64
			n := 0
			for b.Loop() {
				b.StopTimer()
				g := NewGroup()
				recs := make([]*Recorder, tt.clients)
				for i := range recs {
					r := New(Options{Clock: clk, Latency: tt.latency, Corrected: tt.latency, Group: g})
					r.Start(start, 0)
					for k := range 5 * 200 {
						at := start + int64(k)*int64(5*time.Millisecond)
						v := int64(rng.ExpFloat64() * 300e3)
						r.Late(at-int64(rng.ExpFloat64()*200e3), at)
						if tt.latency {
							r.OpCorrected(at, 16, v+50e3, v)
						} else {
							r.Sent(at, 16)
						}
					}
					recs[i] = r
				}
				b.StartTimer()
				cpu := cpuuse.Now()
				out := make([]result.Client, tt.clients)
				for i, r := range recs {
					out[i] = r.Client(i+1, 0, false)
				}
				Aggregate(recs, out, 0, false)
				if s := Series(recs, start); len(s) != 5 {
					b.Fatalf("%d intervals", len(s))
				}
				spent += cpuMs(cpu)
				n++
			}
			b.ReportMetric(spent/float64(n), "cpu-ms/op")
		})
	}
}
