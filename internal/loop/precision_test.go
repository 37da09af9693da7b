package loop

import (
	"testing"
	"time"
)

// The default precision's rule: about burst messages per wake-up, 200us to 1ms, from each
// sender's own rate when it sleeps on its own and from the summed rate of those the
// process's pacer serves.
func TestChoosePrecision(t *testing.T) {
	each := func(n int, rate float64) []float64 {
		r := make([]float64, n)
		for i := range r {
			r[i] = rate
		}
		return r
	}
	for _, c := range []struct {
		name  string
		rates []float64
		procs int
		want  time.Duration
	}{
		// The CPU floor's shapes (BenchmarkPacedCPU, tools/perfcompare) keep 1ms.
		{"1x10000 own", each(1, 10000), 2, time.Millisecond},
		{"2x1000", each(2, 1000), 2, time.Millisecond},
		{"8x1000 pacer", each(8, 1000), 2, time.Millisecond},
		{"50x200 pacer", each(50, 200), 2, time.Millisecond},
		{"1x10000 pacer (1 P)", each(1, 10000), 1, time.Millisecond},
		{"none paced", nil, 2, time.Millisecond},
		{"unpaced senders", each(3, 0), 2, time.Millisecond},
		// Faster: about burst messages a wake-up.
		{"1x50000 own", each(1, 50000), 2, 200 * time.Microsecond},
		{"1x20000 own", each(1, 20000), 2, 500 * time.Microsecond},
		{"1x40000 own", each(1, 40000), 2, 250 * time.Microsecond},
		// Own senders pace at their own rate; the pacer at the sum of its senders'.
		{"4x12500 all own", each(4, 12500), 8, 800 * time.Microsecond},
		{"4x12500 1 own 3 pacer", each(4, 12500), 2, 10 * time.Second / 37500},
		{"4x12500 all pacer (1 P)", each(4, 12500), 1, 200 * time.Microsecond},
		{"8x6250 pacer", each(8, 6250), 64, 200 * time.Microsecond},
		{"2x5000 1 own 1 pacer", each(2, 5000), 2, time.Millisecond},
		{"2x5000 pacer (1 P)", each(2, 5000), 1, time.Millisecond},
		{"2x25000 pacer (1 P)", each(2, 25000), 1, 200 * time.Microsecond},
		// Mixed rates: the fastest sets an own sender's, the fastest others the pacer's sum.
		{"40000+1000 own+pacer", []float64{1000, 40000}, 2, 250 * time.Microsecond},
		// Never finer than MinChosenPrecision.
		{"1x100000 own", each(1, 100000), 2, 200 * time.Microsecond},
		{"1x1e6 own", each(1, 1e6), 2, MinChosenPrecision},
		{"100x10000 pacer", each(100, 10000), 2, MinChosenPrecision},
	} {
		if got := choosePrecision(c.rates, c.procs); got != c.want {
			t.Errorf("%s (GOMAXPROCS %d): %v, want %v", c.name, c.procs, got, c.want)
		}
	}
}
