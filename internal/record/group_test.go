package record

import (
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

// TestGroupSeriesIsThePerClientOne: clients that sum their intervals into a Group give the
// same series, windows, aggregate and client figures as clients that each keep (and encode)
// their own: the Group changes what the series costs, never what it says.
func TestGroupSeriesIsThePerClientOne(t *testing.T) {
	clk := NewClock()
	start := clk.Start()
	g := NewGroup()
	const clients = 7
	var own, grouped []*Recorder
	for range clients {
		for _, set := range []*[]*Recorder{&own, &grouped} {
			o := Options{Clock: clk, Latency: true, Corrected: true, Interval: 100 * time.Millisecond}
			if set == &grouped {
				o.Group = g
			}
			r := New(o)
			r.Start(start, 0)
			*set = append(*set, r)
		}
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for k := range 2000 {
		c := rng.IntN(clients)
		at := start + int64(k)*int64(time.Millisecond) + rng.Int64N(int64(time.Millisecond))
		lat := int64(rng.ExpFloat64() * 400e3)
		late := int64(rng.ExpFloat64() * 100e3)
		for _, r := range []*Recorder{own[c], grouped[c]} {
			r.OpCorrected(at, 16, lat+late, lat)
			r.Late(at-lat-late, at-lat)
		}
	}
	figures := func(recs []*Recorder) ([]result.Client, result.Aggregate, []result.Interval) {
		out := make([]result.Client, len(recs))
		for i, r := range recs {
			out[i] = r.Client(i+1, 0, false)
		}
		return out, Aggregate(recs, out, 0, false), Series(recs, start)
	}
	oc, oa, os := figures(own)
	gc, ga, gs := figures(grouped)
	if len(os) != 20 || !reflect.DeepEqual(os, gs) {
		t.Fatalf("series of %d intervals: grouped\n%+v\nwant the per-client one\n%+v", len(os), gs, os)
	}
	if !reflect.DeepEqual(oc, gc) || !reflect.DeepEqual(oa, ga) {
		t.Fatalf("client or aggregate figures differ with a Group:\n%+v\n%+v", ga, oa)
	}
	for _, w := range [][2]int64{{0, 500}, {300, 1200}, {1900, 5000}} {
		from, to := start+w[0]*int64(time.Millisecond), start+w[1]*int64(time.Millisecond)
		om, ol := Window(own, from, to)
		gm, gl := Window(grouped, from, to)
		if om != gm || (ol == nil) != (gl == nil) || (ol != nil && !ol.Equals(gl)) {
			t.Fatalf("window %v: grouped %d msgs, want %d; latencies equal %v", w, gm, om, ol != nil && gl != nil && ol.Equals(gl))
		}
	}
	if len(own[0].intervals) == 0 || len(grouped[0].intervals) != 0 {
		t.Fatalf("a grouped client keeps %d intervals of its own, an ungrouped one %d", len(grouped[0].intervals), len(own[0].intervals))
	}
}
