// Package slo judges a Result against the thresholds a run must hold (--slo 'p99<5ms',
// 'loss=0', 'rate>=0.99'), which the Spec carries already read (spec.Threshold).
package slo

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// Judge judges res against ts, in order.
func Judge(res *result.Result, ts []spec.Threshold) []result.Verdict {
	out := make([]result.Verdict, 0, len(ts))
	for _, t := range ts {
		v := result.Verdict{SLO: t.Text, Metric: t.Metric, P: t.P, Op: t.Op, Limit: t.Limit}
		var ok bool
		v.Value, ok, v.Missing = Measure(res, t)
		v.Pass = ok && t.Holds(v.Value)
		out = append(out, v)
	}
	return out
}

// Of is the threshold a verdict judged, from the verdict's own fields (no text read again). A
// verdict from before they were recorded (no metric) is read from its text.
func Of(v result.Verdict) spec.Threshold {
	if v.Metric == "" {
		t, _ := spec.ParseThreshold(v.SLO)
		return t
	}
	return spec.Threshold{Text: v.SLO, Metric: v.Metric, P: v.P, Op: v.Op, Limit: v.Limit}
}

// Measure is the value a threshold judges on res: a latency percentile over the worst group
// that recorded latency, the messages lost (Result.Loss) plus requests and publishes that
// timed out, or the lowest achieved-to-offered rate of the fixed-rate groups. ok is false, with
// why, when res has nothing to judge.
func Measure(res *result.Result, t spec.Threshold) (v float64, ok bool, missing string) {
	switch t.Metric {
	case "loss":
		n := res.Loss()
		for _, g := range res.Groups {
			n += g.Aggregate.Events.Timeouts
		}
		return float64(n), true, ""
	case "rate":
		found := false
		for _, g := range res.Groups {
			if g.TargetRate <= 0 {
				continue
			}
			r := g.Aggregate.MsgsPerSec / g.TargetRate
			if !found || r < v {
				v = r
			}
			found = true
		}
		if !found {
			return 0, false, "no fixed rate (--rate): no offered rate to compare with"
		}
		return v, true, ""
	}
	return worst(res, t.P, func(l *result.Latency) *result.Latency { return l })
}

// Uncorrected is a percentile threshold's value from each message's actual send instead of
// its intended one (Latency.Uncorrected, kept at fixed rates): what the latency would be had
// the senders kept their schedule. ok is false without it.
func Uncorrected(res *result.Result, t spec.Threshold) (v float64, ok bool) {
	if t.Metric != "p" {
		return 0, false
	}
	v, ok, _ = worst(res, t.P, func(l *result.Latency) *result.Latency {
		if l == nil {
			return nil
		}
		return l.Uncorrected
	})
	return v, ok
}

// worst is percentile p of the group whose latency (as pick reads it) is the highest.
func worst(res *result.Result, p float64, pick func(*result.Latency) *result.Latency) (v float64, ok bool, missing string) {
	found := false
	for _, g := range res.Groups {
		x, have := percentile(pick(g.Aggregate.Latency), p)
		if have && (!found || float64(x) > v) {
			v, found = float64(x), true
		}
	}
	if !found {
		return 0, false, "no latency recorded"
	}
	return v, true, ""
}

// percentile reads p from a latency summary: its table when p is there, its histogram
// otherwise.
func percentile(l *result.Latency, p float64) (int64, bool) {
	if l == nil || l.Count == 0 {
		return 0, false
	}
	for _, row := range l.Percentiles {
		if row.P == p {
			return row.Ns, true
		}
	}
	if l.Histogram == "" {
		return 0, false
	}
	h, err := hdrhistogram.Decode([]byte(l.Histogram))
	if err != nil {
		return 0, false
	}
	return h.ValueAtQuantile(p), true
}
