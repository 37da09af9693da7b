package pace

import (
	"math"
	"sort"
	"testing"
	"time"

	"gonum.org/v1/gonum/stat/distuv"
)

// TestPacerConstantMatchesConstant: the zero Shape is Constant's schedule, message for message.
func TestPacerConstantMatchesConstant(t *testing.T) {
	for _, c := range []Constant{{Rate: 1000}, {Rate: 7, Count: 3, Index: 2}, {Rate: 123456, Count: 4, Index: 1}} {
		p := NewPacer(c.Rate, Shape{}, c.Count, c.Index)
		for i := uint64(0); i < 2000; i += 7 {
			if got, want := p.Intended(i), c.Intended(i); got != want {
				t.Fatalf("%+v: Intended(%d) = %v, want %v", c, i, got, want)
			}
			if got, want := p.After(i), c.After(i); got != want {
				t.Fatalf("%+v: After(%d) = %v, want %v", c, i, got, want)
			}
		}
		for _, d := range []time.Duration{0, time.Millisecond, 999 * time.Millisecond, time.Second, 3 * time.Second} {
			if got, want := p.Total(d), c.Total(d); got != want {
				t.Errorf("%+v: Total(%v) = %d, want %d", c, d, got, want)
			}
		}
	}
}

// TestShapeSlots: the cumulative counts of the shapes, worked out by hand.
func TestShapeSlots(t *testing.T) {
	ramp := Shape{To: 3000, Ramp: 2 * time.Second}
	steps := Shape{Steps: []float64{100, 1000, 10}, StepDuration: time.Second}
	tests := []struct {
		name  string
		shape Shape
		rate  float64
		t     time.Duration
		slots float64
		rateT float64
	}{
		{"constant", Shape{}, 500, 2 * time.Second, 1000, 500},
		{"ramp halfway", ramp, 1000, time.Second, 1500, 2000}, // 1000*1 + 2000*1²/(2*2)
		{"ramp end", ramp, 1000, 2 * time.Second, 4000, 3000},
		{"after the ramp the end rate holds", ramp, 1000, 3 * time.Second, 7000, 3000},
		{"first step", steps, 0, 500 * time.Millisecond, 50, 100},
		{"second step", steps, 0, 1500 * time.Millisecond, 600, 1000},
		{"last step holds", steps, 0, 5 * time.Second, 1100 + 30, 10},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.shape.Slots(tt.rate, tt.t); math.Abs(got-tt.slots) > 1e-9 {
				t.Errorf("Slots(%v) = %v, want %v", tt.t, got, tt.slots)
			}
			if got := tt.shape.RateAt(tt.rate, tt.t); math.Abs(got-tt.rateT) > 1e-9 {
				t.Errorf("RateAt(%v) = %v, want %v", tt.t, got, tt.rateT)
			}
			// The inverse: the slot count at the time of slot s is s.
			if at := tt.shape.at(tt.rate, tt.slots); math.Abs(at-tt.t.Seconds()) > 1e-9 {
				t.Errorf("at(%v) = %vs, want %v", tt.slots, at, tt.t)
			}
		})
	}
}

// TestPacerShapedSchedules: per step (or second of a ramp), the senders together send what
// the shape offers, and every sender's times go forward.
func TestPacerShapedSchedules(t *testing.T) {
	tests := []struct {
		name  string
		rate  float64
		shape Shape
		d     time.Duration
		want  []uint64 // messages per second of the run, all senders
	}{
		{"steps", 0, Shape{Steps: []float64{1000, 2000, 5000}, StepDuration: time.Second}, 3 * time.Second, []uint64{1000, 2000, 5000}},
		{"ramp 1000..3000 over 2s", 1000, Shape{To: 3000, Ramp: 2 * time.Second}, 3 * time.Second, []uint64{1500, 2500, 3000}},
		{"ramp down", 4000, Shape{To: 2000, Ramp: 2 * time.Second}, 2 * time.Second, []uint64{3500, 2500}},
	}
	for _, tt := range tests {
		for _, senders := range []int{1, 3} {
			t.Run(tt.name, func(t *testing.T) {
				got := make([]uint64, len(tt.want))
				var total uint64
				for k := range senders {
					p := NewPacer(tt.rate, tt.shape, senders, k)
					n := p.Total(tt.d)
					total += n
					prev := time.Duration(-1)
					for i := range n {
						at := p.Intended(i)
						if at <= prev || at >= tt.d {
							t.Fatalf("sender %d message %d at %v after %v (run %v)", k, i, at, prev, tt.d)
						}
						prev = at
						got[at/time.Second]++
					}
					if due := p.Due(p.Intended(n - 1)); due != n {
						t.Errorf("sender %d: Due at its last message = %d, want %d", k, due, n)
					}
				}
				for s := range got {
					if diff := int64(got[s]) - int64(tt.want[s]); diff < -int64(senders) || diff > int64(senders) {
						t.Errorf("%d senders, second %d: %d messages, want %d", senders, s, got[s], tt.want[s])
					}
				}
				if total != Total(tt.rate, tt.shape, senders, tt.d) {
					t.Errorf("Total = %d, senders add up to %d", Total(tt.rate, tt.shape, senders, tt.d), total)
				}
			})
		}
	}
}

// TestPoissonArrivals: the gaps of the merged senders follow the exponential distribution
// (one-sample Kolmogorov-Smirnov against gonum's CDF at the 1% level), the mean rate is within
// 1%, and a seed repeats its schedule while another seed does not.
func TestPoissonArrivals(t *testing.T) {
	const rate, senders = 5000.0, 4
	d := 20 * time.Second
	shape := Shape{Poisson: true, Seed: 42}
	var times []float64
	for k := range senders {
		p := NewPacer(rate, shape, senders, k)
		n := p.Total(d)
		for i := range n {
			times = append(times, p.Intended(i).Seconds())
		}
	}
	sort.Float64s(times)
	if got := float64(len(times)) / d.Seconds(); math.Abs(got-rate)/rate > 0.01 {
		t.Fatalf("mean rate %.1f/s, want %v within 1%%", got, rate)
	}
	n := float64(len(times) - 1)
	crit := 1.628 / math.Sqrt(n) // the Kolmogorov distribution's 1% critical value
	if dmax := ksExponential(times, rate); dmax > crit {
		t.Errorf("KS statistic %.5f over %.0f gaps exceeds the 1%% critical value %.5f", dmax, n, crit)
	}
	// Evenly spaced arrivals fail the same test: the test can fail.
	even := NewPacer(rate, Shape{}, 1, 0)
	var evenTimes []float64
	for i := range even.Total(d) {
		evenTimes = append(evenTimes, even.Intended(i).Seconds())
	}
	if dmax := ksExponential(evenTimes, rate); dmax <= crit {
		t.Errorf("even gaps pass the exponential test (KS %.5f)", dmax)
	}

	a, b := NewPacer(rate, shape, senders, 1), NewPacer(rate, shape, senders, 1)
	for i := uint64(0); i < 100; i++ {
		if a.Intended(i) != b.Intended(i) {
			t.Fatalf("seed 42 gave message %d two times", i)
		}
	}
	// Asking for an earlier message replays the draws.
	if x, y := a.Intended(10), b.Intended(10); x != y {
		t.Errorf("replayed message 10 at %v, first at %v", x, y)
	}
	c := NewPacer(rate, Shape{Poisson: true, Seed: 43}, senders, 1)
	if c.Intended(50) == a.Intended(50) {
		t.Errorf("seeds 42 and 43 gave the same schedule")
	}
}

// TestPacerAllocatesNothing: asking for the next message's time, Poisson too, allocates nothing.
func TestPacerAllocatesNothing(t *testing.T) {
	for _, shape := range []Shape{{}, {To: 2000, Ramp: time.Second}, {Steps: []float64{1, 2}, StepDuration: time.Second}, {Poisson: true, Seed: 1}} {
		p := NewPacer(1000, shape, 2, 1)
		var i uint64
		if a := testing.AllocsPerRun(1000, func() { _ = p.Intended(i); i++ }); a != 0 {
			t.Errorf("%+v: %v allocations per message", shape, a)
		}
	}
}

// ksExponential is the one-sample Kolmogorov-Smirnov statistic of the gaps between sorted
// times against the exponential distribution of rate.
func ksExponential(times []float64, rate float64) float64 {
	gaps := make([]float64, 0, len(times)-1)
	for i := 1; i < len(times); i++ {
		gaps = append(gaps, times[i]-times[i-1])
	}
	sort.Float64s(gaps)
	exp := distuv.Exponential{Rate: rate}
	var dmax float64
	n := float64(len(gaps))
	for i, g := range gaps {
		f := exp.CDF(g)
		dmax = max(dmax, math.Abs(float64(i+1)/n-f), math.Abs(f-float64(i)/n))
	}
	return dmax
}
