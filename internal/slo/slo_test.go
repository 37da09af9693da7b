package slo

import (
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/result"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in     string
		metric string
		p      float64
		op     string
		limit  float64
	}{
		{"p99<5ms", "p", 99, "<", float64(5 * time.Millisecond)},
		{"p99.9 <= 20ms", "p", 99.9, "<=", float64(20 * time.Millisecond)},
		{"P50<100µs", "p", 50, "<", float64(100 * time.Microsecond)},
		{"loss=0", "loss", 0, "=", 0},
		{"rate>=0.99", "rate", 0, ">=", 0.99},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.in, err)
		}
		if got.Metric != tt.metric || got.P != tt.p || got.Op != tt.op || got.Limit != tt.limit {
			t.Errorf("Parse(%q) = %+v", tt.in, got)
		}
	}
	for _, bad := range []string{"", "p99", "p99<", "p99<5", "p0<1ms", "p101<1ms", "q99<1ms", "loss=-1", "rate>=x", "<5ms", "p99<-1ms", "loss=1.5"} {
		if _, err := Parse(bad); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("Parse(%q) = %v, want a one-line error", bad, err)
		}
	}
}

func FuzzParse(f *testing.F) {
	for _, s := range []string{"p99<5ms", "loss=0", "rate>=0.99", "p99.9<=1s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if th, err := Parse(s); err == nil && th.Metric == "" {
			t.Fatalf("Parse(%q) accepted without a metric", s)
		}
	})
}

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
	ts, err := ParseAll([]string{"p99.9<2ms", "p99.9<999us", "loss=0", "loss<=3", "rate>=0.95", "rate>=0.9"})
	if err != nil {
		t.Fatal(err)
	}
	got := Judge(res, ts)
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
