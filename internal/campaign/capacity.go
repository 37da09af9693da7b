package campaign

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// Capacity is how to search a command's capacity: capacity's own flags, or a scenario cell's
// capacity: block.
type Capacity struct {
	// Min is the first (lowest) offered rate probed, Max the highest, in msgs/s.
	Min, Max float64
	// Probe is the measured part of each probe, after Warmup.
	Probe, Warmup time.Duration
	// Repeats is the number of probes at each side of the boundary.
	Repeats int
	// BisectPrecision: bisect until the bounds are within this fraction of each other.
	BisectPrecision float64
	// Drain is the least pause between probes, for the backlog to drain.
	Drain time.Duration
}

// Capacity's defaults; a probe's backlog is drained for at most maxDrain.
const (
	DefaultMin    = 1000
	DefaultMax    = 1e6
	DefaultProbe  = 5 * time.Second
	DefaultWarmup = time.Second
	maxDrain      = 30 * time.Second
	growth        = 2
)

// DefaultCapacity is capacity's defaults (and a scenario's capacity: left unset).
func DefaultCapacity() Capacity {
	return Capacity{Min: DefaultMin, Max: DefaultMax, Probe: DefaultProbe, Warmup: DefaultWarmup, Repeats: 3, BisectPrecision: 0.05, Drain: time.Second}
}

// FixedRateKinds lists the kinds capacity can probe, as fixedRate holds them.
const FixedRateKinds = "pub, pubsub, service request, js pub sync|async, kv put or latency"

var fixedRate = map[string]bool{"pub": true, "pubsub": true, "service request": true, "js pub sync": true, "js pub async": true, "kv put": true, "latency": true}

// openLoop are the kinds whose senders never wait for the server: a shortfall in what they
// sent is natsperf's own.
var openLoop = map[string]bool{"pub": true, "pubsub": true, "latency": true}

// Searchable says why capacity cannot search s, if it cannot: it probes one fixed-rate
// workload, whose rate it sets (a load shape or --sleep would fight it).
func Searchable(s *spec.Spec) error {
	if len(s.Workloads) != 1 {
		return fmt.Errorf("a capacity search probes one workload, not %d", len(s.Workloads))
	}
	if kind := s.Workloads[0].Kind(); !fixedRate[kind] {
		return fmt.Errorf("%s has no fixed rate: capacity probes %s", kind, FixedRateKinds)
	}
	if p := s.Workloads[0].Pacing; p.RateTo > 0 || len(p.Steps) > 0 || p.Sleep > 0 {
		return errors.New("capacity sets the rate of each probe: give the workload no --rate A..B, --steps or --sleep")
	}
	return nil
}

// SearchPrecision is the pacing precision a search's probes use unless --pace-precision (the
// Spec's pace_precision) says, wherever they run (here, on agents, in natsperf-rust): a
// tenth of its tightest latency threshold, within 250us and 500us, or 0 (the run's default,
// chosen from each probe's rate: 1ms up to 10,000 msgs/s a wake-up, finer above) when no
// threshold is under 20ms. At 1ms the process's shared pacer sleeps on Go's timer and a send
// may leave up to about 2ms late, which a search at p99<10ms would charge to the server (or
// call the generator's limit); a finer precision costs natsperf CPU, which a search can
// afford (docs/capacity.md).
func SearchPrecision(slos []spec.Threshold) time.Duration {
	var d time.Duration
	for _, t := range slos {
		if limit, ok := t.Latency(); ok && limit < 20*time.Millisecond {
			d = min(cmp.Or(d, 500*time.Microsecond), limit/10)
		}
	}
	if d == 0 {
		return 0
	}
	return max(d, 250*time.Microsecond)
}

// ProbeSpec is base at a fixed rate for c.Warmup plus c.Probe, paced at the search's
// precision unless base gives one (none: each probe's precision is chosen from its rate).
func (c Capacity) ProbeSpec(base *spec.Spec, rate float64) *spec.Spec {
	s := *base
	if s.PacePrecision == 0 {
		s.PacePrecision = spec.Duration(SearchPrecision(base.SLO))
	}
	s.Workloads = append([]spec.Workload(nil), base.Workloads...)
	w := &s.Workloads[0]
	w.Pacing.Rate, w.Pacing.Msgs, w.Pacing.Duration = rate, 0, spec.Duration(c.Probe+c.Warmup)
	s.Warmup = spec.Duration(c.Warmup)
	return &s
}

// Search searches base's rate, each probe through runner.Run with opts (here, through
// natsperf-rust or across agents, on a scenario's shared targets), progress (when set)
// seeing each probe as it ends. It returns the search, the Result of the probe at the
// capacity (of the last probe when none passed), and the error that ended the search early,
// if any: runner.Run's when a probe could not start, or the context's.
func (c Capacity) Search(ctx context.Context, base *spec.Spec, opts runner.Options, progress func(capacity.Probe)) (*capacity.Outcome, *result.Result, error) {
	o := &capacity.Outcome{SLO: base.SLO, ProbeDuration: c.Probe, Warmup: c.Warmup}
	open := openLoop[base.Workloads[0].Kind()]
	var best, last *result.Result
	var bestRate float64
	search := capacity.Search{
		Min: c.Min, Max: c.Max, Factor: growth, Precision: c.BisectPrecision, Repeats: c.Repeats,
		Probe: func(ctx context.Context, rate float64) (capacity.Probe, error) {
			started := time.Now()
			res, err := runner.Run(ctx, c.ProbeSpec(base, rate), opts)
			if err != nil {
				return capacity.Probe{}, err
			}
			p := capacity.Figures(res, rate, open)
			last = res
			if p.Pass && rate >= bestRate {
				best, bestRate = res, rate
			}
			drainAfter(ctx, &p, c.Drain)
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

// cellCapacity is a scenario file's capacity: block over the defaults.
func cellCapacity(b *scenario.Capacity) Capacity {
	c := DefaultCapacity()
	if b.Min > 0 {
		c.Min = b.Min
	}
	if b.Max > 0 {
		c.Max = b.Max
	}
	c.Max = max(c.Max, c.Min)
	if b.ProbeDuration > 0 {
		c.Probe = time.Duration(b.ProbeDuration)
	}
	if b.Warmup > 0 {
		c.Warmup = time.Duration(b.Warmup)
	}
	if b.Repeats > 0 {
		c.Repeats = b.Repeats
	}
	if b.BisectPrecision > 0 {
		c.BisectPrecision = b.BisectPrecision
	} else if b.Precision > 0 {
		c.BisectPrecision = b.Precision
	}
	if b.Drain > 0 {
		c.Drain = time.Duration(b.Drain)
	}
	return c
}

// capacity searches the cell's capacity instead of running it once: the search goes to
// DIR/NAME.capacity.json (named in ir), and the Result returned is the probe's at the
// capacity (the last probe's when none passed), the cell's Result.
func (r cell) capacity(ctx context.Context, s *spec.Spec, o runner.Options, name string, ir *scenario.IndexRun) (*result.Result, error) {
	if err := Searchable(s); err != nil { // checked when the file loaded (scenario.Options.CheckCapacity)
		return nil, fmt.Errorf("capacity: %w", err)
	}
	c := cellCapacity(r.c.File.Capacity)
	if err := c.ProbeSpec(s, c.Min).Validate(); err != nil {
		return nil, err
	}
	out, res, serr := c.Search(ctx, s, o, nil)
	out.Command = "scenario cell " + name
	ir.Capacity = name + ".capacity.json"
	if err := writeJSONFile(filepath.Join(r.o.Dir, ir.Capacity), out); err != nil {
		return nil, err
	}
	fmt.Fprintf(r.o.Out, "  %s\n", report.CapacityLine(out))
	if res == nil {
		if serr == nil {
			serr = errors.New("capacity: the search ran no probe")
		}
		return nil, serr
	}
	return res, nil
}

// writeJSONFile writes v to path as indented JSON, as capacity -o does.
func writeJSONFile(path string, v any) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(f)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
