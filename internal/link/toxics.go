package link

import (
	"math/rand/v2"
	"time"

	"github.com/Shopify/toxiproxy/v2/toxics"
)

// Toxic types natsperf adds to toxiproxy's registry.
const (
	delayType = "natsperf_delay"
	holdType  = "natsperf_hold"
)

func init() {
	toxics.Register(delayType, new(delayToxic))
	toxics.Register(holdType, new(holdToxic))
}

// delayToxic is toxiproxy's latency toxic at nanosecond rather than millisecond resolution
// (zones 500µs apart are a real case): each chunk leaves Delay±Jitter after it was read.
// Chunks keep their order; a chunk read while an earlier one still waits does not wait twice.
type delayToxic struct {
	Delay  time.Duration `json:"delay"`
	Jitter time.Duration `json:"jitter"`
}

// GetBufferSize lets chunks queue while earlier ones wait out their delay, so a delayed link
// still carries a full window.
func (t *delayToxic) GetBufferSize() int { return 1024 }

func (t *delayToxic) delay() time.Duration {
	if t.Jitter <= 0 {
		return t.Delay
	}
	return t.Delay + time.Duration(rand.Int64N(int64(2*t.Jitter))) - t.Jitter
}

func (t *delayToxic) Pipe(stub *toxics.ToxicStub) {
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	for {
		select {
		case <-stub.Interrupt:
			return
		case c := <-stub.Input:
			if c == nil {
				stub.Close()
				return
			}
			if wait := t.delay() - time.Since(c.Timestamp); wait > 0 {
				timer.Reset(wait)
				select {
				case <-timer.C:
				case <-stub.Interrupt:
					stub.Output <- c // never drop data: the replacement toxic takes over
					return
				}
			}
			stub.Output <- c
		}
	}
}

// holdToxic reads nothing until it is removed: the bytes before it wait, in order, and TCP
// back-pressure reaches the sender. Removing it lets them flow on.
type holdToxic struct{}

func (t *holdToxic) Pipe(stub *toxics.ToxicStub) { <-stub.Interrupt }
