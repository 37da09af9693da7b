package telemetry

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/cpuuse"
	"github.com/natsperf/natsperf/internal/embedded"
)

func cluster(tb testing.TB, nodes int) *embedded.Cluster {
	c, err := embedded.Start(context.Background(), embedded.Options{Nodes: nodes})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(c.Shutdown)
	return c
}

// BenchmarkEmbeddedRead is one reading of a 3-node embedded cluster (varz and jsz of each
// node, in-process): what a sample costs.
func BenchmarkEmbeddedRead(b *testing.B) {
	src := Embedded{Cluster: cluster(b, 3)}
	b.ReportAllocs()
	for b.Loop() {
		if rs, _ := src.Read(context.Background()); len(rs) != 3 {
			b.Fatalf("%d readings", len(rs))
		}
	}
}

// TestSamplerCPU measures what the sampler costs in CPU time (getrusage, which a busy
// shared machine does not inflate the way it does wall-clock rates): the process's CPU
// seconds per wall second with a Sampler running (250 ms interval, stall watch on) against
// without, alternated. NATSPERF_COST=1 runs it (docs/performance.md).
func TestSamplerCPU(t *testing.T) {
	if os.Getenv("NATSPERF_COST") == "" {
		t.Skip("NATSPERF_COST=1 measures the sampler's CPU cost")
	}
	c := cluster(t, 3)
	const wall = 3 * time.Second
	measure := func(on bool) float64 {
		ctx, cancel := context.WithTimeout(context.Background(), wall)
		defer cancel()
		s := cpuuse.Now()
		if on {
			(&Sampler{Source: Embedded{Cluster: c}, Interval: 250 * time.Millisecond}).Run(ctx, time.Now())
		} else {
			<-ctx.Done()
		}
		u := cpuuse.Since(s, 0)
		return u.Seconds / u.WallSeconds
	}
	var on, off float64
	const rounds = 4
	for range rounds {
		off += measure(false)
		on += measure(true)
	}
	t.Logf("CPU seconds per second: idle 3-node cluster %.4f, with the sampler %.4f: the sampler costs %.4f of a core (%.2f%%)",
		off/rounds, on/rounds, (on-off)/rounds, 100*(on-off)/rounds)
}
