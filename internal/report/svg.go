package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Charts are drawn as inline SVG by this file: the HTML report needs no script library and no
// network, and the output is deterministic for golden tests.

// palette is Okabe and Ito's colour-blind-safe set, black last.
var palette = []string{"#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9", "#D55E00", "#F0E442", "#000000"}

func color(i int) string { return palette[i%len(palette)] }

const (
	cw, ch                       = 760, 320
	mLeft, mRight, mTop, mBottom = 80, 20, 30, 45
)

type series struct {
	name string
	pts  []Point
}

type axis struct {
	log   bool
	label string
	fmt   func(float64) string
	// min and max fix the range (small multiples share it); 0, 0 fits the data.
	min, max float64
	// time: x is seconds from the start; ticks fall on whole seconds, minutes or hours in one
	// unit for the whole axis, and the axis ends at the data's end.
	time bool
}

// band is a shaded span of the x axis (a fault or an unavailability window).
type band struct {
	from, to float64
	label    string
	// mark draws a vertical line at from with its label (an event) instead of a shaded span.
	mark bool
}

// fitX and fitY compute shared ranges: x from 0 (time axes start at the start), y from 0.
func fitRanges(xa, ya *axis, lines []series) bool {
	xmin, xmax, ymax := math.Inf(1), math.Inf(-1), 0.0
	for _, l := range lines {
		for _, p := range l.pts {
			xmin, xmax, ymax = math.Min(xmin, p.X), math.Max(xmax, p.X), math.Max(ymax, p.Y)
		}
	}
	if math.IsInf(xmin, 0) {
		return false
	}
	if xa.log {
		xa.min, xa.max = 1, math.Pow(10, math.Ceil(math.Log10(math.Max(xmax, 10))))
	} else {
		xa.min = 0
		if xmax <= 0 {
			xmax = 1
		}
		xa.max = niceMax(xmax)
		if xa.time {
			xa.max = xmax
		}
	}
	ya.min, ya.max = 0, niceMax(math.Max(ymax, 1e-9))
	step := niceMax(ya.max / 4) // end the axis on a tick at most a step above the data
	ya.max = math.Ceil(math.Max(ymax, 1e-9)/step-1e-9) * step
	return true
}

// panel is one small chart of a small-multiples figure.
type panel struct {
	title string
	lines []series
	bands []band
}

// smallMultiples is one small chart per panel, all on the same axes, with one legend: a
// series keeps its colour in every panel.
type smallMultiples struct {
	title  string
	xa, ya axis
	panels []panel
}

func (f smallMultiples) svg(b *strings.Builder) {
	title, xa, ya, panels := f.title, f.xa, f.ya, f.panels
	var all []series
	for _, p := range panels {
		all = append(all, p.lines...)
	}
	if !fitRanges(&xa, &ya, all) {
		return
	}
	fmt.Fprintf(b, `<figure class="chart-box multiples"><figcaption>%s</figcaption>`, html.EscapeString(title))
	var names []series
	seen := map[string]bool{}
	for _, l := range all {
		if !seen[l.name] {
			seen[l.name] = true
			names = append(names, series{name: l.name})
		}
	}
	if len(names) > 1 {
		legend(b, names)
	}
	b.WriteString(`<div class="grid-multiples">`)
	for _, p := range panels {
		fmt.Fprintf(b, `<div class="panel"><div class="panel-title">%s</div>`, html.EscapeString(p.title))
		plot(b, title+": "+p.title, 360, 210, xa, ya, colourBy(names, p.lines), p.bands)
		b.WriteString("</div>")
	}
	b.WriteString("</div></figure>\n")
}

// colourBy orders a panel's lines to match the legend, keeping each name's colour index.
func colourBy(names []series, lines []series) []series {
	out := make([]series, len(names))
	for i, n := range names {
		out[i] = series{name: n.name}
		for _, l := range lines {
			if l.name == n.name {
				out[i].pts = l.pts
			}
		}
	}
	return out
}

// plot draws an svg of w x h with labelled axes on the given ranges.
func plot(b *strings.Builder, title string, w, h int, xa, ya axis, lines []series, bands []band) {
	left, right, top, bottom := 64, 24, 12, 40
	if w < cw {
		left = 56
	}
	pw, ph := float64(w-left-right), float64(h-top-bottom)
	sx := func(x float64) float64 {
		if xa.log {
			return float64(left) + (math.Log10(x)-math.Log10(xa.min))/(math.Log10(xa.max)-math.Log10(xa.min))*pw
		}
		return float64(left) + (x-xa.min)/(xa.max-xa.min)*pw
	}
	sy := func(y float64) float64 { return float64(top) + ph - (y-ya.min)/(ya.max-ya.min)*ph }
	fmt.Fprintf(b, `<svg class="chart lines" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`, w, h, w, h, html.EscapeString(title))
	for _, bd := range bands {
		if bd.mark {
			x := sx(math.Min(math.Max(bd.from, xa.min), xa.max))
			fmt.Fprintf(b, `<line class="marker" x1="%.1f" x2="%.1f" y1="%d" y2="%.1f"><title>%s</title></line><text class="marker-label" x="%.1f" y="%d">%s</text>`,
				x, x, top, float64(top)+ph, html.EscapeString(bd.label), x+2, top+9, html.EscapeString(shortLabel(bd.label)))
			continue
		}
		x0, x1 := sx(math.Max(bd.from, xa.min)), sx(math.Min(bd.to, xa.max))
		fmt.Fprintf(b, `<rect class="band" x="%.1f" y="%d" width="%.1f" height="%.1f"><title>%s</title></rect>`, x0, top, math.Max(x1-x0, 1.5), ph, html.EscapeString(bd.label))
	}
	ystep := niceMax((ya.max - ya.min) / 4)
	for i := 0; i <= 8; i++ {
		y := ya.min + ystep*float64(i)
		if y > ya.max*1.0001 {
			break
		}
		fmt.Fprintf(b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/><text class="tick" x="%d" y="%.1f" text-anchor="end">%s</text>`,
			left, w-right, sy(y), sy(y), left-5, sy(y)+4, html.EscapeString(ya.fmt(y)))
	}
	var xt []float64
	if xa.log {
		for v := xa.min; v <= xa.max*1.0001; v *= 10 {
			xt = append(xt, v)
		}
	} else {
		step := niceMax((xa.max - xa.min) / 4)
		if xa.time {
			step = niceSeconds((xa.max - xa.min) / 6)
			xa.fmt = timeTicks(xa.max)
		}
		for i := 0; ; i++ {
			v := xa.min + float64(i)*step
			if v > xa.max+step/1e6 || i > 12 {
				break
			}
			xt = append(xt, v)
		}
	}
	for _, v := range xt {
		fmt.Fprintf(b, `<line class="grid" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/><text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`,
			sx(v), sx(v), top, h-bottom, sx(v), h-bottom+14, html.EscapeString(xa.fmt(v)))
	}
	fmt.Fprintf(b, `<text class="label xlabel" x="%d" y="%d" text-anchor="middle">%s</text>`, left+int(pw)/2, h-6, html.EscapeString(xa.label))
	fmt.Fprintf(b, `<text class="label ylabel" transform="translate(12,%d) rotate(-90)" text-anchor="middle">%s</text>`, top+int(ph)/2, html.EscapeString(ya.label))
	for i, l := range lines {
		var d strings.Builder
		for _, p := range l.pts {
			if xa.log && p.X < xa.min {
				continue
			}
			cmd := "L"
			if d.Len() == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f,%.1f", cmd, sx(math.Max(p.X, xa.min)), sy(math.Min(p.Y, ya.max)))
		}
		if d.Len() == 0 {
			continue
		}
		dash := ""
		if l.name == "max" {
			dash = ` stroke-dasharray="4 3"`
		}
		fmt.Fprintf(b, `<path class="line" data-series="%d" d="%s" stroke="%s"%s><title>%s</title></path>`, i, d.String(), color(i), dash, html.EscapeString(l.name))
		if len(l.pts) <= 5 { // few points: show where they are
			for _, p := range l.pts {
				fmt.Fprintf(b, `<circle class="dot" data-series="%d" cx="%.1f" cy="%.1f" r="2.5" fill="%s"/>`, i, sx(math.Max(p.X, xa.min)), sy(math.Min(p.Y, ya.max)), color(i))
			}
		}
	}
	b.WriteString("</svg>")
}

type bar struct {
	name           string
	mean, min, max float64
}

// barChart is one horizontal bar per cell with a min-max whisker over the repetitions.
type barChart struct {
	title, xlabel string
	tick          func(float64) string
	bars          []bar
}

func (c barChart) svg(b *strings.Builder) {
	title, xlabel, f, bars := c.title, c.xlabel, c.tick, c.bars
	if len(bars) == 0 {
		return
	}
	rowH, labelW := 22, 260
	h := mTop + len(bars)*rowH + 46
	vmax := 0.0
	for _, x := range bars {
		vmax = math.Max(vmax, math.Max(x.mean, x.max))
	}
	step := niceMax(niceMax(math.Max(vmax, 1e-9)) / 4)
	vmax = math.Ceil(math.Max(vmax, 1e-9)/step-1e-9) * step
	pw := float64(cw - labelW - mRight - 60)
	sx := func(v float64) float64 { return float64(labelW) + v/vmax*pw }
	fmt.Fprintf(b, `<figure class="chart-box"><figcaption>%s</figcaption><svg class="chart bars" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		html.EscapeString(title), cw, h, cw, h, html.EscapeString(title))
	for i := 0; i <= 8; i++ {
		v := step * float64(i)
		if v > vmax*1.0001 {
			break
		}
		fmt.Fprintf(b, `<line class="grid" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/><text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`,
			sx(v), sx(v), mTop-6, h-40, sx(v), h-26, html.EscapeString(f(v)))
	}
	fmt.Fprintf(b, `<text class="label xlabel" x="%.1f" y="%d" text-anchor="middle">%s</text>`, float64(labelW)+pw/2, h-6, html.EscapeString(xlabel))
	fmt.Fprintf(b, `<text class="label ylabel" transform="translate(12,%d) rotate(-90)" text-anchor="middle">cell</text>`, mTop+len(bars)*rowH/2)
	for i, x := range bars {
		y := mTop + i*rowH
		_ = i
		fmt.Fprintf(b, `<text class="tick" x="%d" y="%d" text-anchor="end">%s</text>`, labelW-6, y+15, html.EscapeString(x.name))
		fmt.Fprintf(b, `<rect class="bar" x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s</title></rect>`,
			labelW, y+3, sx(x.mean)-float64(labelW), rowH-6, color(0), html.EscapeString(x.name), html.EscapeString(f(x.mean)))
		if x.max > x.min {
			fmt.Fprintf(b, `<line class="whisker" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/>`, sx(x.min), sx(x.max), y+rowH/2, y+rowH/2)
		}
		fmt.Fprintf(b, `<text class="value" x="%.1f" y="%d">%s</text>`, sx(math.Max(x.mean, x.max))+6, y+15, html.EscapeString(f(x.mean)))
	}
	b.WriteString("</svg></figure>\n")
}

func legend(b *strings.Builder, lines []series) {
	b.WriteString(`<ul class="legend">`)
	for i, l := range lines {
		fmt.Fprintf(b, `<li data-series="%d"><span style="background:%s"></span>%s</li>`, i, color(i), html.EscapeString(l.name))
	}
	b.WriteString("</ul>")
}

// niceMax rounds up to 1, 2 or 5 times a power of ten.
func niceMax(v float64) float64 {
	if v <= 0 {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 2.5, 5, 10} {
		if v <= m*p*1.0000001 {
			return m * p
		}
	}
	return 10 * p
}

// timeChart is lines over a run's time axis (0 to its duration) with shaded bands.
type timeChart struct {
	title    string
	ya       axis
	lines    []series
	bands    []band
	duration float64
}

func (c timeChart) svg(b *strings.Builder) {
	title, ya, lines, bands, duration := c.title, c.ya, c.lines, c.bands, c.duration
	xa := axis{label: "time from the start", fmt: HumanDuration, time: true}
	if !fitRanges(&xa, &ya, lines) {
		return
	}
	xa.max = duration
	fmt.Fprintf(b, `<figure class="chart-box"><figcaption>%s</figcaption>`, html.EscapeString(title))
	legend(b, lines)
	plot(b, title, cw, 260, xa, ya, lines, bands)
	b.WriteString("</figure>\n")
}

// timeTicks labels a time axis in one unit chosen by its length: "30 s", "1.5 min", "6 h".
func timeTicks(max float64) func(float64) string {
	switch {
	case max <= 180:
		return func(x float64) string { return trim(x) + " s" }
	case max <= 3*3600:
		return func(x float64) string { return trim(x/60) + " min" }
	}
	return func(x float64) string { return trim(x/3600) + " h" }
}

// shortLabel is a marker's label cut to fit beside its line; the full one is its title.
func shortLabel(s string) string {
	if r := []rune(s); len(r) > 28 {
		return string(r[:27]) + "…"
	}
	return s
}
