package cmdline

import (
	"math"
	"time"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/spec"
)

// latencyValues are the latency command's own flags; the connection flags are global. What
// the Result's settings echo of them is engine's latencyEcho.
type latencyValues struct {
	ServerB  string // --server-b
	Subject  string
	Size     int64
	Rate     float64
	Shape    pace.Shape // --ramp, --steps, --arrivals
	Duration time.Duration
	Warmup   time.Duration
	Interval time.Duration // --interval: the series' slice, and so the spike lines' resolution
	Hist     string
	// ServerMetrics and NoServerMetrics are the server telemetry flags every benchmark
	// command has (registerTelemetry).
	ServerMetrics   []string
	NoServerMetrics bool
}

func latencyFlags(f *pflag.FlagSet) builder {
	var lf latencyValues
	f.StringVar(&lf.ServerB, "server-b", "", "server B, where the subscriber connects (default: the --server); uses the same credentials and TLS settings")
	f.StringVar(&lf.Subject, "subject", "", "subject to publish on (default: a fresh inbox, so runs never mix)")
	lf.Size, lf.Rate, lf.Duration = stamp.Size, 1000, 5*time.Second
	f.Var((*sizeValue)(&lf.Size), "size", "message payload size, at least 16 B (the stamp); 24 B or more also carries the actual send time")
	loadShape{&lf.Rate, &lf.Shape}.register(f, "messages per second")
	f.DurationVar(&lf.Duration, "duration", lf.Duration, "how long to publish")
	f.DurationVar(&lf.Warmup, "warmup", 0, "leave this initial period out of the statistics")
	f.DurationVar(&lf.Interval, "interval", time.Second, "width of one slice of the per-interval series in the Result (a spike line needs 4 slices with latency)")
	registerHist(f, &lf.Hist)
	registerPrecision(f)
	registerTelemetry(f, &lf.ServerMetrics, &lf.NoServerMetrics)
	return func(in *input) (*Line, error) { return latencySpec(in, lf) }
}

func (lf *latencyValues) validate(f *pflag.FlagSet) error {
	if err := (loadShape{&lf.Rate, &lf.Shape}).validate(f); err != nil {
		return err
	}
	switch {
	case lf.Size < stamp.Size:
		return usagef("--size %d: the latency command needs at least %d bytes per message for its stamp (publisher, sequence, send time); latency-tests' 8-byte default is not enough", lf.Size, stamp.Size)
	case lf.Size > 64<<20:
		return usagef("--size %d is larger than NATS' 64 MiB maximum payload", lf.Size)
	case math.IsNaN(lf.Rate) || (lf.Rate < minRate && len(lf.Shape.Steps) == 0) || lf.Rate > maxRate:
		return usagef("--rate must be positive, %g to %g messages per second, got %v", minRate, maxRate, lf.Rate)
	case lf.Duration <= 0:
		return usagef("--duration must be positive")
	case lf.Warmup < 0 || lf.Warmup >= lf.Duration:
		return usagef("--warmup must be at least 0 and shorter than --duration")
	case lf.Interval < 10*time.Millisecond:
		return usagef("--interval must be at least 10ms")
	}
	if err := CheckOutputFile("--hist", lf.Hist); err != nil {
		return err
	}
	if lf.Subject != "" {
		if err := checkPublishSubject("--subject", lf.Subject); err != nil {
			return err
		}
	}
	if n := pace.Total(lf.Rate, lf.Shape, 1, lf.Duration); n < 1 {
		return usagef("--rate %v for --duration %v sends no message", lf.Rate, lf.Duration)
	}
	return nil
}

// latencySpec is the latency command line's Line.
func latencySpec(in *input, lf latencyValues) (*Line, error) {
	f := in.f
	if err := lf.validate(f); err != nil {
		return nil, err
	}
	target := in.conn.Target() // the system account user's too (telemetry)
	c := &spec.Latency{Subject: lf.Subject}
	if lf.ServerB != "" {
		// Server B uses the target's credentials; ones written in its URL join them there.
		c.ServerB = connect.MoveUserinfo(lf.ServerB, &target)
	}
	if lf.Size != stamp.Size {
		c.Size = spec.Size(lf.Size)
	}
	s := &spec.Spec{
		Version: spec.Version, Target: target,
		Workloads: []spec.Workload{{
			Pacing: spec.Pacing{Rate: lf.Rate, Duration: spec.Duration(lf.Duration)}, Config: c,
		}},
		Warmup: spec.Duration(lf.Warmup),
	}
	if f.Changed("interval") {
		s.Interval = spec.Duration(lf.Interval)
	}
	shapePacing(lf.Shape, &s.Workloads[0].Pacing)
	withServerMetrics(s, lf.ServerMetrics, lf.NoServerMetrics)
	return in.line(s, lf.Hist), nil
}
