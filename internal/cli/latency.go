package cli

import (
	"math"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/spec"
)

// latencyFlags are the latency command's own flags; the connection flags are global. What
// the Result's settings echo of them is engine's latencyEcho.
type latencyFlags struct {
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

func (a *app) latencyCmd() *cobra.Command {
	var lf latencyFlags
	cmd := &cobra.Command{
		Use:   "latency",
		Short: "End-to-end latency at a fixed rate, publishing on server A and receiving on server B (latency-tests)",
		Long: `Publish --rate messages per second for --duration on one connection to server A (-s) and
receive them on one connection to server B (--server-b, default the same), then print
latency-tests' report: both server RTTs, the HdrHistogram percentiles, the achieved rate and
the wall times. Latency counts from each message's intended send time (start + i/rate), so a
publisher or server that falls behind shows in the percentiles; with --size 24 or more the
latency from the actual send is printed as well. Lost messages are counted, never waited for.
Both ends run in this process on one clock, so A and B may be on any hosts (docs/latency.md).
On an embedded supercluster (--gateways) server B is the second cluster (docs/network.md).
Server telemetry is sampled as on every benchmark command (the embedded server by default;
A and B through --server-metrics or the system account): the report then ends with what the
servers counted and the latency spikes named with what happened then (docs/telemetry.md).
The rate takes a load shape as the other fixed-rate senders do: --rate A..B --ramp D, --steps
R1,R2,... --step-duration D, --arrivals poisson; the Result and the text then give each step's
rate and percentiles (docs/capacity.md).`,
		Example: `  natsperf latency                                        # embedded server, 1000 msgs/s for 5s
  natsperf latency -s nats://a:4222 --server-b nats://b:4222 --rate 1000 --duration 5s --size 512
  natsperf latency -s tls://demo.nats.io:4443 --tls-insecure --hist latency.hgrm
  natsperf latency -s nats://a:4222 --server-b nats://b:4222 --server-metrics http://a:8222,http://b:8222
  natsperf latency --steps 500,1000 --step-duration 1s --duration 2s      # a latency-vs-load curve
  natsperf latency --duration 2s --interval 250ms       # a finer series: spike lines in a short run
  natsperf latency --client-delay 5ms --duration 2s     # 5 ms one way between the clients and the server: P50 >= 10 ms
  natsperf latency --gateways 2 --gateway-delay 5ms --duration 2s   # a supercluster: publish on cluster 1, receive on cluster 2, a 5 ms gateway away`,
		Args: exactArgs(0, "no arguments"),
		RunE: a.specRunE(func(cmd *cobra.Command, _ []string) (*specRun, error) {
			return a.latencySpec(cmd.Flags(), lf)
		}),
	}
	f := cmd.Flags()
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
	return a.specCommand(cmd)
}

func (lf *latencyFlags) validate(f *pflag.FlagSet) error {
	if err := (loadShape{&lf.Rate, &lf.Shape}).validate(f); err != nil {
		return err
	}
	switch {
	case lf.Size < stamp.Size:
		return usagef("--size %d: the latency command needs at least %d bytes per message for its stamp (publisher, sequence, send time); latency-tests' 8-byte default is not enough", lf.Size, stamp.Size)
	case lf.Size > 64<<20:
		return usagef("--size %d is larger than NATS' 64 MiB maximum payload", lf.Size)
	case math.IsNaN(lf.Rate) || (lf.Rate < minRate && len(lf.Shape.Steps) == 0) || lf.Rate > maxRate: // steps give the rate
		return usagef("--rate must be positive, %g to %g messages per second, got %v", minRate, maxRate, lf.Rate)
	case lf.Duration <= 0:
		return usagef("--duration must be positive")
	case lf.Warmup < 0 || lf.Warmup >= lf.Duration:
		return usagef("--warmup must be at least 0 and shorter than --duration")
	case lf.Interval < 10*time.Millisecond:
		return usagef("--interval must be at least 10ms")
	}
	if err := checkOutputFile("--hist", lf.Hist); err != nil {
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

// latencySpec is the latency command line's Spec.
func (a *app) latencySpec(f *pflag.FlagSet, lf latencyFlags) (*specRun, error) {
	if err := lf.validate(f); err != nil {
		return nil, err
	}
	target := a.conn.target() // the system account user's too (telemetry)
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
	return &specRun{spec: s, hist: lf.Hist}, nil
}
