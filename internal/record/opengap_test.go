package record

import (
	"testing"
	"time"
)

// TestOpenGap: a publisher whose acks stopped (failures after its last success) and never came
// back has its time without success counted up to its end, marked open (not recovered), even
// when the gaps between its acks were short; one that succeeded again after its failures, or
// simply finished, has no open stretch.
func TestOpenGap(t *testing.T) {
	s := int64(time.Second)
	run := func(ops []int64, fails []int64, stop int64) (*Recorder, int64) {
		r := New(Options{Clock: NewClock()})
		epoch := int64(1_000_000 * s)
		r.Start(epoch, 0)
		for _, at := range ops {
			r.Op(epoch+at, 16, 1000)
		}
		for _, at := range fails {
			r.Failed(epoch + at)
		}
		r.Stopped(epoch + stop)
		return r, epoch
	}
	// Acks every 10ms up to 4s, failures from 4.5s, the client ends at 10s.
	var ops []int64
	for at := int64(0); at <= 4*s; at += s / 100 {
		ops = append(ops, at)
	}
	r, _ := run(ops, []int64{4*s + s/2, 9 * s}, 10*s)
	c := r.Client(1, 0, false)
	if c.Gap == nil || !c.Gap.Open || c.Gap.Duration != time.Duration(6*s) || c.Gap.From != 4*time.Second || c.Gap.To != 10*time.Second {
		t.Fatalf("gap %+v: want 6s open, from 4s to 10s", c.Gap)
	}
	if c.NotRecovered == nil || *c.NotRecovered != *c.Gap {
		t.Fatalf("not recovered %+v, want the open gap", c.NotRecovered)
	}
	// A success after the failures: recovered, the longest gap between two acks only.
	r, _ = run(append(ops, 7*s), []int64{4*s + s/2}, 10*s)
	if c := r.Client(1, 0, false); c.NotRecovered != nil || c.Gap == nil || c.Gap.Open || c.Gap.Duration != time.Duration(3*s) {
		t.Fatalf("gap %+v, not recovered %+v: want 3s, closed", c.Gap, c.NotRecovered)
	}
	// No failure: a publisher that finished early is not an outage.
	r, _ = run(ops, nil, 10*s)
	if c := r.Client(1, 0, false); c.NotRecovered != nil || c.Gap.Open {
		t.Fatalf("gap %+v, not recovered %+v: want none open", c.Gap, c.NotRecovered)
	}
	// Nothing ever acknowledged: open from the run's start.
	r, _ = run(nil, []int64{s}, 5*s)
	if c := r.Client(1, 0, false); c.NotRecovered == nil || c.NotRecovered.From != 0 || c.NotRecovered.Duration != 5*time.Second {
		t.Fatalf("not recovered %+v: want 5s from the start", c.NotRecovered)
	}
}
