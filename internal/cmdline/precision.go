package cmdline

import (
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/spec"
)

// precisionValue is --pace-precision: the Spec's pace_precision, which the run's senders
// pace at (here, in agents and in natsperf-rust). Parsing it changes nothing else; unset, the
// run chooses one from the rate (engine's resolvePrecision, loop.ChoosePrecision).
type precisionValue time.Duration

func (p *precisionValue) Type() string { return "duration" }
func (p *precisionValue) String() string {
	if *p == 0 {
		return "chosen from the rate"
	}
	return time.Duration(*p).String()
}
func (p *precisionValue) Set(v string) error {
	d, err := time.ParseDuration(v)
	if err != nil {
		return fmt.Errorf("%q is not a duration", v)
	}
	if err := spec.CheckPacePrecision(d); err != nil || d == 0 { // 0 is the Spec's "absent"
		return fmt.Errorf("%v: the precision must be %v to %v", d, spec.MinPacePrecision, spec.MaxPacePrecision)
	}
	*p = precisionValue(d)
	return nil
}

// registerPrecision adds --pace-precision to a command with fixed-rate senders.
func registerPrecision(f *pflag.FlagSet) {
	f.Var(new(precisionValue), "pace-precision", "fixed rates: the least time between two wake-ups of the pacer; messages due sooner go together, up to this late (the Result's send_lateness and pace_precision_ns show it). Finer costs CPU: a wake-up each (docs/performance.md). Unset, natsperf chooses it from the rate: the time in which 10 messages fall due for one wake-up (a sender's own rate, or the summed rate of those the shared pacer wakes together), 200us to 1ms: 1ms up to 10,000 msgs/s, 200us from 50,000; the Result's pace_precision_chosen says so")
}
