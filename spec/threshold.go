package spec

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Threshold is one SLO a run must hold (--slo, the Spec's slo), read once from its text and
// carried typed from there to the verdict and to capacity's judgement of a probe. Its JSON and
// YAML form is the text as given: "p99<5ms", "loss=0", "rate>=0.99".
type Threshold struct {
	Text   string  // as given
	Metric string  // "p" (a latency percentile), "loss" or "rate"
	P      float64 // the percentile of a "p" metric
	Op     string  // <, <=, >, >=, =
	Limit  float64 // ns for a latency, a count for loss, a ratio for rate
}

// ThresholdSyntax is the one-line reminder of what an SLO looks like.
const ThresholdSyntax = "an SLO is pNN<DURATION (p50, p99, p99.9: 'p99<5ms'), loss=N ('loss=0') or rate>=RATIO ('rate>=0.99', achieved over offered rate); operators <, <=, >, >=, ="

// ParseThreshold reads one SLO.
func ParseThreshold(s string) (Threshold, error) {
	t := Threshold{Text: s}
	text := strings.ReplaceAll(s, " ", "")
	i := strings.IndexAny(text, "<>=")
	if i <= 0 {
		return t, fmt.Errorf("--slo %q: %s", s, ThresholdSyntax)
	}
	metric, rest := strings.ToLower(text[:i]), text[i:]
	for _, op := range []string{"<=", ">=", "<", ">", "="} {
		if strings.HasPrefix(rest, op) {
			t.Op, rest = op, rest[len(op):]
			break
		}
	}
	if rest == "" {
		return t, fmt.Errorf("--slo %q: no limit after %s; %s", s, t.Op, ThresholdSyntax)
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
			return t, fmt.Errorf("--slo %q: %q is not a percentile (p50, p99, p99.9); %s", s, metric, ThresholdSyntax)
		}
		var d time.Duration
		d, err = time.ParseDuration(strings.ReplaceAll(rest, "µs", "us"))
		if err == nil && d <= 0 {
			err = fmt.Errorf("not positive")
		}
		t.Limit = float64(d)
	default:
		return t, fmt.Errorf("--slo %q: unknown metric %q; %s", s, metric, ThresholdSyntax)
	}
	if err != nil {
		return t, fmt.Errorf("--slo %q: bad limit %q; %s", s, rest, ThresholdSyntax)
	}
	return t, nil
}

// ParseThresholds reads every SLO, the first bad one an error.
func ParseThresholds(ss ...string) ([]Threshold, error) {
	out := make([]Threshold, 0, len(ss))
	for _, s := range ss {
		t, err := ParseThreshold(s)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}

// MustThresholds is ParseThresholds for thresholds written in code; it panics on a bad one.
func MustThresholds(ss ...string) []Threshold {
	ts, err := ParseThresholds(ss...)
	if err != nil {
		panic(err)
	}
	return ts
}

// String is the threshold as given.
func (t Threshold) String() string { return t.Text }

// MarshalText writes the threshold as given, so a Spec's slo stays a list of strings.
func (t Threshold) MarshalText() ([]byte, error) { return []byte(t.Text), nil }

// UnmarshalText reads a threshold (ParseThreshold).
func (t *Threshold) UnmarshalText(b []byte) error {
	v, err := ParseThreshold(string(b))
	if err != nil {
		return err
	}
	*t = v
	return nil
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

// Latency reports whether t bounds a latency percentile from above (p99<5ms, p99.9<=20ms),
// and the bound: what an in-flight bound or a pacing precision is sized from.
func (t Threshold) Latency() (time.Duration, bool) {
	if t.Metric != "p" || (t.Op != "<" && t.Op != "<=") {
		return 0, false
	}
	return time.Duration(t.Limit), true
}

// Texts are the thresholds as given.
func Texts(ts []Threshold) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Text
	}
	return out
}
