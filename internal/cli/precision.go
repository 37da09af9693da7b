package cli

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/loop"
)

// The range --pace-precision accepts: finer than 50us is a sleep per message at any rate
// that matters (a spinning core's worth of wake-ups); coarser than 100ms is no schedule.
const (
	minPrecision = 50 * time.Microsecond
	maxPrecision = 100 * time.Millisecond
)

// precisionValue is --pace-precision: the process's pacing precision (loop.SetPrecision),
// set as the flag is parsed so every paced sender of the run uses it.
type precisionValue struct{}

func (precisionValue) Type() string   { return "duration" }
func (precisionValue) String() string { return loop.Precision().String() }
func (precisionValue) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is not a duration", v)
	}
	if d < minPrecision || d > maxPrecision {
		return fmt.Errorf("%v: the precision must be %v to %v", d, minPrecision, maxPrecision)
	}
	loop.SetPrecision(d)
	return nil
}

// registerPrecision adds --pace-precision to a command with fixed-rate senders.
func registerPrecision(f *pflag.FlagSet) {
	f.Var(precisionValue{}, "pace-precision", "fixed rates: the least time between two wake-ups of the pacer; messages due sooner go together, up to this late (the Result's send_lateness shows it). Finer costs CPU: a wake-up each (docs/performance.md)")
}
