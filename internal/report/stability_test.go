package report_test

import (
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/report/reporttest"
	"github.com/natsperf/natsperf/result"
)

func soak(t *testing.T, s reporttest.Soak) *report.Set {
	t.Helper()
	dir := t.TempDir()
	if err := reporttest.WriteSoak(dir, s); err != nil {
		t.Fatal(err)
	}
	set, err := report.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	return set
}

// shortSoak is a 2-minute run: 100 msgs/s per publisher (2), a 12 s stall at 60 s, a fault at
// 30 s, latency 1 ms rising to 4 ms.
var shortSoak = reporttest.Soak{Duration: 2 * time.Minute, Interval: time.Second, Rate: 100, StallAt: 60 * time.Second, StallFor: 12 * time.Second,
	FaultAt: 30 * time.Second, FaultTook: 2 * time.Second, Lat0: time.Millisecond, Lat1: 4 * time.Millisecond}

// TestStabilityKnown checks the view against what the fixture injected: the rate, the stall
// (where and how long), the fault window, the latency drift.
func TestStabilityKnown(t *testing.T) {
	st, err := report.Stabilities(soak(t, shortSoak))
	if err != nil || len(st) != 1 {
		t.Fatalf("%d views, %v", len(st), err)
	}
	v := st[0]
	if v.Width != 1 || len(v.Windows) != 120 {
		t.Errorf("%d windows of %gs, want 120 of 1s", len(v.Windows), v.Width)
	}
	if w := v.Windows[10]; w.PubRate != 200 || w.SubRate != 400 || (w.P50 < 1.15e6 || w.P50 > 1.5e6) {
		t.Errorf("window at 10s: pub %g sub %g msgs/s, P50 %g ns; want 200, 400, 1.2-1.45 ms", w.PubRate, w.SubRate, w.P50)
	}
	if len(v.Stalls) != 2 {
		t.Fatalf("stalls %+v, want the pub and sub stall at 60s", v.Stalls)
	}
	for _, s := range v.Stalls {
		if s.From != 60 || s.To != 72 {
			t.Errorf("%s stall %g-%g s, want 60-72", s.Role, s.From, s.To)
		}
	}
	if len(v.Faults) != 1 || v.Faults[0].From() != 30 {
		t.Errorf("faults %+v, want one at 30s", v.Faults)
	}
	var p50 *report.Drift
	for i, d := range v.Drift {
		if d.Metric == "sub P50" {
			p50 = &v.Drift[i]
		}
	}
	if p50 == nil || p50.Last/p50.First < 2.5 || p50.Last/p50.First > 4.5 {
		t.Errorf("drift %+v: want sub P50 from about 1.2 ms to about 3.8 ms", v.Drift)
	}
	var b strings.Builder
	if err := report.Markdown(&b, soak(t, shortSoak), "soak"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Stability: default, repetition 1", "| sub | 0:01:00 | 0:01:12 | 12 s |", "first 10% vs last 10%", "fault 30s:kill-leader"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("markdown lacks %q:\n%s", want, b.String())
		}
	}
}

// TestStability12h: a 12-hour series (10 s intervals) comes down to at most MaxWindows windows,
// with the drift taken over the first and last hour.
func TestStability12h(t *testing.T) {
	st, err := report.Stabilities(soak(t, twelveHours))
	if err != nil {
		t.Fatal(err)
	}
	v := st[0]
	if len(v.Windows) > report.MaxWindows || v.Width != 300 || v.Parts != "first hour vs last hour" {
		t.Errorf("%d windows of %gs, drift %q", len(v.Windows), v.Width, v.Parts)
	}
	if len(v.Stalls) != 2 || v.Stalls[0].From != 6*3600 || v.Stalls[0].To != 6*3600+120 {
		t.Errorf("stalls %+v, want pub and sub at 6:00:00 for 2 min", v.Stalls)
	}
}

var twelveHours = reporttest.Soak{Duration: 12 * time.Hour, Interval: 10 * time.Second, Rate: 50, StallAt: 6 * time.Hour, StallFor: 2 * time.Minute,
	FaultAt: 3 * time.Hour, FaultTook: 5 * time.Second, Lat0: time.Millisecond, Lat1: 2 * time.Millisecond}

// TestSeriesLastInterval: a run of 2.5 s with 1 s intervals sends 1000 msgs/s throughout; its
// last interval lasted 0.5 s, so its rate is 1000 msgs/s, not 500.
func TestSeriesLastInterval(t *testing.T) {
	start := reporttest.Epoch
	r := report.Entry{Result: &result.Result{Start: start, End: start.Add(2500 * time.Millisecond), Groups: []result.Group{{Name: "pub",
		Series: []result.Interval{{Offset: 0, Msgs: 1000}, {Offset: time.Second, Msgs: 1000}, {Offset: 2 * time.Second, Msgs: 500}}}}}}
	pts := r.Series()["pub"]
	if len(pts) != 3 || pts[0].Y != 1000 || pts[2].Y != 1000 {
		t.Fatalf("series %+v, want 1000 msgs/s in each of 3 intervals", pts)
	}
}

// TestSeriesGap: intervals in which nothing moved (no record) are drawn as zeros, not bridged.
func TestSeriesGap(t *testing.T) {
	start := reporttest.Epoch
	r := report.Entry{Result: &result.Result{Start: start, End: start.Add(5 * time.Second), Groups: []result.Group{{Name: "pub",
		Series: []result.Interval{{Offset: 0, Msgs: 1000}, {Offset: time.Second, Msgs: 1000}, {Offset: 4 * time.Second, Msgs: 1000}}}}}}
	pts := r.Series()["pub"]
	if len(pts) != 5 || pts[2].Y != 0 || pts[3].Y != 0 || pts[2].X != 2 || pts[4].Y != 1000 {
		t.Fatalf("series %+v, want zeros at 2 s and 3 s", pts)
	}
}
