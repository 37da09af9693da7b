// Package capacity finds the highest offered rate at which every threshold of a run holds:
// it steps the rate up geometrically until a probe fails, bisects between the last passing
// and the first failing rate, and repeats the probes at the boundary. The search is pure
// arithmetic over a Probe function, so it is tested without a server.
package capacity

import (
	"context"
	"math"
	"strings"
	"time"

	"github.com/natsperf/natsperf/spec"
)

// Schema names the capacity document's format.
const Schema = "natsperf.capacity/v1"

// Verdicts of a search.
const (
	Found          = "found"           // a capacity between a passing and a failing rate
	AboveMax       = "above-max"       // every probe passed up to --max
	BelowMin       = "below-min"       // the first probe, at --min, failed
	GeneratorBound = "generator-bound" // natsperf itself could not offer the rate
)

// Why a probe was natsperf's limit and not the server's (Probe.Bound).
const (
	BoundCPU   = "cpu"   // natsperf's process used its cores (90% of them, or one per sender)
	BoundShort = "short" // its senders fell short of the offered rate
	BoundBusy  = "busy"  // senders waiting for replies or acks were late for their next send
	BoundTimer = "timer" // mostly idle senders woke up late: timer precision, not capacity
	// BoundInflight: the open model's operations awaiting answers were at their bound
	// (--max-inflight) while the response time from the actual sends held.
	BoundInflight = "inflight"
	// BoundHost: natsperf's host stalled, by half a failed latency limit or more, for long
	// enough to fail it by itself (host.go).
	BoundHost = "host"
)

// Probe is one run at a fixed offered rate.
type Probe struct {
	N        int     `json:"n"`        // 1-based, in the order run
	Offered  float64 `json:"offered"`  // msgs/sec asked for
	Achieved float64 `json:"achieved"` // msgs/sec the senders sent
	// Sent is how many messages the senders sent in the measured part (after the warm-up),
	// merged over every client, process and agent: what the server's counters can check.
	Sent int64 `json:"sent"`
	// Agents names the natsperf agents the probe ran on (--agents); empty for a local run.
	Agents []string `json:"agents,omitempty"`
	// Latency percentiles (ns) of the worst group that recorded latency; -1 without.
	P50  int64 `json:"p50_ns"`
	P99  int64 `json:"p99_ns"`
	P999 int64 `json:"p999_ns"`
	Loss int64 `json:"loss"` // lost messages plus timed-out operations
	Pass bool  `json:"pass"` // every threshold held and the run completed
	// Failed names the thresholds that failed (or why the run did).
	Failed []string `json:"failed,omitempty"`
	// CPUShare is the senders' process CPU over its cores: natsperf's (with an embedded
	// server, the server's too), natsperf-rust's with --client rust, the agents' together
	// across agents; LatenessP99 the senders' P99 send lateness (ns), actual minus intended.
	// Each is -1 when the run did not record it (natsperf-rust has no CPU where getrusage is
	// missing).
	CPUShare    float64 `json:"cpu_share"`
	LatenessP99 int64   `json:"send_lateness_p99_ns"`
	// PacePrecision is the pacing precision its senders ran at (the coarsest of its paced
	// groups' pace_precision_ns): the pacer's share of LatenessP99 is below it.
	PacePrecision time.Duration `json:"pace_precision_ns,omitempty"`
	// GeneratorBound: the senders fell short of the offered rate because natsperf itself
	// could not send it (CPU saturated, or a publisher that never waits for the server).
	GeneratorBound bool `json:"generator_bound,omitempty"`
	// Bound says why a generator-bound probe was natsperf's limit (BoundCPU, BoundShort,
	// BoundBusy, BoundTimer); Bottleneck puts it in words.
	Bound string `json:"bound,omitempty"`
	// Evidence is what decided the probe's verdict, in a few words: natsperf's CPU, a timer
	// late while its senders were idle, its in-flight bound reached while the response time
	// from the actual sends held (natsperf's limit), or the response time from the actual
	// sends, which rises with the load when the system saturates (the system's).
	Evidence string `json:"evidence,omitempty"`
	// HostStallMax is the worst stall of natsperf's own process during the probe (ns): how
	// late a 1ms sleep woke up, when 1ms or more.
	HostStallMax int64 `json:"host_stall_max_ns,omitempty"`
	// HostStalled is the share of the probe's wall time that sleep spent waking up late (its
	// lateness of 1ms or more, summed): time a goroutine of natsperf's process, and of a
	// system sharing it, could not run.
	HostStalled float64 `json:"host_stalled,omitempty"`
	// Drained is false when the pause after the probe was too short for its backlog; Note
	// says so, or anything else about the probe.
	Drained bool    `json:"drained"`
	Note    string  `json:"note,omitempty"`
	Seconds float64 `json:"seconds"` // wall time of the probe, drain included

	sends []fromSends // its failed latency thresholds from the actual sends (Figures)
}

// Outcome is a whole search: its settings, every probe and the capacity found.
type Outcome struct {
	Schema        string           `json:"schema"`
	Command       string           `json:"command"` // the benchmark command line probed
	SLO           []spec.Threshold `json:"slo"`
	Min           float64          `json:"min"`
	Max           float64          `json:"max"`
	ProbeDuration time.Duration    `json:"probe_duration_ns"`
	Warmup        time.Duration    `json:"warmup_ns"`
	Repeats       int              `json:"repeats"`
	Precision     float64          `json:"precision"`
	Probes        []Probe          `json:"probes"`
	Verdict       string           `json:"verdict"` // found, above-max, below-min, generator-bound
	// Capacity is the highest rate that passed (0 when none did); Low and High bound it: the
	// last passing and the first failing rate (High 0: none failed).
	Capacity float64 `json:"capacity"`
	Low      float64 `json:"low"`
	High     float64 `json:"high"`
	// PassRepeats of Repeats probes at Low passed; FailRepeats of Repeats at High failed.
	PassRepeats int `json:"pass_repeats"`
	FailRepeats int `json:"fail_repeats"`
	// GeneratorRate is the offered rate natsperf could not send (verdict generator-bound).
	GeneratorRate float64 `json:"generator_rate,omitempty"`
	// Bound is that probe's Bound; Bottleneck its words.
	Bound      string  `json:"bound,omitempty"`
	Bottleneck string  `json:"bottleneck,omitempty"`
	Seconds    float64 `json:"seconds"` // the search's wall time
}

// Search is how to search and how to probe.
type Search struct {
	Min, Max  float64 // the first rate, and the highest one tried
	Factor    float64 // the geometric step up (0: 2)
	Precision float64 // bisect until (high-low)/low is at most this (0: 0.05)
	Repeats   int     // probes at each side of the boundary (0: 3)
	// Retries is how many times a probe is run again when its machine did not keep up
	// (BoundTimer: its sends left late while it was not at its in-flight bound; BoundHost:
	// its process stalled long enough to fail a latency threshold by itself), before the
	// search stops at it (0: 2; negative: none). A host's stall is passing noise more often
	// than not; a rate is never called the system's limit on a probe natsperf could not run.
	Retries int
	// Probe runs one probe at rate; an error ends the search (the run could not start).
	Probe func(ctx context.Context, rate float64) (Probe, error)
	// Progress, when set, sees each probe as it ends.
	Progress func(Probe)
}

// Run searches, returning what it found so far with any error.
func (s Search) Run(ctx context.Context, o *Outcome) error {
	start := time.Now()
	defer func() { o.Seconds = time.Since(start).Seconds() }()
	factor, precision, repeats := s.Factor, s.Precision, s.Repeats
	if factor <= 1 {
		factor = 2
	}
	if precision <= 0 {
		precision = 0.05
	}
	if repeats <= 0 {
		repeats = 3
	}
	retries := s.Retries
	if retries == 0 {
		retries = 2
	}
	o.Schema, o.Min, o.Max, o.Precision, o.Repeats = Schema, s.Min, s.Max, precision, repeats
	once := func(rate float64) (Probe, error) {
		stop := hostWatch()
		p, err := s.Probe(ctx, rate)
		stalls, span := stop()
		if err != nil {
			return p, err
		}
		p.judgeHost(stalls, span, rate)
		p.N, p.Offered = len(o.Probes)+1, rate
		o.Probes = append(o.Probes, p)
		if s.Progress != nil {
			s.Progress(p)
		}
		return p, ctx.Err()
	}
	probe := func(rate float64) (Probe, error) {
		p, err := once(rate)
		for try := 0; err == nil && (p.Bound == BoundTimer || p.Bound == BoundHost) && try < retries; try++ {
			o.Probes[len(o.Probes)-1].Note = strings.TrimSpace(p.Note + " run again: this machine did not keep up")
			p, err = once(rate)
		}
		return p, err
	}
	generator := func(p Probe, lo float64) error {
		o.Verdict, o.GeneratorRate, o.Low, o.Capacity = GeneratorBound, p.Offered, lo, 0
		o.Bound, o.Bottleneck = p.Bound, p.Bottleneck()
		return nil
	}
	// Up geometrically until a probe fails.
	var lo, hi float64
	for rate := s.Min; ; rate = math.Min(Round(rate*factor), s.Max) {
		p, err := probe(rate)
		if err != nil {
			return err
		}
		if p.GeneratorBound {
			return generator(p, lo)
		}
		if !p.Pass {
			hi = rate
			break
		}
		lo = rate
		if rate >= s.Max {
			o.Verdict, o.Capacity, o.Low, o.PassRepeats = AboveMax, lo, lo, 1
			return nil
		}
	}
	if lo == 0 {
		o.Verdict, o.High, o.FailRepeats = BelowMin, hi, 1
		return nil
	}
	// Bisect.
	for (hi-lo)/lo > precision {
		mid := Round((lo + hi) / 2)
		if mid <= lo || mid >= hi {
			break
		}
		p, err := probe(mid)
		if err != nil {
			return err
		}
		if p.GeneratorBound {
			return generator(p, lo)
		}
		if p.Pass {
			lo = mid
		} else {
			hi = mid
		}
	}
	// Repeat the boundary: how sure is it?
	passes, fails := 1, 1
	for range repeats - 1 {
		p, err := probe(lo)
		if err != nil {
			return err
		}
		if p.Pass {
			passes++
		}
		q, err := probe(hi)
		if err != nil {
			return err
		}
		if !q.Pass {
			fails++
		}
	}
	o.Verdict, o.Capacity, o.Low, o.High, o.PassRepeats, o.FailRepeats = Found, lo, lo, hi, passes, fails
	return nil
}

// Round keeps a rate to three significant digits, so probes are at readable rates.
func Round(x float64) float64 {
	if x <= 0 {
		return x
	}
	p := math.Pow(10, math.Floor(math.Log10(x))-2)
	return math.Round(x/p) * p
}
