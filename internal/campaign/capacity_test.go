package campaign

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/spec"
)

// TestSearchPrecision: a search paces at a tenth of its tightest latency threshold, within
// 250us and 500us, so its own sends' lateness stays a small part of what it judges; without
// a threshold under 20ms it leaves the precision to the run, which chooses it from the rate.
func TestSearchPrecision(t *testing.T) {
	for _, tt := range []struct {
		slos []string
		want time.Duration
	}{
		{[]string{"p99<5ms"}, 500 * time.Microsecond},
		{[]string{"p99<100ms", "p99.9<=4ms"}, 400 * time.Microsecond},
		{[]string{"p99<1ms"}, 250 * time.Microsecond},
		{[]string{"p99<10ms"}, 500 * time.Microsecond},
		{[]string{"p99<50ms"}, 0},
		{[]string{"p99<20ms"}, 0},
		{[]string{"loss=0", "rate>=0.99"}, 0},
		{[]string{"p99>1ms"}, 0},
	} {
		if got := SearchPrecision(spec.MustThresholds(tt.slos...)); got != tt.want {
			t.Errorf("%v: precision %v, want %v", tt.slos, got, tt.want)
		}
	}
}

// TestProbeSpecPrecision: a probe's Spec carries the search's precision unless the probed
// command line gave one.
func TestProbeSpecPrecision(t *testing.T) {
	base := &spec.Spec{Version: spec.Version, SLO: spec.MustThresholds("p99<1ms"), Workloads: []spec.Workload{{Config: &spec.Pub{Subject: "x"}}}}
	if got := (Capacity{Probe: time.Second}).ProbeSpec(base, 100).PacePrecision.D(); got != 250*time.Microsecond {
		t.Errorf("a probe of a p99<1ms search paces at %v, want 250us", got)
	}
	base.SLO = spec.MustThresholds("p99<20ms")
	if got := (Capacity{Probe: time.Second}).ProbeSpec(base, 100).PacePrecision; got != 0 {
		t.Errorf("a probe of a p99<20ms search paces at %v, want the precision chosen from the rate (0)", got.D())
	}
	base.PacePrecision = spec.Duration(3 * time.Millisecond)
	if got := (Capacity{Probe: time.Second}).ProbeSpec(base, 100).PacePrecision.D(); got != 3*time.Millisecond {
		t.Errorf("with --pace-precision 3ms a probe paces at %v", got)
	}
}

// TestDrainAfter: a backlog that would take longer than maxDrain to drain is noted on the
// probe (and the pause is cut short by the context).
func TestDrainAfter(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p := capacity.Probe{Loss: 1000, Achieved: 10, Drained: true}
	drainAfter(ctx, &p, time.Second)
	if p.Drained || !strings.Contains(p.Note, "could not drain: 1000 messages") {
		t.Errorf("100s of backlog: drained %v, note %q", p.Drained, p.Note)
	}
	q := capacity.Probe{Loss: 10, Achieved: 1000, Drained: true}
	drainAfter(ctx, &q, time.Second)
	if !q.Drained || q.Note != "" {
		t.Errorf("10ms of backlog: drained %v, note %q", q.Drained, q.Note)
	}
}

// TestCellCapacity: a scenario's capacity: block sets what it gives over the defaults, and
// --max never below --min.
func TestCellCapacity(t *testing.T) {
	c := cellCapacity(&scenario.Capacity{Min: 5e6, Precision: 0.1, Repeats: 1})
	want := DefaultCapacity()
	want.Min, want.Max, want.BisectPrecision, want.Repeats = 5e6, 5e6, 0.1, 1
	if c != want {
		t.Errorf("got %+v, want %+v", c, want)
	}
	for _, key := range []string{"bisect-precision", "precision"} { // the old name still reads
		file := filepath.Join(t.TempDir(), "s.yaml")
		yaml := "slo: ['p99<5ms']\ncapacity: {" + key + ": 0.2}\nworkloads:\n  - command: pub x\n"
		if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
			t.Fatal(err)
		}
		sc, err := scenario.Load(file, scenario.Options{})
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		if c := cellCapacity(sc.Cells[0].File.Capacity); c.BisectPrecision != 0.2 {
			t.Errorf("%s: 0.2 gives %v", key, c.BisectPrecision)
		}
	}
}
