package report

import (
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// TestCapacityOutputs: the capacity line of each verdict, the probe table, and the HTML curve
// with both charts, the SLO line and the knee.
func TestCapacityOutputs(t *testing.T) {
	o := &capacity.Outcome{Command: "service request svc", SLO: spec.MustThresholds("p99<5ms"), Min: 1000, Max: 1e5, Repeats: 3,
		Verdict: capacity.Found, Capacity: 8400, Low: 8400, High: 8900, PassRepeats: 3, FailRepeats: 3}
	for i, r := range []float64{1000, 2000, 4000, 8000, 16000, 12000, 10000, 8900, 8400} {
		p99 := int64(1e6)
		if r > 8400 {
			p99 = 9e6
		}
		o.Probes = append(o.Probes, capacity.Probe{N: i + 1, Offered: r, Achieved: r, P50: 2e5, P99: p99, P999: 2 * p99, Pass: r <= 8400})
	}
	if got, want := CapacityLine(o), "Capacity: 8,400 msgs/s at p99<5ms (between 8,400 and 8,900; 3 repeats agree)"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	var text strings.Builder
	if err := Capacity(&text, o); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(text.String(), "\n"); n < 12 || !strings.Contains(text.String(), "16,000") {
		t.Errorf("table:\n%s", text.String())
	}
	var page strings.Builder
	if err := CapacityHTML(&page, o); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"SLO p99&lt;5ms", "knee", "Latency against offered rate", "Achieved against offered rate"} {
		if !strings.Contains(page.String(), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if n := strings.Count(page.String(), `<svg class="chart`); n != 2 {
		t.Errorf("%d charts, want 2", n)
	}
	for verdict, want := range map[string]string{
		capacity.AboveMax:       "at least",
		capacity.BelowMin:       "none found",
		capacity.GeneratorBound: "the load generator was the bottleneck",
	} {
		o.Verdict = verdict
		if got := CapacityLine(o); !strings.Contains(got, want) {
			t.Errorf("%s: %q lacks %q", verdict, got, want)
		}
	}
}

// TestRunsLabelMarksSLO: a cell whose runs held every threshold is marked passing; one run
// that missed one marks the cell failing; a cell without thresholds is as before.
func TestRunsLabelMarksSLO(t *testing.T) {
	run := func(pass ...bool) Entry {
		res := &result.Result{Stop: result.Stop{Reason: result.StopCompleted}}
		for _, p := range pass {
			res.SLO = append(res.SLO, result.Verdict{SLO: "p99<5ms", Pass: p})
		}
		return Entry{Result: res}
	}
	for _, tt := range []struct {
		runs []Entry
		want string
	}{
		{[]Entry{run(true), run(true, true)}, "2, SLO pass"},
		{[]Entry{run(true), run(true, false), run(false)}, "3, SLO FAIL in 2 of 3"},
		{[]Entry{run(), run()}, "2"},
	} {
		if got := (&Cell{Runs: tt.runs}).RunsLabel(); got != tt.want {
			t.Errorf("RunsLabel = %q, want %q", got, tt.want)
		}
	}
}
