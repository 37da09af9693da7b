// Package slo reads thresholds a run must hold (--slo 'p99<5ms', 'loss=0', 'rate>=0.99') and
// judges a Result against them.
package slo

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/result"
)

// Threshold is one parsed SLO.
type Threshold struct {
	Text   string  // as given
	Metric string  // "p" (a latency percentile), "loss" or "rate"
	P      float64 // the percentile of a "p" metric
	Op     string  // <, <=, >, >=, =
	Limit  float64 // ns for a latency, a count for loss, a ratio for rate
}

// Syntax is the one-line reminder of what an SLO looks like.
const Syntax = "an SLO is pNN<DURATION (p50, p99, p99.9: 'p99<5ms'), loss=N ('loss=0') or rate>=RATIO ('rate>=0.99', achieved over offered rate); operators <, <=, >, >=, ="

// Parse reads one SLO.
func Parse(s string) (Threshold, error) {
	t := Threshold{Text: s}
	text := strings.ReplaceAll(s, " ", "")
	i := strings.IndexAny(text, "<>=")
	if i <= 0 {
		return t, fmt.Errorf("--slo %q: %s", s, Syntax)
	}
	metric, rest := strings.ToLower(text[:i]), text[i:]
	for _, op := range []string{"<=", ">=", "<", ">", "="} {
		if strings.HasPrefix(rest, op) {
			t.Op, rest = op, rest[len(op):]
			break
		}
	}
	if rest == "" {
		return t, fmt.Errorf("--slo %q: no limit after %s; %s", s, t.Op, Syntax)
	}
	var err error
	switch {
	case metric == "loss":
		t.Metric = "loss"
		var n int64
		n, err = strconv.ParseInt(rest, 10, 64)
		t.Limit = float64(n)
		if err == nil && n < 0 {
			err = fmt.Errorf("negative")
		}
	case metric == "rate":
		t.Metric = "rate"
		t.Limit, err = strconv.ParseFloat(rest, 64)
		if err == nil && (t.Limit < 0 || math.IsNaN(t.Limit) || math.IsInf(t.Limit, 0)) {
			err = fmt.Errorf("not a ratio")
		}
	case strings.HasPrefix(metric, "p"):
		t.Metric = "p"
		t.P, err = strconv.ParseFloat(metric[1:], 64)
		if err != nil || !(t.P > 0 && t.P <= 100) {
			return t, fmt.Errorf("--slo %q: %q is not a percentile (p50, p99, p99.9); %s", s, metric, Syntax)
		}
		var d time.Duration
		d, err = time.ParseDuration(strings.ReplaceAll(rest, "µs", "us"))
		if err == nil && d <= 0 {
			err = fmt.Errorf("not positive")
		}
		t.Limit = float64(d)
	default:
		return t, fmt.Errorf("--slo %q: unknown metric %q; %s", s, metric, Syntax)
	}
	if err != nil {
		return t, fmt.Errorf("--slo %q: bad limit %q; %s", s, rest, Syntax)
	}
	return t, nil
}

// ParseAll reads every SLO, the first bad one an error.
func ParseAll(ss []string) ([]Threshold, error) {
	out := make([]Threshold, 0, len(ss))
	for _, s := range ss {
		t, err := Parse(s)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// Holds reports whether v meets the threshold.
func (t Threshold) Holds(v float64) bool {
	switch t.Op {
	case "<":
		return v < t.Limit
	case "<=":
		return v <= t.Limit
	case ">":
		return v > t.Limit
	case ">=":
		return v >= t.Limit
	}
	return v == t.Limit
}

// Judge judges res against ts, in order.
func Judge(res *result.Result, ts []Threshold) []result.Verdict {
	out := make([]result.Verdict, 0, len(ts))
	for _, t := range ts {
		v := result.Verdict{SLO: t.Text, Limit: t.Limit}
		var ok bool
		v.Value, ok, v.Missing = Measure(res, t)
		v.Pass = ok && t.Holds(v.Value)
		out = append(out, v)
	}
	return out
}

// Measure is the value a threshold judges on res: a latency percentile over the worst group
// that recorded latency, the messages lost (Result.Loss) plus requests and publishes that
// timed out, or the lowest achieved-to-offered rate of the fixed-rate groups. ok is false, with
// why, when res has nothing to judge.
func Measure(res *result.Result, t Threshold) (v float64, ok bool, missing string) {
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
func Uncorrected(res *result.Result, t Threshold) (v float64, ok bool) {
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
