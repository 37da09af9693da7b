package report

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/natsperf/natsperf/internal/capacity"
)

// The effects of each matrix choice: for every axis level against the axis's first level (the
// baseline), the ratio of each headline metric between cells that differ in that axis only
// (paired cells, every other axis held equal), with a 95% confidence interval from the
// repetitions. Ratios are averaged on a log scale, so x2 and x0.5 weigh the same.

// Headline metrics the effects are computed for, in table order.
var headline = []Metric{
	{Key: "capacity", Label: "capacity msgs/s", Unit: "msgs/s", Higher: true},
	{Key: "pub.total", Label: "pub msgs/s", Unit: "msgs/s", Higher: true},
	{Key: "sub.total", Label: "sub msgs/s", Unit: "msgs/s", Higher: true},
	{Key: "pub.p50", Label: "pub P50", Unit: "ns"},
	{Key: "pub.p99", Label: "pub P99", Unit: "ns"},
	{Key: "sub.p50", Label: "sub P50", Unit: "ns"},
	{Key: "sub.p99", Label: "sub P99", Unit: "ns"},
	{Key: "overhead", Label: "stored/expected", Unit: "x"},
	{Key: "disk.overhead", Label: "on disk/expected", Unit: "x"},
}

// Effect is one axis level's effect on one metric.
type Effect struct {
	Axis, Level, Baseline string
	Metric                Metric
	Ratio                 float64 // level's value / baseline's, geometric mean over the pairs
	Lo, Hi                float64 // 95% interval; set when CI
	CI                    bool
	Pairs                 int // cell pairs the ratio comes from
	// Flips names another axis whose levels turn this effect around (up at one, down at
	// another), with the ratio at each of its levels.
	Flips []Flip
}

// Flip is an interaction: the effect's ratio at each level of another axis.
type Flip struct {
	Axis   string
	Levels []string
	Ratios []float64
}

// Significant: the interval excludes 1.
func (e Effect) Significant() bool { return e.CI && (e.Lo > 1 || e.Hi < 1) }

// String is "replicas 3 vs 1: pub msgs/s x0.48 [0.41-0.55]".
func (e Effect) String() string {
	return fmt.Sprintf("%s %s vs %s: %s %s", e.Axis, e.Level, e.Baseline, e.Metric.Label, e.Value())
}

// Value is "x0.48 [0.41-0.55]" (no interval without repetitions).
func (e Effect) Value() string {
	if !e.CI {
		return fmt.Sprintf("x%s (no interval: one run per cell)", ratio(e.Ratio))
	}
	return fmt.Sprintf("x%s [%s-%s]", ratio(e.Ratio), ratio(e.Lo), ratio(e.Hi))
}

func ratio(x float64) string {
	if x >= 10 {
		return fmt.Sprintf("%.0f", x)
	}
	return fmt.Sprintf("%.2f", x)
}

// Verdict words a significant effect: "52% lower pub msgs/s (worse)".
func (e Effect) Verdict() string {
	better := (e.Ratio > 1) == e.Metric.Higher
	if e.Metric.Unit == "x" {
		better = e.Ratio < 1 // less storage per expected byte
	}
	word := "worse"
	if better {
		word = "better"
	}
	if e.Ratio >= 1 {
		if e.Ratio >= 1.5 {
			return fmt.Sprintf("%s x%s (%s)", e.Metric.Label, ratio(e.Ratio), word)
		}
		return fmt.Sprintf("%s %.0f%% higher (%s)", e.Metric.Label, (e.Ratio-1)*100, word)
	}
	return fmt.Sprintf("%s %.0f%% lower (%s)", e.Metric.Label, (1-e.Ratio)*100, word)
}

// AxisLevels is each axis's levels in matrix order (the order the cells first use them).
func AxisLevels(s *Set) map[string][]string {
	out := map[string][]string{}
	for _, a := range s.Axes {
		seen := map[string]bool{}
		for _, c := range s.Cells {
			if v, ok := c.Values[a]; ok && !seen[v] {
				seen[v] = true
				out[a] = append(out[a], v)
			}
		}
	}
	return out
}

// cellSample is one cell's metric over its runs that did not fail.
type cellSample struct {
	n          int
	mean, vlog float64 // vlog: variance of the log of the mean (delta method), -1 unknown
}

func runValues(r Entry) map[string]float64 {
	v := Values(r.Result)
	// A searched cell's capacity: the highest rate that held (at least that, above --max);
	// none when it held at no rate or natsperf itself was the limit.
	if o := r.Capacity; o != nil && (o.Verdict == capacity.Found || o.Verdict == capacity.AboveMax) {
		v["capacity"] = o.Capacity
	}
	if e := v["expected"]; e > 0 {
		v["overhead"] = v["stored"] / e
		if d := v["disk"]; d > 0 {
			v["disk.overhead"] = d / e
		}
	}
	return v
}

// Effects computes every axis level's effect on every headline metric.
func Effects(s *Set) []Effect {
	levels := AxisLevels(s)
	samples := map[*Cell]map[string]cellSample{}
	for _, c := range s.Cells {
		xs := map[string][]float64{}
		for _, r := range c.OK() {
			for k, x := range runValues(r) {
				if x > 0 {
					xs[k] = append(xs[k], x)
				}
			}
		}
		cs := map[string]cellSample{}
		for k, v := range xs {
			st := Of(v)
			vlog := -1.0
			if st.N > 1 {
				vlog = st.StdDev * st.StdDev / (float64(st.N) * st.Mean * st.Mean)
			}
			cs[k] = cellSample{n: st.N, mean: st.Mean, vlog: vlog}
		}
		samples[c] = cs
	}
	var out []Effect
	for _, a := range s.Axes {
		lv := levels[a]
		if len(lv) < 2 {
			continue
		}
		for _, level := range lv[1:] {
			for _, m := range headline {
				ps := pairs(s, samples, a, lv[0], level, m.Key)
				if len(ps) == 0 {
					continue
				}
				e := Effect{Axis: a, Level: level, Baseline: lv[0], Metric: m, Pairs: len(ps)}
				e.Ratio, e.Lo, e.Hi, e.CI = combine(ps)
				e.Flips = flips(s, levels, a, ps)
				out = append(out, e)
			}
		}
	}
	return out
}

// pair is a level cell and its baseline cell in one context (the other axes' values).
type pair struct {
	context map[string]string
	d, v    float64 // log ratio and its variance (-1 unknown)
	df      int
}

func pairs(s *Set, samples map[*Cell]map[string]cellSample, axis, base, level, key string) []pair {
	byContext := map[string][2]*Cell{}
	var order []string
	for _, c := range s.Cells {
		v, ok := c.Values[axis]
		if !ok || (v != base && v != level) {
			continue
		}
		k := contextKey(s, c, axis)
		p, seen := byContext[k]
		if !seen {
			order = append(order, k)
		}
		if v == base {
			p[0] = c
		} else {
			p[1] = c
		}
		byContext[k] = p
	}
	var out []pair
	for _, k := range order {
		p := byContext[k]
		if p[0] == nil || p[1] == nil {
			continue
		}
		b, okb := samples[p[0]][key]
		l, okl := samples[p[1]][key]
		if !okb || !okl {
			continue
		}
		pr := pair{context: p[1].Values, d: math.Log(l.mean) - math.Log(b.mean), v: -1, df: b.n + l.n - 2}
		if b.vlog >= 0 && l.vlog >= 0 {
			pr.v = b.vlog + l.vlog
		}
		out = append(out, pr)
	}
	return out
}

func contextKey(s *Set, c *Cell, axis string) string {
	var parts []string
	for _, a := range s.Axes {
		if a != axis {
			parts = append(parts, a+"="+c.Values[a])
		}
	}
	return strings.Join(parts, ",")
}

// combine averages the pairs' log ratios. The interval comes from the repetitions (each
// cell's spread, delta method, t with the runs' degrees of freedom); with one run per cell,
// from the spread of the pairs' ratios when there are at least 3 pairs.
func combine(ps []pair) (r, lo, hi float64, ci bool) {
	k := float64(len(ps))
	var d, v float64
	df, known := 0, true
	for _, p := range ps {
		d += p.d
		v += p.v
		df += p.df
		known = known && p.v >= 0
	}
	d /= k
	var se float64
	switch {
	case known && df > 0:
		se = math.Sqrt(v) / k
	case len(ps) >= 3:
		var ss float64
		for _, p := range ps {
			ss += (p.d - d) * (p.d - d)
		}
		se, df = math.Sqrt(ss/(k-1)/k), len(ps)-1
	default:
		return math.Exp(d), 0, 0, false
	}
	t := tQuantile(df)
	return math.Exp(d), math.Exp(d - t*se), math.Exp(d + t*se), true
}

// tQuantile is Student's t at 97.5% for df degrees of freedom (a two-sided 95% interval).
func tQuantile(df int) float64 {
	table := []struct {
		df int
		t  float64
	}{{1, 12.706}, {2, 4.303}, {3, 3.182}, {4, 2.776}, {5, 2.571}, {6, 2.447}, {7, 2.365}, {8, 2.306}, {9, 2.262},
		{10, 2.228}, {12, 2.179}, {15, 2.131}, {20, 2.086}, {30, 2.042}, {60, 2.000}, {120, 1.980}}
	t := 1.960
	for i := len(table) - 1; i >= 0; i-- {
		if df >= table[i].df {
			if i == len(table)-1 && df > 120 {
				return 1.960
			}
			return table[i].t
		}
	}
	return t
}

// flips finds other axes at whose levels the effect goes opposite ways, each side clearly
// (its own interval excludes 1, or beyond ±10% without an interval).
func flips(s *Set, levels map[string][]string, axis string, ps []pair) []Flip {
	var out []Flip
	for _, b := range s.Axes {
		if b == axis {
			continue
		}
		f := Flip{Axis: b}
		up, down := false, false
		for _, lv := range levels[b] {
			var sub []pair
			for _, p := range ps {
				if p.context[b] == lv {
					sub = append(sub, p)
				}
			}
			if len(sub) == 0 {
				continue
			}
			r, lo, hi, ci := combine(sub)
			f.Levels, f.Ratios = append(f.Levels, lv), append(f.Ratios, r)
			up = up || (ci && lo > 1) || (!ci && r > 1.1)
			down = down || (ci && hi < 1) || (!ci && r < 0.9)
		}
		if up && down {
			out = append(out, f)
		}
	}
	return out
}

// String is "flips with replicas: x2.00 at 1, x0.80 at 3".
func (f Flip) String() string {
	var parts []string
	for i := range f.Levels {
		parts = append(parts, fmt.Sprintf("x%s at %s", ratio(f.Ratios[i]), f.Levels[i]))
	}
	return fmt.Sprintf("flips with %s: %s", f.Axis, strings.Join(parts, ", "))
}

// EffectLines is the effects as text lines, then one verdict line per axis level with a
// significant effect, then the interactions.
func EffectLines(effects []Effect) (lines, verdicts, interactions []string) {
	type key struct{ axis, level, base string }
	var order []key
	sig := map[key][]string{}
	for _, e := range effects {
		lines = append(lines, e.String())
		k := key{e.Axis, e.Level, e.Baseline}
		if _, ok := sig[k]; !ok {
			order = append(order, k)
			sig[k] = nil
		}
		if e.Significant() {
			sig[k] = append(sig[k], e.Verdict())
		}
		for _, f := range e.Flips {
			interactions = append(interactions, fmt.Sprintf("%s %s vs %s, %s %s", e.Axis, e.Level, e.Baseline, e.Metric.Label, f))
		}
	}
	for _, k := range order {
		if len(sig[k]) > 0 {
			verdicts = append(verdicts, fmt.Sprintf("%s=%s instead of %s: %s.", k.axis, k.level, k.base, strings.Join(sig[k], ", ")))
		}
	}
	sort.Strings(interactions)
	return lines, verdicts, interactions
}
