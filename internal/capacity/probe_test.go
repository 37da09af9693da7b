package capacity

import (
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/slo"
)

func latencyOf(ns ...time.Duration) *result.Latency {
	h := histo.New()
	for _, d := range ns {
		histo.Record(h, int64(d))
	}
	return histo.Summary(h, true)
}

// TestFiguresGenerator: a latency threshold that fails from the intended send times but holds
// from the actual ones was the senders' lateness: the probe is generator-bound. One that fails
// both ways is the server's; so is a request group's shortfall (it waits for replies), while a
// core publisher's shortfall is natsperf's own.
func TestFiguresGenerator(t *testing.T) {
	judged := func(corrected, uncorrected time.Duration, achieved float64) *result.Result {
		l := latencyOf(corrected)
		l.Uncorrected = latencyOf(uncorrected)
		res := &result.Result{Stop: result.Stop{Reason: result.StopCompleted}, Groups: []result.Group{
			{Name: "pub", TargetRate: 1000, Aggregate: result.Aggregate{MsgsPerSec: achieved, Latency: l}},
		}}
		ts, _ := slo.ParseAll([]string{"p99<10ms"})
		res.SLO = slo.Judge(res, ts)
		return res
	}
	tests := []struct {
		name     string
		res      *result.Result
		openLoop bool
		pass     bool
		gen      bool
	}{
		{"holds", judged(time.Millisecond, time.Millisecond, 1000), false, true, false},
		{"late senders", judged(50*time.Millisecond, time.Millisecond, 1000), false, false, true},
		{"the server's latency", judged(50*time.Millisecond, 40*time.Millisecond, 1000), false, false, false},
		{"a requester's shortfall", judged(50*time.Millisecond, 40*time.Millisecond, 800), false, false, false},
		{"a publisher's shortfall", judged(50*time.Millisecond, 40*time.Millisecond, 800), true, false, true},
	}
	for _, tt := range tests {
		p := Figures(tt.res, 1000, tt.openLoop)
		if p.Pass != tt.pass || p.GeneratorBound != tt.gen {
			t.Errorf("%s: pass %v generator %v, want %v %v (%s)", tt.name, p.Pass, p.GeneratorBound, tt.pass, tt.gen, p.Note)
		}
	}
}
