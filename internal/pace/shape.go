package pace

import (
	"math"
	"math/rand/v2"
	"time"
)

// Shape is how a fixed rate changes over a run. The zero Shape keeps the rate constant.
//
// A schedule is a cumulative count of slots N(t) (the integral of the rate) and its inverse:
// slot s is due at N⁻¹(s). Evenly spaced senders take slot i*Count+Index for their i-th
// message, as Constant does; with Poisson arrivals each sender draws its own arrivals at
// 1/Count of the rate (the sum of independent Poisson processes is the Poisson process of the
// whole rate), as exponential gaps in slot space, which N⁻¹ maps onto the ramp or the steps.
type Shape struct {
	// To and Ramp make a linear ramp from the rate to To over Ramp, the rate then staying at
	// To (--rate A..B --ramp D).
	To   float64       `json:"to,omitempty"`
	Ramp time.Duration `json:"ramp,omitempty"`
	// Steps are rates held StepDuration each, the last one then held (--steps, --step-duration).
	Steps        []float64     `json:"steps,omitempty"`
	StepDuration time.Duration `json:"step_duration,omitempty"`
	// Poisson spaces the messages with exponential gaps around the mean rate (--arrivals
	// poisson), drawn from Seed (each sender from Seed and its index), so a run repeats.
	Poisson bool   `json:"poisson,omitempty"`
	Seed    uint64 `json:"seed,omitempty"`
}

// Ramped reports whether the shape is a ramp.
func (s Shape) Ramped() bool { return s.Ramp > 0 && s.To > 0 }

// Stepped reports whether the shape is a list of steps.
func (s Shape) Stepped() bool { return len(s.Steps) > 0 && s.StepDuration > 0 }

// Varies reports whether the rate changes during the run (a ramp or steps).
func (s Shape) Varies() bool { return s.Ramped() || s.Stepped() }

// RateAt is the offered rate at t (messages per second across the senders).
func (s Shape) RateAt(rate float64, t time.Duration) float64 {
	switch {
	case s.Stepped():
		k := min(int(t/s.StepDuration), len(s.Steps)-1)
		return s.Steps[max(k, 0)]
	case s.Ramped():
		if t >= s.Ramp {
			return s.To
		}
		return rate + (s.To-rate)*t.Seconds()/s.Ramp.Seconds()
	}
	return rate
}

// Slots is N(t): how many slots of all senders fall in [0, t) at rate shaped by s.
func (s Shape) Slots(rate float64, t time.Duration) float64 {
	if t <= 0 {
		return 0
	}
	sec := t.Seconds()
	switch {
	case s.Stepped():
		d := s.StepDuration.Seconds()
		var n float64
		for k, r := range s.Steps {
			if k == len(s.Steps)-1 || sec <= float64(k+1)*d {
				return n + r*(sec-float64(k)*d)
			}
			n += r * d
		}
	case s.Ramped():
		d := s.Ramp.Seconds()
		if sec <= d {
			return rate*sec + (s.To-rate)*sec*sec/(2*d)
		}
		return (rate+s.To)*d/2 + s.To*(sec-d)
	}
	return rate * sec
}

// at is N⁻¹(slot) in seconds.
func (s Shape) at(rate, slot float64) float64 {
	switch {
	case s.Stepped():
		d := s.StepDuration.Seconds()
		var n float64
		for k, r := range s.Steps {
			if k == len(s.Steps)-1 || slot <= n+r*d {
				return float64(k)*d + (slot-n)/r
			}
			n += r * d
		}
	case s.Ramped():
		d := s.Ramp.Seconds()
		if whole := (rate + s.To) * d / 2; slot > whole {
			return d + (slot-whole)/s.To
		}
		// rate*t + (To-rate)*t²/(2d) = slot, solved in the form that stays exact when To == rate.
		return 2 * slot / (rate + math.Sqrt(rate*rate+2*(s.To-rate)*slot/d))
	}
	return slot / rate
}

// Pacer is one sender's schedule: Constant's arithmetic over a Shape. With Poisson arrivals
// it keeps a cursor, so asking for messages in order costs one draw each (no allocation);
// asking for an earlier one replays the draws from the seed.
type Pacer struct {
	Rate  float64 // the rate, or the ramp's first rate (a stepped shape ignores it)
	Shape Shape
	Count int // senders sharing the rate; 0 means 1
	Index int // this sender, 0-based

	rng  rand.PCG
	cur  uint64  // the message whose slot is slot
	slot float64 // its slot, in units of Count (Poisson)
	gen  bool    // cur and slot are valid
}

// NewPacer returns sender index's pacer of count senders at rate, shaped by shape.
func NewPacer(rate float64, shape Shape, count, index int) *Pacer {
	return &Pacer{Rate: rate, Shape: shape, Count: count, Index: index}
}

func (p *Pacer) senders() float64 {
	if p.Count <= 0 {
		return 1
	}
	return float64(p.Count)
}

// slotOf is the slot of this sender's message i across all senders.
func (p *Pacer) slotOf(i uint64) float64 {
	if !p.Shape.Poisson {
		return float64(i)*p.senders() + float64(p.Index)
	}
	if !p.gen || i < p.cur {
		p.rng.Seed(p.Shape.Seed, uint64(p.Index)+1)
		p.cur, p.slot, p.gen = 0, p.gap(), true
	}
	for p.cur < i {
		p.slot += p.gap()
		p.cur++
	}
	return p.slot * p.senders()
}

// gap is an exponential draw of mean 1.
func (p *Pacer) gap() float64 {
	u := float64(p.rng.Uint64()>>11) / (1 << 53) // [0, 1)
	return -math.Log1p(-u)
}

func (p *Pacer) offset(slot float64) time.Duration {
	return time.Duration(math.Ceil(p.Shape.at(p.Rate, slot) * 1e9))
}

// Intended is the offset from the start at which message i of this sender is due.
func (p *Pacer) Intended(i uint64) time.Duration { return p.offset(p.slotOf(i)) }

// After is where the schedule ends once this sender has sent n messages: the slot of all
// senders that follows its last one (its next arrival with Poisson arrivals). 0 when n is 0.
func (p *Pacer) After(n uint64) time.Duration {
	if n == 0 {
		return 0
	}
	if p.Shape.Poisson {
		return p.Intended(n)
	}
	return p.offset(p.slotOf(n-1) + 1)
}

// Due is how many of this sender's messages are due at elapsed since the start.
func (p *Pacer) Due(elapsed time.Duration) uint64 {
	if elapsed < 0 {
		return 0
	}
	if p.Shape.Poisson {
		n := uint64(0)
		if p.gen && p.offset(p.slot*p.senders()) <= elapsed {
			n = p.cur + 1 // on from the cursor: the draws before it are not replayed
		}
		for p.Intended(n) <= elapsed {
			n++
		}
		return n
	}
	// The slots whose time, rounded up to a nanosecond as Intended rounds, is at most elapsed.
	slots := p.Shape.Slots(p.Rate, elapsed+1)
	first := float64(p.Index)
	if slots <= first {
		if p.Intended(0) <= elapsed {
			return 1
		}
		return 0
	}
	n := uint64(math.Floor((slots-first)/p.senders())) + 1
	// Floating point may put a slot a nanosecond either side of elapsed: Intended decides.
	for n > 0 && p.Intended(n-1) > elapsed {
		n--
	}
	for p.Intended(n) <= elapsed {
		n++
	}
	return n
}

// Total is how many messages this sender sends in d (its share of the schedule's slots in d).
func (p *Pacer) Total(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	return p.Due(d - 1)
}

// Total is how many messages count senders send together in d at rate shaped by shape.
func Total(rate float64, shape Shape, count int, d time.Duration) uint64 {
	var n uint64
	for k := range max(count, 1) {
		n += NewPacer(rate, shape, count, k).Total(d)
	}
	return n
}
