package slo

import (
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// TestJudge: the worst group's percentile (read from the histogram when not in the table),
// loss with timeouts, and the lowest achieved-to-offered rate.
func TestJudge(t *testing.T) {
	h := histo.New()
	for i := 1; i <= 1000; i++ {
		histo.Record(h, int64(i)*int64(time.Microsecond))
	}
	lat := histo.Summary(h, true)
	lat.Percentiles = nil // only the histogram: P99.9 must be read from it
	res := &result.Result{Groups: []result.Group{
		{Name: "pub", TargetRate: 1000, Aggregate: result.Aggregate{MsgsPerSec: 900}},
		{Name: "sub", Aggregate: result.Aggregate{Latency: lat, Correctness: &result.Correctness{Lost: 2}, Events: result.Events{Timeouts: 1}}},
	}}
	ts, err := spec.ParseThresholds("p99.9<2ms", "p99.9<999us", "loss=0", "loss<=3", "rate>=0.95", "rate>=0.9")
	if err != nil {
		t.Fatal(err)
	}
	got := Judge(res, ts)
	for i, v := range got { // the verdict carries the threshold as read
		if Of(v) != ts[i] {
			t.Errorf("Of(%+v) = %+v, want %+v", v, Of(v), ts[i])
		}
	}
	old := got[0]
	old.Metric, old.P, old.Op = "", 0, "" // a verdict saved before they were recorded
	if Of(old) != ts[0] {
		t.Errorf("Of(old verdict) = %+v, want %+v", Of(old), ts[0])
	}
	want := []bool{true, false, false, true, false, true}
	for i, v := range got {
		if v.Pass != want[i] {
			t.Errorf("%s: value %v, pass %v, want %v", v.SLO, v.Value, v.Pass, want[i])
		}
	}
	if v := got[2].Value; v != 3 {
		t.Errorf("loss %v, want 2 lost + 1 timeout", v)
	}
	if v := got[4].Value; v != 0.9 {
		t.Errorf("rate %v, want 0.9", v)
	}
	// Nothing to judge fails, and says why.
	none := Judge(&result.Result{}, ts[:1])
	if none[0].Pass || none[0].Missing == "" {
		t.Errorf("no latency: %+v", none[0])
	}
}
