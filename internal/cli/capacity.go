package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// capacityFlags are capacity's own flags; every other flag belongs to the command it probes.
type capacityFlags struct {
	min, max  float64
	probe     time.Duration
	repeats   int
	precision float64
	drain     time.Duration
	html      string
}

const (
	defaultProbe   = 5 * time.Second
	defaultWarmup  = time.Second
	maxDrain       = 30 * time.Second
	defaultCapMin  = 1000
	defaultCapMax  = 1e6
	capacityGrowth = 2
)

// openLoop are the kinds whose senders never wait for the server: a shortfall in what they
// sent is natsperf's own.
var openLoop = map[string]bool{"pub": true, "pubsub": true, "latency": true}

func (a *app) capacityCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "capacity COMMAND [ARGS] --slo SLO... [--min R] [--max R] [--probe-duration D] [--warmup D]",
		Short: "Find the highest rate a deployment carries while every --slo threshold holds",
		Long: `Find the capacity of a deployment: the highest offered rate at which every threshold (--slo)
holds for a sustained probe. COMMAND is any fixed-rate benchmark command line (pub, pubsub,
service request, js pub sync|async, kv put, latency) with its own flags; capacity runs it again
and again at fixed rates: up geometrically from --min until a threshold fails, then bisecting
between the last passing and the first failing rate, then --repeats probes at each side of the
boundary.

Thresholds: 'p99<5ms', 'p99.9<20ms' (latency percentiles, from each message's intended send
time), 'loss=0' (lost messages and timed-out requests), 'rate>=0.99' (achieved over offered).

Between probes it pauses for the backlog to drain (what a probe left unanswered, at its achieved
rate, at least --drain) and says when it could not. Every probe records natsperf's own CPU share
and how late its senders were; when the senders could not offer a rate themselves, the search
stops and says the load generator was the bottleneck instead of calling it the server's limit
(add clients or agents; add --clients when requesters were busy waiting for replies), or, when
they only woke up late while natsperf was mostly idle, that the threshold is finer than this
machine's timer precision.
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
			cf, rest, err := parseCapacityFlags(args)
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
	fs.Float64Var(&cf.min, "min", cf.min, "the first (lowest) offered rate probed, msgs/s")
	fs.Float64Var(&cf.max, "max", cf.max, "the highest offered rate probed, msgs/s")
	fs.DurationVar(&cf.probe, "probe-duration", cf.probe, "the measured part of each probe (after --warmup)")
	fs.IntVar(&cf.repeats, "repeats", cf.repeats, "probes at each side of the boundary, 1 to 20")
	fs.Float64Var(&cf.precision, "precision", cf.precision, "bisect until the bounds are within this fraction of each other")
	fs.DurationVar(&cf.drain, "drain", cf.drain, "the least pause between probes, for the backlog to drain")
	fs.StringVar(&cf.html, "html", cf.html, "write the curve to FILE: latency (log axis) and achieved rate against offered rate, the SLO line, the knee")
}

// defaultCapacityFlags are capacity's defaults (and a scenario's capacity: left unset).
func defaultCapacityFlags() capacityFlags {
	return capacityFlags{min: defaultCapMin, max: defaultCapMax, probe: defaultProbe, repeats: 3, precision: 0.05, drain: time.Second}
}

// parseCapacityFlags takes capacity's own flags out of args; the rest is the command probed.
func parseCapacityFlags(args []string) (capacityFlags, []string, error) {
	cf := defaultCapacityFlags()
	fs := pflag.NewFlagSet("capacity", pflag.ContinueOnError)
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
		return cf, nil, usageError{err}
	}
	switch {
	case !(cf.min >= minRate) || cf.max > maxRate || !(cf.max >= cf.min):
		return cf, nil, usagef("--min and --max must be rates with %g <= --min <= --max <= %g, got %v and %v", minRate, cf.min, cf.max, maxRate)
	case cf.probe < 100*time.Millisecond:
		return cf, nil, usagef("--probe-duration must be at least 100ms, got %v", cf.probe)
	case cf.repeats < 1 || cf.repeats > 20:
		return cf, nil, usagef("--repeats must be 1 to 20, got %d", cf.repeats)
	case !(cf.precision > 0 && cf.precision < 1):
		return cf, nil, usagef("--precision must be between 0 and 1, got %v", cf.precision)
	case cf.drain < 0:
		return cf, nil, usagef("--drain must not be negative")
	}
	if err := checkOutputFile("--html", cf.html); err != nil {
		return cf, nil, err
	}
	return cf, rest, nil
}

// capacity builds the probed command's Spec once and searches over its rate.
func (a *app) capacity(cmd *cobra.Command, cf capacityFlags, args []string) error {
	target, sr, err := a.commandSpec(cmd, args, "capacity probes "+fixedRateKinds)
	if err != nil {
		return err
	}
	base := sr.spec
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
	if err := searchable(base); err != nil {
		return usageError{err}
	}
	if err := checkOutputFile("-o", a.out.File); err != nil {
		return err
	}
	warmup := base.Warmup.D()
	if fl := target.Flags().Lookup("warmup"); fl == nil || !fl.Changed {
		warmup = defaultWarmup
	}
	if err := probeSpec(base, cf, warmup, cf.min).Validate(); err != nil {
		return usageError{err}
	}
	ctx := runCtx(cmd)
	o, _, serr := a.searchCapacity(ctx, base, cf, warmup, a.runOptions(), func(p capacity.Probe) {
		fmt.Fprintln(a.streams.Err, report.ProbeLine(p))
	})
	o.Command = strings.Join(args, " ")
	if serr != nil && len(o.Probes) == 0 {
		return serr
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
		return serr
	}
	if o.Verdict == capacity.BelowMin || o.Verdict == capacity.GeneratorBound {
		return exitCode(exitSLO)
	}
	return nil
}

// searchPrecision is the pacing precision a search's probes use unless --pace-precision (the
// Spec's pace_precision) says, wherever they run (here, on agents, in natsperf-rust): a
// tenth of its tightest latency threshold, within 250us and 500us, or the default 1ms when no
// threshold is under 20ms. At 1ms the process's shared pacer sleeps on Go's timer and a send
// may leave up to about 2ms late, which a search at p99<10ms would charge to the server (or
// call the generator's limit); a finer precision costs natsperf CPU, which a search can
// afford (docs/capacity.md).
func searchPrecision(slos []spec.Threshold) time.Duration {
	d := time.Millisecond
	for _, t := range slos {
		if limit, ok := t.Latency(); ok && limit < 20*time.Millisecond {
			d = min(d, limit/10, 500*time.Microsecond)
		}
	}
	return max(d, 250*time.Microsecond)
}

// probeSpec is base at a fixed rate for warmup plus cf.probe, paced at the search's precision
// unless base gives one.
func probeSpec(base *spec.Spec, cf capacityFlags, warmup time.Duration, rate float64) *spec.Spec {
	s := *base
	if s.PacePrecision == 0 {
		s.PacePrecision = spec.Duration(searchPrecision(base.SLO))
	}
	s.Workloads = append([]spec.Workload(nil), base.Workloads...)
	w := &s.Workloads[0]
	w.Pacing.Rate, w.Pacing.Msgs, w.Pacing.Duration = rate, 0, spec.Duration(cf.probe+warmup)
	s.Warmup = spec.Duration(warmup)
	return &s
}

// searchCapacity searches base's rate, each probe through runner.Run with opts (here,
// through natsperf-rust or across agents, on a scenario's shared targets). It returns the
// search, the Result of the probe at the capacity (of the last probe when none passed),
// and the error that ended the search early, if any.
func (a *app) searchCapacity(ctx context.Context, base *spec.Spec, cf capacityFlags, warmup time.Duration, opts runner.Options, progress func(capacity.Probe)) (*capacity.Outcome, *runner.Result, error) {
	o := &capacity.Outcome{SLO: base.SLO, ProbeDuration: cf.probe, Warmup: warmup}
	open := openLoop[base.Workloads[0].Kind()]
	var best, last *runner.Result
	var bestRate float64
	search := capacity.Search{
		Min: cf.min, Max: cf.max, Factor: capacityGrowth, Precision: cf.precision, Repeats: cf.repeats,
		Probe: func(ctx context.Context, rate float64) (capacity.Probe, error) {
			started := time.Now()
			res, err := runner.Run(ctx, probeSpec(base, cf, warmup, rate), opts)
			if err != nil {
				return capacity.Probe{}, a.runError(ctx.Err(), err)
			}
			p := capacity.Figures(res, rate, open)
			last = res
			if p.Pass && rate >= bestRate {
				best, bestRate = res, rate
			}
			drainAfter(ctx, &p, cf.drain)
			p.Seconds = time.Since(started).Seconds()
			return p, nil
		},
		Progress: progress,
	}
	err := search.Run(ctx, o)
	if best == nil {
		best = last
	}
	return o, best, err
}

// searchable says why capacity cannot search s, if it cannot: it probes one fixed-rate
// workload, whose rate it sets (a load shape or --sleep would fight it).
func searchable(s *spec.Spec) error {
	if len(s.Workloads) != 1 {
		return fmt.Errorf("a capacity search probes one workload, not %d", len(s.Workloads))
	}
	if kind := s.Workloads[0].Kind(); !fixedRate[kind] {
		return fmt.Errorf("%s has no fixed rate: capacity probes %s", kind, fixedRateKinds)
	}
	if p := s.Workloads[0].Pacing; p.RateTo > 0 || len(p.Steps) > 0 || p.Sleep > 0 {
		return errors.New("capacity sets the rate of each probe: give the workload no --rate A..B, --steps or --sleep")
	}
	return nil
}

// checkCapacityArgs says, when a scenario with capacity: loads, whether its workload's
// command line can be searched; one that does not parse is checkWorkloadArgs's to report.
func (a *app) checkCapacityArgs(args []string) error {
	s, err := a.workloadSpec(args)
	if err != nil {
		return nil
	}
	return searchable(s)
}

// fixedRate are the kinds capacity can probe, as fixedRateKinds lists them.
var fixedRate = map[string]bool{"pub": true, "pubsub": true, "service request": true, "js pub sync": true, "js pub async": true, "kv put": true, "latency": true}

const fixedRateKinds = "pub, pubsub, service request, js pub sync|async, kv put or latency"

// drainAfter pauses after a probe for its backlog: what it left unanswered (lost or timed
// out), at the rate it achieved, at least least; capped at maxDrain, which it notes.
func drainAfter(ctx context.Context, p *capacity.Probe, least time.Duration) {
	wait := least
	if p.Loss > 0 && p.Achieved > 0 {
		wait = max(wait, time.Duration(float64(p.Loss)/p.Achieved*float64(time.Second)))
	}
	if wait > maxDrain {
		wait = maxDrain
		p.Drained = false
		p.Note = strings.TrimSpace(p.Note + " could not drain: " + strconv.FormatInt(p.Loss, 10) + " messages left unanswered may still be queued")
	}
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
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

// cellCapacity searches a scenario cell's capacity instead of running it once: the search
// goes to DIR/NAME.capacity.json (named in ir), and the Result returned is the probe's at
// the capacity (the last probe's when none passed), the cell's Result.
func (a *app) cellCapacity(ctx context.Context, c *scenario.Capacity, s *spec.Spec, o runner.Options, dir, name string, ir *scenario.IndexRun) (*runner.Result, error) {
	if err := searchable(s); err != nil { // checked when the file loaded (checkCapacityArgs)
		return nil, fmt.Errorf("capacity: %w", err)
	}
	cf := defaultCapacityFlags()
	warmup := defaultWarmup
	if c.Min > 0 {
		cf.min = c.Min
	}
	if c.Max > 0 {
		cf.max = c.Max
	}
	cf.max = max(cf.max, cf.min)
	if c.ProbeDuration > 0 {
		cf.probe = time.Duration(c.ProbeDuration)
	}
	if c.Warmup > 0 {
		warmup = time.Duration(c.Warmup)
	}
	if c.Repeats > 0 {
		cf.repeats = c.Repeats
	}
	if c.Precision > 0 {
		cf.precision = c.Precision
	}
	if c.Drain > 0 {
		cf.drain = time.Duration(c.Drain)
	}
	if err := probeSpec(s, cf, warmup, cf.min).Validate(); err != nil {
		return nil, err
	}
	out, res, serr := a.searchCapacity(ctx, s, cf, warmup, o, nil)
	out.Command = "scenario cell " + name
	ir.Capacity = name + ".capacity.json"
	if err := writeFile(filepath.Join(dir, ir.Capacity), func(w io.Writer) error { return writeJSON(w, out) }); err != nil {
		return nil, err
	}
	fmt.Fprintf(a.streams.Out, "  %s\n", report.CapacityLine(out))
	if res == nil {
		if serr == nil {
			serr = errors.New("capacity: the search ran no probe")
		}
		return nil, serr
	}
	return res, nil
}
