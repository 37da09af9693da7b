package record

import (
	"slices"
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

// TestGapsKeepsEveryLongStretch: a client keeps each stretch without success of GapMin or
// more, in time order (not only its longest), the MaxGaps longest when there were more, an
// open one at its end among them; shorter ones are not kept, and a message allocates nothing.
func TestGapsKeepsEveryLongStretch(t *testing.T) {
	ms := int64(time.Millisecond)
	epoch := int64(1_000_000 * time.Second)
	r := New(Options{Clock: NewClock()})
	r.Start(epoch, 0)
	at := int64(0)
	op := func(step int64) { at += step; r.Op(epoch+at, 16, 1000) }
	for range 100 {
		op(10 * ms)
	}
	op(500 * ms) // 0.5 s from 1.0 s
	op(10 * ms)
	op(2000 * ms) // 2 s from 1.51 s: the longest
	op(50 * ms)   // too short to keep
	op(300 * ms)  // 0.3 s from 3.56 s
	c := r.Client(1, 0, false)
	want := []result.Gap{
		{Duration: 500 * time.Millisecond, From: 1000 * time.Millisecond, To: 1500 * time.Millisecond},
		{Duration: 2 * time.Second, From: 1510 * time.Millisecond, To: 3510 * time.Millisecond},
		{Duration: 300 * time.Millisecond, From: 3560 * time.Millisecond, To: 3860 * time.Millisecond},
	}
	if len(c.Gaps) != len(want) {
		t.Fatalf("gaps %+v, want %+v", c.Gaps, want)
	}
	for i := range want {
		if c.Gaps[i] != want[i] {
			t.Fatalf("gap %d %+v, want %+v", i, c.Gaps[i], want[i])
		}
	}
	if c.Gap == nil || *c.Gap != want[1] {
		t.Fatalf("longest %+v, want %+v", c.Gap, want[1])
	}
	// More stretches than kept: the longest stay, then a failure and an open end.
	all := []int64{500, 2000, 300} // ms
	for i := range 2 * result.MaxGaps {
		op(int64(200+10*i) * ms)
		all = append(all, int64(200+10*i))
	}
	all = append(all, 5000) // the open one
	slices.Sort(all)
	least := time.Duration(all[len(all)-result.MaxGaps]) * time.Millisecond
	r.Failed(epoch + at + ms)
	r.Stopped(epoch + at + 5000*ms)
	c = r.Client(1, 0, false)
	if len(c.Gaps) != result.MaxGaps || !c.Gaps[len(c.Gaps)-1].Open || c.Gaps[len(c.Gaps)-1].Duration != 5*time.Second {
		t.Fatalf("%d gaps, the last %+v: want %d, the open 5 s one last", len(c.Gaps), c.Gaps[len(c.Gaps)-1], result.MaxGaps)
	}
	for i, g := range c.Gaps {
		if g.Duration < least {
			t.Fatalf("gap %d %+v kept over a longer one (the %d longest are %v or more)", i, g, result.MaxGaps, least)
		}
		if i > 0 && g.From < c.Gaps[i-1].From {
			t.Fatalf("gaps out of order: %+v", c.Gaps)
		}
	}
	now := epoch + at + 6000*ms
	if n := testing.AllocsPerRun(1000, func() { now += 150 * ms; r.Op(now, 16, 1000) }); n != 0 {
		t.Fatalf("%v allocations per message with stretches to keep", n)
	}
}

// TestGapMinOption: a fault run's recorder (Options.GapMin = result.FaultGapMin) keeps a 40 ms
// stretch and an open 30 ms end the default leaves out, and still no shorter one.
func TestGapMinOption(t *testing.T) {
	ms := int64(time.Millisecond)
	epoch := int64(1_000_000 * time.Second)
	for _, tc := range []struct {
		min  time.Duration
		want int
	}{{0, 0}, {result.FaultGapMin, 2}} {
		r := New(Options{Clock: NewClock(), GapMin: tc.min})
		r.Start(epoch, 0)
		at := int64(0)
		op := func(step int64) { at += step; r.Op(epoch+at, 16, 1000) }
		for range 50 {
			op(ms)
		}
		op(40 * ms) // the failover's stretch
		op(5 * ms)  // shorter than either minimum
		r.Failed(epoch + at + ms)
		r.Stopped(epoch + at + 30*ms)
		c := r.Client(1, 0, false)
		if len(c.Gaps) != tc.want {
			t.Fatalf("GapMin %v: gaps %+v, want %d", tc.min, c.Gaps, tc.want)
		}
		if tc.want > 0 && (c.Gaps[0].Duration != 40*time.Millisecond || !c.Gaps[1].Open) {
			t.Fatalf("gaps %+v: want the 40 ms stretch, then the open end", c.Gaps)
		}
	}
}
