package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/campaign"
	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/internal/cmdline"
	"github.com/natsperf/natsperf/internal/report"
)

// capacityFlags are capacity's own flags; every other flag belongs to the command it probes.
// --warmup is the probed command's (capacity only changes its default).
type capacityFlags struct {
	campaign.Capacity
	html string
}

func (a *app) capacityCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "capacity COMMAND [ARGS] --slo SLO... [--min R] [--max R] [--probe-duration D] [--warmup D]",
		Short: "Find the highest rate a deployment carries while every --slo threshold holds",
		Long: `Find the capacity of a deployment: the highest offered rate at which every threshold (--slo)
holds for a sustained probe. COMMAND is any fixed-rate benchmark command line (pub, pubsub,
service request, js pub sync|async, kv put, latency) with its own flags; capacity runs it again
and again at fixed rates: up geometrically from --min until a threshold fails, then bisecting
between the last passing and the first failing rate until they are within --bisect-precision of
each other, then --repeats probes at each side of the boundary.

Thresholds: 'p99<5ms', 'p99.9<20ms' (latency percentiles, from each message's intended send
time), 'loss=0' (lost messages and timed-out requests), 'rate>=0.99' (achieved over offered).

Between probes it pauses for the backlog to drain (what a probe left unanswered, at its achieved
rate, at least --drain) and says when it could not. Requests, js pub sync and kv put keep the
offered rate with up to --max-inflight operations awaiting answers. Every probe records
natsperf's own CPU share, how late its senders were, how many waited at the in-flight bound and
how long natsperf's own process stalled; a failure is natsperf's only on that evidence, and
otherwise the threshold decides (a response time that rises with the load is the system's
limit). A probe natsperf's own machine disturbed runs again, up to 3 times; then the search
stops and says the load generator, or this machine, was the bottleneck instead of calling it
the server's limit. The evidence column of the probe table says what decided.
Without a server (-s), each probe starts a fresh embedded server.

Prints every probe, then the capacity line; --json prints the search as JSON (natsperf.capacity/v1)
and -o saves it. Exit 0 when a capacity was found (or every probe passed up to --max), 6 when none
holds at --min or the load generator was the bottleneck; docs/capacity.md.

Capacity's own flags are listed under Flags; every other flag belongs to COMMAND (see its
--help). --warmup (the command's flag) defaults to 1s here.`,
		Example: `  natsperf capacity pubsub cap.demo --slo 'p99<1s' --min 500 --max 2000 --probe-duration 300ms --warmup 100ms --repeats 1 --html cap.html
  natsperf service serve cap.svc -s nats://127.0.0.1:4222 &
  natsperf capacity service request cap.svc -s nats://127.0.0.1:4222 --slo 'p99<1s' --slo 'loss=0' --min 100 --max 400 --probe-duration 300ms --repeats 1 --json`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
				return cmd.Help()
			}
			cf, rest, err := parseCapacityFlags(args, a.streams.Err)
			if err != nil {
				return err
			}
			return a.capacity(cmd, cf, rest)
		},
	}
	// Flag parsing is capacity's own (the rest of the line is COMMAND's), so these are
	// registered here for --help and completion only; parseCapacityFlags parses them.
	defaults := defaultCapacityFlags()
	defaults.register(cmd.Flags())
	return cmd
}

// register adds capacity's own flags, with their help, to fs.
func (cf *capacityFlags) register(fs *pflag.FlagSet) {
	fs.Float64Var(&cf.Min, "min", cf.Min, "the first (lowest) offered rate probed, msgs/s")
	fs.Float64Var(&cf.Max, "max", cf.Max, "the highest offered rate probed, msgs/s")
	fs.DurationVar(&cf.Probe, "probe-duration", cf.Probe, "the measured part of each probe (after --warmup)")
	fs.IntVar(&cf.Repeats, "repeats", cf.Repeats, "probes at each side of the boundary, 1 to 20")
	fs.Float64Var(&cf.BisectPrecision, "bisect-precision", cf.BisectPrecision, "bisect until the bounds are within this fraction of each other")
	// The old name, for command lines written before: hidden, and it says to use the new one.
	fs.Float64Var(&cf.BisectPrecision, "precision", cf.BisectPrecision, "the old name of --bisect-precision")
	_ = fs.MarkDeprecated("precision", "use --bisect-precision (--pace-precision is the pacing's)")
	fs.DurationVar(&cf.Drain, "drain", cf.Drain, "the least pause between probes, for the backlog to drain")
	fs.StringVar(&cf.html, "html", cf.html, "write the curve to FILE: latency (log axis) and achieved rate against offered rate, the SLO line, the knee")
}

// defaultCapacityFlags are capacity's defaults.
func defaultCapacityFlags() capacityFlags {
	return capacityFlags{Capacity: campaign.DefaultCapacity()}
}

// parseCapacityFlags takes capacity's own flags out of args; the rest is the command probed.
// Notices (a deprecated flag's) go to log.
func parseCapacityFlags(args []string, log io.Writer) (capacityFlags, []string, error) {
	cf := defaultCapacityFlags()
	fs := pflag.NewFlagSet("capacity", pflag.ContinueOnError)
	fs.SetOutput(log)
	cf.register(fs)
	var own, rest []string
	for i := 0; i < len(args); i++ {
		name, _, hasValue := strings.Cut(strings.TrimLeft(args[i], "-"), "=")
		if !strings.HasPrefix(args[i], "--") || fs.Lookup(name) == nil {
			rest = append(rest, args[i])
			continue
		}
		own = append(own, args[i])
		if !hasValue && i+1 < len(args) {
			own = append(own, args[i+1])
			i++
		}
	}
	if err := fs.Parse(own); err != nil {
		return cf, nil, usageError{Err: err}
	}
	switch {
	case !(cf.Min >= cmdline.MinRate) || cf.Max > cmdline.MaxRate || !(cf.Max >= cf.Min):
		return cf, nil, usagef("--min and --max must be rates with %g <= --min <= --max <= %g, got %v and %v", cmdline.MinRate, cf.Min, cf.Max, cmdline.MaxRate)
	case cf.Probe < 100*time.Millisecond:
		return cf, nil, usagef("--probe-duration must be at least 100ms, got %v", cf.Probe)
	case cf.Repeats < 1 || cf.Repeats > 20:
		return cf, nil, usagef("--repeats must be 1 to 20, got %d", cf.Repeats)
	case !(cf.BisectPrecision > 0 && cf.BisectPrecision < 1):
		return cf, nil, usagef("--bisect-precision must be between 0 and 1, got %v", cf.BisectPrecision)
	case cf.Drain < 0:
		return cf, nil, usagef("--drain must not be negative")
	}
	if err := checkOutputFile("--html", cf.html); err != nil {
		return cf, nil, err
	}
	return cf, rest, nil
}

// capacity builds the probed command's Spec once and searches over its rate
// (campaign.Capacity.Search).
func (a *app) capacity(cmd *cobra.Command, cf capacityFlags, args []string) error {
	target, sr, err := a.commandSpec(cmd, args, "capacity probes "+campaign.FixedRateKinds)
	if err != nil {
		return err
	}
	base := sr.Spec
	for _, f := range []string{"rate", "msgs", "duration", "steps", "ramp", "sleep"} {
		if fl := target.Flags().Lookup(f); fl != nil && fl.Changed {
			return usagef("--%s is capacity's to set: it probes fixed rates for --probe-duration", f)
		}
	}
	// Probes run through runner.Run, wherever the flags say: here, through natsperf-rust
	// (--client rust) or across agents (--agents).
	if err := a.distributedCheck(); err != nil {
		return err
	}
	if err := a.clientBinCheck(base); err != nil {
		return err
	}
	if len(base.SLO) == 0 {
		return usagef("capacity needs at least one --slo threshold, e.g. --slo 'p99<5ms'")
	}
	if err := campaign.Searchable(base); err != nil {
		return usageError{Err: err}
	}
	if err := checkOutputFile("-o", a.out.File); err != nil {
		return err
	}
	if fl := target.Flags().Lookup("warmup"); fl != nil && fl.Changed {
		cf.Warmup = base.Warmup.D()
	}
	if err := cf.ProbeSpec(base, cf.Min).Validate(); err != nil {
		return usageError{Err: err}
	}
	ctx := runCtx(cmd)
	o, _, serr := cf.Search(ctx, base, a.runOptions(), func(p capacity.Probe) {
		fmt.Fprintln(a.streams.Err, report.ProbeLine(p))
	})
	o.Command = strings.Join(args, " ")
	if serr != nil && len(o.Probes) == 0 {
		return a.runError(ctx.Err(), serr)
	}
	if err := a.renderCapacity(o); err != nil {
		return err
	}
	if cf.html != "" {
		if err := writeFile(cf.html, func(w io.Writer) error { return report.CapacityHTML(w, o) }); err != nil {
			return fmt.Errorf("--html %s: %w", cf.html, err)
		}
	}
	if serr != nil {
		if ctx.Err() != nil {
			return exitCode(exitInterrupted)
		}
		return a.runError(nil, serr)
	}
	if o.Verdict == capacity.BelowMin || o.Verdict == capacity.GeneratorBound {
		return exitCode(exitSLO)
	}
	return nil
}

// checkCapacityArgs says, when a scenario with capacity: loads, whether its workload's
// command line can be searched; one that does not parse is the scenario check's to report.
func (a *app) checkCapacityArgs(args []string) error {
	s, err := cmdline.Workload(args)
	if err != nil {
		return nil
	}
	return campaign.Searchable(s)
}

// renderCapacity prints the search (or its JSON) and saves it with -o.
func (a *app) renderCapacity(o *capacity.Outcome) error {
	var err error
	if a.out.JSON {
		err = writeJSON(a.streams.Out, o)
	} else {
		err = report.Capacity(a.streams.Out, o)
	}
	if err != nil {
		return err
	}
	if a.out.File != "" {
		if err := writeFile(a.out.File, func(w io.Writer) error { return writeJSON(w, o) }); err != nil {
			return fmt.Errorf("-o %s: %w", a.out.File, err)
		}
		if !a.out.JSON {
			fmt.Fprintf(a.streams.Out, "\nSearch saved to %s\n", a.out.File)
		}
	}
	return nil
}

// writeFile writes path with write.
func writeFile(path string, write func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
