// Package pace decides when fixed-rate senders send. It is pure arithmetic, no clocks and no
// sleeps, so it is table-tested; the senders own the clock.
//
// A sender that wakes up late sends everything that fell due meanwhile, each message with its
// own intended time, instead of sleeping once per message: the schedule, not the sender's
// luck, decides the send times, which is what coordinated-omission correction needs.
package pace

import (
	"math"
	"time"
)

// Constant spaces Count senders' messages evenly at Rate messages per second in total. Sender
// k (0-based) of Count sends its i-th message (0-based) at (i*Count + k) / Rate.
type Constant struct {
	Rate  float64 // total messages per second across all senders; must be > 0
	Count int     // number of senders sharing the rate; 0 means 1
	Index int     // this sender, 0-based
}

func (c Constant) senders() float64 {
	if c.Count <= 0 {
		return 1
	}
	return float64(c.Count)
}

// Intended is the offset from the start at which message i of this sender is due.
func (c Constant) Intended(i uint64) time.Duration {
	slot := float64(i)*c.senders() + float64(c.Index)
	return time.Duration(math.Ceil(slot / c.Rate * 1e9))
}

// After is the offset at which the senders' schedule ends once this sender has sent n
// messages: the slot of all senders following its last message, so the group's N messages
// at R per second span N/R seconds. 0 when n is 0.
func (c Constant) After(n uint64) time.Duration {
	if n == 0 {
		return 0
	}
	slot := float64(n-1)*c.senders() + float64(c.Index) + 1
	return time.Duration(math.Ceil(slot / c.Rate * 1e9))
}

// Due is how many of this sender's messages are due at elapsed since the start.
func (c Constant) Due(elapsed time.Duration) uint64 {
	if elapsed < 0 {
		return 0
	}
	slots := float64(elapsed) / 1e9 * c.Rate // slots of all senders elapsed, inclusive of 0
	first := float64(c.Index)
	if slots < first {
		return 0
	}
	return uint64(math.Floor((slots-first)/c.senders())) + 1
}

// Wait is how long a sender that has sent `sent` messages should sleep at elapsed before the
// next one is due; 0 means send now.
func (c Constant) Wait(elapsed time.Duration, sent uint64) time.Duration {
	next := c.Intended(sent)
	if next <= elapsed {
		return 0
	}
	return next - elapsed
}

// Total is how many messages this sender sends in d at the rate (its share of Rate*d).
func (c Constant) Total(d time.Duration) uint64 {
	if d <= 0 {
		return 0
	}
	return c.Due(d - 1)
}
