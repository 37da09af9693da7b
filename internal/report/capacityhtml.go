package report

import (
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/internal/units"
)

// CapacityHTML writes a capacity search as one self-contained page that shows the answer at a
// glance: latency percentiles against offered rate on a log axis (a failing probe of seconds
// does not flatten the passing ones), each latency threshold as a dashed line, the knee (the
// last passing to the first failing rate) shaded, each rate once with its repeats as dots
// (hollow: failed); then achieved against offered rate, and the probe table in a box that
// scrolls rather than widening the page.
func CapacityHTML(w io.Writer, o *capacity.Outcome) error {
	var b strings.Builder
	title := "natsperf capacity: " + o.Command
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\n<title>%s</title>\n<style>%s</style></head>\n<body>\n<h1>%s</h1>\n<p class=\"answer\"><b>%s</b></p>\n",
		html.EscapeString(title), css, html.EscapeString(title), html.EscapeString(CapacityLine(o)))
	rates := byRate(o.Probes)
	var knee *band
	if o.Verdict == capacity.Found && o.High > 0 {
		knee = &band{from: o.Low, to: o.High, label: fmt.Sprintf("knee: passes at %s, fails at %s msgs/s", perSec(o.Low), perSec(o.High))}
	}
	var limits []sloLine
	for _, t := range o.SLO {
		if t.Metric == "p" {
			limits = append(limits, sloLine{label: "SLO " + t.Text, ms: t.Limit / 1e6})
		}
	}
	lat := []capSeries{
		{name: "P50", value: func(p capacity.Probe) int64 { return p.P50 }},
		{name: "P99", value: func(p capacity.Probe) int64 { return p.P99 }},
		{name: "P99.9", value: func(p capacity.Probe) int64 { return p.P999 }},
	}
	latencyChart(&b, rates, lat, limits, knee)
	achievedChart(&b, rates, knee)
	var t strings.Builder
	if err := Capacity(&t, o); err != nil {
		return err
	}
	fmt.Fprintf(&b, "<h2>Probes</h2>\n<div class=\"scroll-box\"><pre>%s</pre></div>\n", html.EscapeString(t.String()))
	b.WriteString("<script>" + script + "</script>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// rateProbes are the probes of one offered rate (the repeats), in the order run.
type rateProbes struct {
	rate   float64
	probes []capacity.Probe
}

// byRate groups probes by offered rate, lowest first: each rate is drawn once.
func byRate(probes []capacity.Probe) []rateProbes {
	var out []rateProbes
	for _, p := range probes {
		found := false
		for i := range out {
			if math.Abs(out[i].rate-p.Offered) <= 1e-9*math.Max(1, p.Offered) {
				out[i].probes = append(out[i].probes, p)
				found = true
				break
			}
		}
		if !found {
			out = append(out, rateProbes{rate: p.Offered, probes: []capacity.Probe{p}})
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].rate < out[j].rate })
	return out
}

// capSeries is one latency percentile of the probes (ns; negative: not recorded).
type capSeries struct {
	name  string
	value func(capacity.Probe) int64
}

type sloLine struct {
	label string
	ms    float64
}

// median of xs (sorted in place).
func medianOf(xs []float64) float64 {
	sort.Float64s(xs)
	n := len(xs)
	if n%2 == 1 {
		return xs[n/2]
	}
	return (xs[n/2-1] + xs[n/2]) / 2
}

// capFrame maps data to a chart of w x h: x offered rate (log when it spans 8x or more),
// y linear or log.
type capFrame struct {
	w, h                     int
	left, right, top, bottom int
	xmin, xmax, ymin, ymax   float64
	xlog, ylog               bool
}

func (f capFrame) pw() float64 { return float64(f.w - f.left - f.right) }
func (f capFrame) ph() float64 { return float64(f.h - f.top - f.bottom) }

func scale(v, lo, hi float64, log bool) float64 {
	if log {
		return (math.Log10(v) - math.Log10(lo)) / (math.Log10(hi) - math.Log10(lo))
	}
	return (v - lo) / (hi - lo)
}

func (f capFrame) x(v float64) float64 {
	v = math.Min(math.Max(v, f.xmin), f.xmax)
	return float64(f.left) + scale(v, f.xmin, f.xmax, f.xlog)*f.pw()
}

func (f capFrame) y(v float64) float64 {
	v = math.Min(math.Max(v, f.ymin), f.ymax)
	return float64(f.top) + f.ph() - scale(v, f.ymin, f.ymax, f.ylog)*f.ph()
}

// newFrame fits the x axis to the rates, with a margin so the end dots are not on the edge.
func newFrame(rates []rateProbes) capFrame {
	f := capFrame{w: cw, h: 340, left: 72, right: 24, top: 16, bottom: 44}
	lo, hi := rates[0].rate, rates[len(rates)-1].rate
	if hi <= lo {
		lo, hi = lo*0.9, hi*1.1+1
	}
	f.xlog = lo > 0 && hi/lo >= 8
	if f.xlog {
		f.xmin, f.xmax = lo/1.15, hi*1.15
	} else {
		pad := (hi - lo) * 0.05
		f.xmin, f.xmax = math.Max(0, lo-pad), hi+pad
	}
	return f
}

// logTicks are 1, 2 and 5 times the powers of ten within [lo, hi]; only the powers when the
// range spans more than two decades.
func logTicks(lo, hi float64) []float64 {
	var out []float64
	steps := []float64{1, 2, 5}
	if hi/lo > 300 {
		steps = []float64{1}
	}
	for p := math.Pow(10, math.Floor(math.Log10(lo))); p <= hi*1.0001; p *= 10 {
		for _, m := range steps {
			if v := m * p; v >= lo*0.9999 && v <= hi*1.0001 {
				out = append(out, v)
			}
		}
	}
	return out
}

func linearTicks(lo, hi float64) []float64 {
	step := niceMax((hi - lo) / 5)
	var out []float64
	for v := math.Ceil(lo/step) * step; v <= hi*1.0001 && len(out) < 12; v += step {
		out = append(out, v)
	}
	return out
}

// msLabel labels a latency tick in milliseconds: 0.05 ms, 2 ms, 2,500 ms.
func msLabel(ms float64) string {
	switch {
	case ms >= 1000:
		return units.Comma(int64(math.Round(ms))) + " ms"
	case ms >= 1:
		return trimFloat(ms, 1) + " ms"
	}
	return trimFloat(ms, 4) + " ms"
}

func trimFloat(v float64, prec int) string {
	s := fmt.Sprintf("%.*f", prec, v)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	return s
}

func rateLabel(r float64) string { return units.Comma(int64(math.Round(r))) }

// axes draws the grid, the ticks and the axis labels, and the knee behind the data.
func (f capFrame) axes(b *strings.Builder, title, ylabel string, yticks []float64, ylabelOf func(float64) string, knee *band) {
	fmt.Fprintf(b, `<svg class="chart lines" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, f.w, f.h, f.w, f.h, html.EscapeString(title))
	if knee != nil {
		x0, x1 := f.x(knee.from), f.x(knee.to)
		fmt.Fprintf(b, `<rect class="knee" x="%.1f" y="%d" width="%.1f" height="%.1f"><title>%s</title></rect><text class="knee-label" x="%.1f" y="%d" text-anchor="middle">knee</text>`,
			x0, f.top, math.Max(x1-x0, 3), f.ph(), html.EscapeString(knee.label), (x0+x1)/2, f.top+12)
	}
	for _, v := range yticks {
		fmt.Fprintf(b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/><text class="tick" x="%d" y="%.1f" text-anchor="end">%s</text>`,
			f.left, f.w-f.right, f.y(v), f.y(v), f.left-5, f.y(v)+4, html.EscapeString(ylabelOf(v)))
	}
	var xticks []float64
	if f.xlog {
		xticks = logTicks(f.xmin, f.xmax)
	} else {
		xticks = linearTicks(f.xmin, f.xmax)
	}
	for _, v := range xticks {
		fmt.Fprintf(b, `<line class="grid" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/><text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`,
			f.x(v), f.x(v), f.top, f.h-f.bottom, f.x(v), f.h-f.bottom+14, rateLabel(v))
	}
	xlabel := "offered rate (msgs/s)"
	if f.xlog {
		xlabel += ", log scale"
	}
	fmt.Fprintf(b, `<text class="label xlabel" x="%d" y="%d" text-anchor="middle">%s</text>`, f.left+int(f.pw())/2, f.h-6, xlabel)
	fmt.Fprintf(b, `<text class="label ylabel" transform="translate(14,%d) rotate(-90)" text-anchor="middle">%s</text>`, f.top+int(f.ph())/2, html.EscapeString(ylabel))
}

// points draws one series: a line through each rate's median and a dot per repeat.
func (f capFrame) points(b *strings.Builder, i int, name string, rates []rateProbes, value func(capacity.Probe) (float64, bool), dash string) {
	var d strings.Builder
	var dots strings.Builder
	for _, r := range rates {
		var vs []float64
		for _, p := range r.probes {
			v, ok := value(p)
			if !ok {
				continue
			}
			vs = append(vs, v)
			verdict, fill := "pass", color(i)
			if !p.Pass {
				verdict, fill = "fail", "#fff" // hollow: the ring in the series' colour
			}
			fmt.Fprintf(&dots, `<circle class="dot %s" data-series="%d" cx="%.1f" cy="%.1f" r="3.5" fill="%s" style="stroke:%s"><title>probe %d: %s msgs/s, %s %s (%s)</title></circle>`,
				verdict, i, f.x(r.rate), f.y(v), fill, color(i), p.N, rateLabel(r.rate), name, trimFloat(v, 3), verdict)
		}
		if len(vs) == 0 {
			continue
		}
		cmd := "L"
		if d.Len() == 0 {
			cmd = "M"
		}
		fmt.Fprintf(&d, "%s%.1f,%.1f", cmd, f.x(r.rate), f.y(medianOf(vs)))
	}
	if d.Len() > 0 {
		fmt.Fprintf(b, `<path class="line" data-series="%d" d="%s" stroke="%s"%s><title>%s (median of the repeats)</title></path>`, i, d.String(), color(i), dash, html.EscapeString(name))
	}
	b.WriteString(dots.String())
}

// latencyChart draws the latency percentiles on a log axis in ms, with the thresholds and the
// knee; nothing when no probe recorded latency.
func latencyChart(b *strings.Builder, rates []rateProbes, lat []capSeries, limits []sloLine, knee *band) {
	lo, hi := math.Inf(1), 0.0
	for _, r := range rates {
		for _, p := range r.probes {
			for _, s := range lat {
				if v := s.value(p); v > 0 {
					ms := float64(v) / 1e6
					lo, hi = math.Min(lo, ms), math.Max(hi, ms)
				}
			}
		}
	}
	if hi == 0 || len(rates) == 0 {
		return
	}
	for _, l := range limits { // the thresholds are always in view
		lo, hi = math.Min(lo, l.ms), math.Max(hi, l.ms)
	}
	f := newFrame(rates)
	f.ylog = true
	f.ymin = math.Pow(10, math.Floor(math.Log10(lo)))
	f.ymax = math.Pow(10, math.Ceil(math.Log10(hi)))
	if f.ymax <= f.ymin {
		f.ymax = f.ymin * 10
	}
	b.WriteString("<figure class=\"chart-box\"><figcaption>Latency against offered rate</figcaption>\n")
	var names []series
	for _, s := range lat {
		names = append(names, series{name: s.name})
	}
	legend(b, names)
	f.axes(b, "latency against offered rate", "latency (ms), log scale", logTicks(f.ymin, f.ymax), msLabel, knee)
	for _, l := range limits {
		y := f.y(l.ms)
		fmt.Fprintf(b, `<line class="slo" x1="%d" x2="%d" y1="%.1f" y2="%.1f"><title>%s</title></line><text class="slo-label" x="%d" y="%.1f">%s</text>`,
			f.left, f.w-f.right, y, y, html.EscapeString(l.label), f.left+4, y-4, html.EscapeString(l.label))
	}
	for i, s := range lat {
		f.points(b, i, s.name, rates, func(p capacity.Probe) (float64, bool) {
			v := s.value(p)
			return float64(v) / 1e6, v > 0
		}, "")
	}
	b.WriteString("</svg>")
	key := "Lines join each rate's median; dots are the probes (hollow: failed). A dashed line is a threshold"
	if knee != nil {
		key += "; the shaded band is the knee, from the last passing to the first failing rate"
	}
	fmt.Fprintf(b, `<p class="key">%s.</p>`, html.EscapeString(key))
	b.WriteString("</figure>\n")
}

// achievedChart draws achieved against offered rate, the offered rate as a dashed diagonal.
func achievedChart(b *strings.Builder, rates []rateProbes, knee *band) {
	if len(rates) == 0 {
		return
	}
	f := newFrame(rates)
	hi := 0.0
	for _, r := range rates {
		hi = math.Max(hi, r.rate)
		for _, p := range r.probes {
			hi = math.Max(hi, p.Achieved)
		}
	}
	f.ymin, f.ymax = 0, niceMax(hi*1.05)
	b.WriteString("<figure class=\"chart-box\"><figcaption>Achieved against offered rate</figcaption>\n")
	legend(b, []series{{name: "achieved"}, {name: "offered"}})
	f.axes(b, "achieved against offered rate", "achieved (msgs/s)", linearTicks(0, f.ymax), rateLabel, knee)
	// achieved = offered, sampled along the axis: a straight line only on a linear one.
	var d strings.Builder
	for k := 0; k <= 48; k++ {
		v := f.xmin + (f.xmax-f.xmin)*float64(k)/48
		if f.xlog {
			v = f.xmin * math.Pow(f.xmax/f.xmin, float64(k)/48)
		}
		cmd := "L"
		if k == 0 {
			cmd = "M"
		}
		fmt.Fprintf(&d, "%s%.1f,%.1f", cmd, f.x(v), f.y(v))
	}
	fmt.Fprintf(b, `<path class="line offered" data-series="1" d="%s" stroke="%s" stroke-dasharray="5 4"><title>offered</title></path>`, d.String(), color(1))
	f.points(b, 0, "achieved", rates, func(p capacity.Probe) (float64, bool) { return p.Achieved, true }, "")
	b.WriteString("</svg></figure>\n")
}
