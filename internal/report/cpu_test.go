package report

import (
	"strings"
	"testing"

	"github.com/natsperf/natsperf/result"
)

func TestCPUWarnsWhenSaturated(t *testing.T) {
	for _, tt := range []struct {
		share   float64
		summary bool
		want    []string
		not     []string
	}{
		{0.95, false, []string{"Warning: natsperf used 95% of its 2 cores"}, []string{"CPU:"}},
		{0.5, false, nil, []string{"Warning", "CPU:"}},
		{0.5, true, []string{"CPU: 1.00s (user 0.75s, sys 0.25s) in 1.00s · 50% of 2 cores · 1,000 msgs per CPU-second"}, []string{"Warning"}},
	} {
		var b strings.Builder
		c := &result.CPU{UserSeconds: 0.75, SysSeconds: 0.25, Seconds: 1, WallSeconds: 1, Cores: 2, CoreShare: tt.share,
			Msgs: 1000, MsgsPerCPUSecond: 1000, Saturated: tt.share > 0.9}
		if err := CPU(&b, &result.Result{CPU: c}, tt.summary); err != nil {
			t.Fatal(err)
		}
		for _, w := range tt.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("share %.2f: %q lacks %q", tt.share, b.String(), w)
			}
		}
		for _, n := range tt.not {
			if strings.Contains(b.String(), n) {
				t.Errorf("share %.2f: %q has %q", tt.share, b.String(), n)
			}
		}
	}
}

// TestCPUOfARustRun: a --client rust run's CPU is natsperf-rust's process, never the
// embedded server natsperf started for it (which stays in natsperf's process).
func TestCPUOfARustRun(t *testing.T) {
	c := &result.CPU{Seconds: 1.9, WallSeconds: 1, Cores: 2, CoreShare: 0.95, Saturated: true}
	r := &result.Result{CPU: c, Servers: []result.Server{{Embedded: true}},
		Distributed: &result.Distributed{Agents: []result.Agent{{Name: "rust-1", Client: "rust"}}}}
	var b strings.Builder
	if err := CPU(&b, r, true); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); strings.Contains(got, "embedded") || !strings.Contains(got, "Warning: natsperf-rust used 95% of its 2 cores:") {
		t.Errorf("%q: want natsperf-rust's CPU without the embedded server's", got)
	}
}
