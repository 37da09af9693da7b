package cli

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/spec"
)

// rateValue is --rate: one rate ("5000", "5k"), or a ramp's first and last ("1000..20000")
// with --ramp.
type rateValue benchFlags

func (r *rateValue) Type() string { return "rate" }
func (r *rateValue) String() string {
	s := strconv.FormatFloat(r.Rate, 'f', -1, 64)
	if r.Shape.To > 0 {
		s += ".." + strconv.FormatFloat(r.Shape.To, 'f', -1, 64)
	}
	return s
}
func (r *rateValue) Set(v string) error {
	from, to, ramp := strings.Cut(v, "..")
	a, err := parseRate(from)
	if err != nil {
		return err
	}
	r.Rate, r.Shape.To = a, 0
	if ramp {
		if r.Shape.To, err = parseRate(to); err != nil {
			return err
		}
	}
	return nil
}

// stepsValue is --steps: rates held --step-duration each ("1000,2000,5k").
type stepsValue []float64

func (s *stepsValue) Type() string { return "rates" }
func (s *stepsValue) String() string {
	parts := make([]string, len(*s))
	for i, r := range *s {
		parts[i] = strconv.FormatFloat(r, 'f', -1, 64)
	}
	return strings.Join(parts, ",")
}
func (s *stepsValue) Set(v string) error {
	var out []float64
	for _, p := range strings.Split(v, ",") {
		r, err := parseRate(p)
		if err != nil {
			return err
		}
		out = append(out, r)
	}
	*s = out
	return nil
}

// arrivalsValue is --arrivals: uniform (evenly spaced) or poisson.
type arrivalsValue bool

func (a *arrivalsValue) Type() string { return "uniform|poisson" }
func (a *arrivalsValue) String() string {
	if *a {
		return "poisson"
	}
	return "uniform"
}
func (a *arrivalsValue) Set(v string) error {
	switch v {
	case "uniform":
		*a = false
	case "poisson":
		*a = true
	default:
		return fmt.Errorf("must be uniform or poisson, got %q", v)
	}
	return nil
}

// parseRate reads a rate in messages per second: "2500", "2.5k", "1m".
func parseRate(s string) (float64, error) {
	s = strings.TrimSpace(s)
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1e3, s[:len(s)-1]
	case strings.HasSuffix(s, "m"), strings.HasSuffix(s, "M"):
		mult, s = 1e6, s[:len(s)-1]
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, fmt.Errorf("%q is not a rate in messages per second", s)
	}
	return f * mult, nil // its range is checked with the other flags, in one message
}

// registerShape adds the load-shape flags of fixed-rate senders.
func (b *benchFlags) registerShape(f *pflag.FlagSet) {
	f.Var((*rateValue)(b), "rate", "fixed rate in messages per second, total across clients (0: as fast as possible); latency is then measured from each message's intended send time. A..B with --ramp: a linear ramp")
	f.DurationVar(&b.Shape.Ramp, "ramp", 0, "with --rate A..B: ramp the rate linearly from A to B over this long, then hold B")
	f.Var((*stepsValue)(&b.Shape.Steps), "steps", "rates held --step-duration each, e.g. 1000,2000,5000 (the last one then held)")
	f.DurationVar(&b.Shape.StepDuration, "step-duration", 0, "how long each of --steps lasts")
	f.Var((*arrivalsValue)(&b.Shape.Poisson), "arrivals", "uniform (evenly spaced) or poisson (exponential gaps around the rate, seeded by --arrivals-seed)")
	f.Uint64Var(&b.Shape.Seed, "arrivals-seed", 0, "seed of --arrivals poisson (0: a random one, recorded in the Result)")
	registerPrecision(f)
}

// validateShape checks the load-shape flags (after the common ones).
func (b *benchFlags) validateShape(f *pflag.FlagSet) error {
	sh := &b.Shape
	switch {
	case sh.Ramp < 0 || sh.StepDuration < 0:
		return usagef("durations must not be negative")
	case (sh.To > 0) != (sh.Ramp > 0):
		return usagef("a ramp needs --rate A..B and --ramp D together")
	case math.IsNaN(sh.To) || sh.To < 0 || sh.To > maxRate || (sh.To > 0 && sh.To < minRate):
		return usagef("--rate %v..%v: the end rate must be %g to %g messages per second", b.Rate, sh.To, minRate, maxRate)
	case (len(sh.Steps) > 0) != (sh.StepDuration > 0):
		return usagef("--steps needs --step-duration (and --step-duration needs --steps)")
	case len(sh.Steps) > 0 && (sh.To > 0 || f.Changed("rate")):
		return usagef("give --steps or --rate, not both")
	case sh.Poisson && b.Rate <= 0 && len(sh.Steps) == 0:
		return usagef("--arrivals poisson needs --rate or --steps")
	case f.Changed("arrivals-seed") && !sh.Poisson:
		return usagef("--arrivals-seed is for --arrivals poisson")
	}
	for _, r := range sh.Steps {
		if !(r >= minRate && r <= maxRate) {
			return usagef("--steps: %v is not a rate from %g to %g messages per second", r, minRate, maxRate)
		}
	}
	if len(sh.Steps) > 0 {
		b.Rate = sh.Steps[0]
	}
	if sh.Poisson && sh.Seed == 0 {
		sh.Seed = rand.Uint64() | 1 // drawn here, so agents share it and the Result records it
	}
	return nil
}

// specPacing is the flags' load shape in a Spec's pacing.
func (b benchFlags) shapePacing(p *spec.Pacing) {
	p.RateTo, p.Ramp = b.Shape.To, spec.Duration(b.Shape.Ramp)
	p.Steps, p.StepDuration = b.Shape.Steps, spec.Duration(b.Shape.StepDuration)
	if b.Shape.Poisson {
		p.Arrivals, p.Seed = "poisson", b.Shape.Seed
	}
}
