package capacity

import (
	"context"
	"errors"
	"testing"
)

// knee passes every probe at or below limit.
func knee(limit float64) func(context.Context, float64) (Probe, error) {
	return func(_ context.Context, r float64) (Probe, error) {
		return Probe{Pass: r <= limit, Achieved: r}, nil
	}
}

func TestSearchFindsTheKnee(t *testing.T) {
	for _, limit := range []float64{1000, 8400, 123456} {
		var o Outcome
		err := Search{Min: 100, Max: 1e6, Probe: knee(limit)}.Run(context.Background(), &o)
		if err != nil || o.Verdict != Found {
			t.Fatalf("limit %v: %v, %+v", limit, err, o)
		}
		if o.Capacity > limit || o.High <= limit || (o.High-o.Low)/o.Low > 0.05 {
			t.Errorf("limit %v: capacity %v between %v and %v", limit, o.Capacity, o.Low, o.High)
		}
		if o.PassRepeats != 3 || o.FailRepeats != 3 {
			t.Errorf("limit %v: repeats %d/%d, want 3/3", limit, o.PassRepeats, o.FailRepeats)
		}
		for i, p := range o.Probes {
			if p.N != i+1 {
				t.Fatalf("probe %d numbered %d", i, p.N)
			}
		}
	}
}

func TestSearchEnds(t *testing.T) {
	var o Outcome
	if err := (Search{Min: 100, Max: 1000, Probe: knee(5000)}).Run(context.Background(), &o); err != nil || o.Verdict != AboveMax || o.Capacity != 1000 {
		t.Errorf("above max: %v %+v", err, o)
	}
	o = Outcome{}
	if err := (Search{Min: 100, Max: 1000, Probe: knee(50)}).Run(context.Background(), &o); err != nil || o.Verdict != BelowMin || o.Capacity != 0 || len(o.Probes) != 1 {
		t.Errorf("below min: %v %+v", err, o)
	}
	// A generator that cannot offer 3,000/s stops the search: no capacity is called.
	o = Outcome{}
	gen := func(_ context.Context, r float64) (Probe, error) {
		return Probe{Pass: r < 3000, GeneratorBound: r >= 3000}, nil
	}
	if err := (Search{Min: 1000, Max: 1e6, Probe: gen}).Run(context.Background(), &o); err != nil || o.Verdict != GeneratorBound || o.Capacity != 0 || o.GeneratorRate != 4000 || o.Low != 2000 {
		t.Errorf("generator bound: %v %+v", err, o)
	}
	// A probe that cannot run ends the search with its error.
	o = Outcome{}
	boom := errors.New("boom")
	if err := (Search{Min: 1, Max: 10, Probe: func(context.Context, float64) (Probe, error) { return Probe{}, boom }}).Run(context.Background(), &o); !errors.Is(err, boom) {
		t.Errorf("error %v", err)
	}
}

// TestSearchRepeatsDisagree: a flaky boundary is reported as such, not as agreement.
func TestSearchRepeatsDisagree(t *testing.T) {
	n := 0
	flaky := func(_ context.Context, r float64) (Probe, error) {
		n++
		pass := r <= 1000
		if r > 900 && r <= 1000 && n%2 == 0 {
			pass = false
		}
		return Probe{Pass: pass}, nil
	}
	var o Outcome
	if err := (Search{Min: 100, Max: 1e5, Probe: flaky, Repeats: 5}).Run(context.Background(), &o); err != nil {
		t.Fatal(err)
	}
	if o.PassRepeats == 5 && o.FailRepeats == 5 && o.Low > 900 {
		t.Errorf("a flaky boundary reported as 5 agreeing repeats: %+v", o)
	}
}

func TestRound(t *testing.T) {
	for in, want := range map[float64]float64{1234.5: 1230, 8449: 8450, 99.96: 100, 1.5e6: 1.5e6} {
		if got := Round(in); got != want {
			t.Errorf("Round(%v) = %v, want %v", in, got, want)
		}
	}
}

// TestSearchRunsADisturbedProbeAgain: a probe whose machine did not keep up (BoundTimer) is
// run again up to Retries times before the search stops at it; one that passes on a retry
// lets the search go on, and every run is in the table.
func TestSearchRunsADisturbedProbeAgain(t *testing.T) {
	runs := map[float64]int{}
	noisy := func(disturbed int) func(context.Context, float64) (Probe, error) {
		return func(_ context.Context, r float64) (Probe, error) {
			runs[r]++
			if r == 2000 && runs[r] <= disturbed {
				return Probe{GeneratorBound: true, Bound: BoundTimer}, nil
			}
			return Probe{Pass: r <= 3000}, nil
		}
	}
	var o Outcome
	if err := (Search{Min: 1000, Max: 1e5, Repeats: 1, Probe: noisy(2)}).Run(context.Background(), &o); err != nil || o.Verdict != Found || o.Capacity < 2900 {
		t.Fatalf("two disturbed runs then a pass: %v %+v", err, o)
	}
	if runs[2000] != 3 || o.Probes[1].Note == "" || o.Probes[1].Offered != 2000 || o.Probes[3].Offered != 2000 || !o.Probes[3].Pass {
		t.Errorf("2,000/s ran %d times, probes %+v", runs[2000], o.Probes)
	}
	clear(runs)
	o = Outcome{}
	if err := (Search{Min: 1000, Max: 1e5, Repeats: 1, Probe: noisy(3)}).Run(context.Background(), &o); err != nil || o.Verdict != GeneratorBound || o.Bound != BoundTimer || runs[2000] != 3 {
		t.Errorf("three disturbed runs: %v %s, 2,000/s ran %d times", err, o.Verdict, runs[2000])
	}
	clear(runs)
	o = Outcome{}
	if err := (Search{Min: 1000, Max: 1e5, Repeats: 1, Retries: -1, Probe: noisy(1)}).Run(context.Background(), &o); err != nil || o.Verdict != GeneratorBound || runs[2000] != 1 {
		t.Errorf("no retries: %v %s, 2,000/s ran %d times", err, o.Verdict, runs[2000])
	}
}
