package cli

import (
	"context"
	"io"
	"math"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/core"
	"github.com/natsperf/natsperf/internal/latency"
	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/internal/units"
)

// latencyFlags are the latency command's own flags; the connection flags are global.
type latencyFlags struct {
	ServerB  string        `json:"server_b,omitempty"` // redacted in the Result
	Subject  string        `json:"subject"`
	Size     int64         `json:"size"`
	Rate     float64       `json:"rate"`
	Duration time.Duration `json:"duration"`
	Warmup   time.Duration `json:"warmup,omitempty"`
	Hist     string        `json:"hist,omitempty"`
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
Both ends run in this process on one clock, so A and B may be on any hosts (docs/latency.md).`,
		Example: `  natsperf latency                                        # embedded server, 1000 msgs/s for 5s
  natsperf latency -s nats://a:4222 --server-b nats://b:4222 --rate 1000 --duration 5s --size 512
  natsperf latency -s tls://demo.nats.io:4443 --tls-insecure --hist latency.hgrm`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.runLatency(cmd, lf, time.Now())
		},
	}
	f := cmd.Flags()
	f.StringVar(&lf.ServerB, "server-b", "", "server B, where the subscriber connects (default: the --server); uses the same credentials and TLS settings")
	f.StringVar(&lf.Subject, "subject", "", "subject to publish on (default: a fresh inbox, so runs never mix)")
	lf.Size, lf.Rate, lf.Duration = stamp.Size, 1000, 5*time.Second
	f.Var((*sizeValue)(&lf.Size), "size", "message payload size, at least 16 B (the stamp); 24 B or more also carries the actual send time")
	f.Float64Var(&lf.Rate, "rate", lf.Rate, "messages per second")
	f.DurationVar(&lf.Duration, "duration", lf.Duration, "how long to publish")
	f.DurationVar(&lf.Warmup, "warmup", 0, "leave this initial period out of the statistics")
	registerHist(f, &lf.Hist)
	return cmd
}

func (lf *latencyFlags) validate() error {
	switch {
	case lf.Size < stamp.Size:
		return usagef("--size %d: the latency command needs at least %d bytes per message for its stamp (publisher, sequence, send time); latency-tests' 8-byte default is not enough", lf.Size, stamp.Size)
	case lf.Size > 64<<20:
		return usagef("--size %d is larger than NATS' 64 MiB maximum payload", lf.Size)
	case math.IsNaN(lf.Rate) || lf.Rate < minRate || lf.Rate > maxRate:
		return usagef("--rate must be positive, %g to %g messages per second, got %v", minRate, maxRate, lf.Rate)
	case lf.Duration <= 0:
		return usagef("--duration must be positive")
	case lf.Warmup < 0 || lf.Warmup >= lf.Duration:
		return usagef("--warmup must be at least 0 and shorter than --duration")
	}
	if err := checkOutputFile("--hist", lf.Hist); err != nil {
		return err
	}
	if lf.Subject != "" {
		if err := checkPublishSubject("--subject", lf.Subject); err != nil {
			return err
		}
	}
	if n := (pace.Constant{Rate: lf.Rate}).Total(lf.Duration); n < 1 {
		return usagef("--rate %v for --duration %v sends no message", lf.Rate, lf.Duration)
	}
	return nil
}

func (a *app) runLatency(cmd *cobra.Command, lf latencyFlags, started time.Time) error {
	if err := lf.validate(); err != nil {
		return err
	}
	ctx := runCtx(cmd)
	t, err := a.openTarget(ctx, 1)
	if err != nil {
		return err
	}
	defer t.Close()
	b := t.Settings
	if lf.ServerB != "" {
		if t.Embedded != nil {
			return usagef("--server-b needs --server (server A) too: an embedded server cannot exchange messages with another server")
		}
		b.Servers = lf.ServerB
		if _, err := b.URLs(); err != nil {
			return usagef("--server-b: %v", err)
		}
		lf.ServerB = b.Redacted().Servers
	}
	if lf.Subject == "" {
		lf.Subject = nats.NewInbox()
	}
	plan, link := latencyPlan(lf, func(ctx context.Context, name string, opts ...nats.Option) (*nats.Conn, error) {
		return connect.Connect(ctx, b, name, opts...)
	})
	plan.Settings = lf
	bf := benchFlags{
		Clients: 1, Msgs: plan.Groups[0].Expected(), Size: lf.Size, Rate: lf.Rate,
		Duration: lf.Duration, Warmup: lf.Warmup, Interval: time.Second, Hist: lf.Hist,
	}
	return a.execute(cmd, t, plan, bf, runHooks{
		logf: func(string, ...any) {}, // latency-tests' layout has no start lines
		text: func(w io.Writer, res *result.Result) error {
			pubRTT, subRTT := link.RTTs()
			rep := latency.FromResult(res, started, pubRTT, subRTT, lf.Size, lf.Duration, lf.Rate)
			if err := rep.Write(w); err != nil {
				return err
			}
			return report.StopLine(w, res)
		},
	})
}

// latencyPlan is one fixed-rate publisher (the runner's dialer: server A) and one subscriber
// (dialB: server B), tied by a link.
func latencyPlan(lf latencyFlags, dialB bench.Dialer) (*bench.Plan, *latency.Link) {
	link := latency.NewLink(lf.Subject)
	msgs := int64((pace.Constant{Rate: lf.Rate}).Total(lf.Duration))
	pcfg := core.PubConfig{Subject: lf.Subject, Size: int(lf.Size), Rate: lf.Rate, Duration: lf.Duration, IDs: stamp.NewIDs()}
	plan := &bench.Plan{
		Command: "latency", Title: "Core NATS latency test",
		Params: params(map[string]string{
			"msg-size": units.FormatSize(lf.Size), "rate": units.Comma(int64(lf.Rate)) + "/s",
			"duration": lf.Duration.String(), "subject": lf.Subject,
		}),
		Latency: true,
		Groups: []*bench.Group{
			{
				Name: "pub", Kind: "Core NATS publisher", Verb: "publishing", Clients: 1,
				Shares: []int64{msgs}, Producer: true, Rate: lf.Rate,
				New: func(int) bench.Client { return latency.NewPublisher(pcfg, link) },
			},
			{
				Name: "sub", Kind: "Core NATS subscriber", Verb: "expecting", Clients: 1,
				Shares: []int64{msgs}, Dial: dialB, HearsProducers: true,
				New: func(int) bench.Client { return latency.NewSubscriber(link) },
			},
		},
	}
	return plan, link
}
