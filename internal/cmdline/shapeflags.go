package cmdline

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/spec"
)

// loadShape is what the load-shape flags set: a fixed rate and the shape around it. The
// benchmark commands' common flags and the latency command's own flags each hold one.
type loadShape struct {
	rate  *float64
	shape *pace.Shape
}

// rateValue is --rate: one rate ("5000", "5k"), or a ramp's first and last ("1000..20000")
// with --ramp.
type rateValue loadShape

func (r rateValue) Type() string { return "rate" }
func (r rateValue) String() string {
	if r.rate == nil {
		return "0"
	}
	s := strconv.FormatFloat(*r.rate, 'f', -1, 64)
	if r.shape.To > 0 {
		s += ".." + strconv.FormatFloat(r.shape.To, 'f', -1, 64)
	}
	return s
}
func (r rateValue) Set(v string) error {
	from, to, ramp := strings.Cut(v, "..")
	a, err := parseRate(from)
	if err != nil {
		return err
	}
	*r.rate, r.shape.To = a, 0
	if ramp {
		if r.shape.To, err = parseRate(to); err != nil {
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

// rateHelp is --rate's help for senders that may also run as fast as they can.
const rateHelp = "fixed rate in messages per second, total across clients (0: as fast as possible); latency is then measured from each message's intended send time"

// registerShape adds the load-shape flags of fixed-rate senders.
func (b *benchFlags) registerShape(f *pflag.FlagSet) {
	loadShape{&b.Rate, &b.Shape}.register(f, rateHelp)
	registerPrecision(f)
}

// register adds --rate (described by rateHelp), --ramp, --steps, --step-duration,
// --arrivals and --arrivals-seed.
func (l loadShape) register(f *pflag.FlagSet, rateHelp string) {
	sh := l.shape
	f.Var(rateValue(l), "rate", rateHelp+". A..B with --ramp: a linear ramp")
	f.DurationVar(&sh.Ramp, "ramp", 0, "with --rate A..B: ramp the rate linearly from A to B over this long, then hold B")
	f.Var((*stepsValue)(&sh.Steps), "steps", "rates held --step-duration each, e.g. 1000,2000,5000 (the last one then held)")
	f.DurationVar(&sh.StepDuration, "step-duration", 0, "how long each of --steps lasts")
	f.Var((*arrivalsValue)(&sh.Poisson), "arrivals", "uniform (evenly spaced) or poisson (exponential gaps around the rate, seeded by --arrivals-seed)")
	f.Uint64Var(&sh.Seed, "arrivals-seed", 0, "seed of --arrivals poisson (0: a random one, recorded in the Result)")
}

// validateShape checks the load-shape flags (after the common ones).
func (b *benchFlags) validateShape(f *pflag.FlagSet) error {
	return loadShape{&b.Rate, &b.Shape}.validate(f)
}

// validate checks the load-shape flags; with --steps, the rate becomes the first step.
func (l loadShape) validate(f *pflag.FlagSet) error {
	sh, rate := l.shape, *l.rate
	switch {
	case sh.Ramp < 0 || sh.StepDuration < 0:
		return usagef("durations must not be negative")
	case (sh.To > 0) != (sh.Ramp > 0):
		return usagef("a ramp needs --rate A..B and --ramp D together")
	case math.IsNaN(sh.To) || sh.To < 0 || sh.To > maxRate || (sh.To > 0 && sh.To < minRate):
		return usagef("--rate %v..%v: the end rate must be %g to %g messages per second", rate, sh.To, minRate, maxRate)
	case (len(sh.Steps) > 0) != (sh.StepDuration > 0):
		return usagef("--steps needs --step-duration (and --step-duration needs --steps)")
	case len(sh.Steps) > 0 && (sh.To > 0 || f.Changed("rate")):
		return usagef("give --steps or --rate, not both")
	case sh.Poisson && rate <= 0 && len(sh.Steps) == 0:
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
		*l.rate = 0 // the steps give the rate (Spec.Shaped), not a command's default --rate
	}
	return nil
}

// shapePacing puts a load shape into a Spec's pacing.
func shapePacing(sh pace.Shape, p *spec.Pacing) {
	p.RateTo, p.Ramp = sh.To, spec.Duration(sh.Ramp)
	p.Steps, p.StepDuration = sh.Steps, spec.Duration(sh.StepDuration)
	if sh.Poisson {
		p.Arrivals, p.Seed = "poisson", sh.Seed
	}
}
