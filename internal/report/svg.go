package report

import (
	"fmt"
	"html"
	"math"
	"strings"
)

// Charts are drawn as inline SVG by this file: the HTML report needs no script library and no
// network, and the output is deterministic for golden tests.

var palette = []string{"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f",
	"#bcbd22", "#17becf", "#393b79", "#e6550d", "#31a354", "#843c39", "#7b4173", "#636363"}

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
}

// lineChart draws lines; on a log x axis, x must be positive.
func lineChart(b *strings.Builder, title string, xa, ya axis, lines []series) {
	xmin, xmax, ymax := math.Inf(1), math.Inf(-1), 0.0
	for _, l := range lines {
		for _, p := range l.pts {
			xmin, xmax, ymax = math.Min(xmin, p.X), math.Max(xmax, p.X), math.Max(ymax, p.Y)
		}
	}
	if math.IsInf(xmin, 0) {
		return
	}
	if xa.log {
		xmin, xmax = 1, math.Pow(10, math.Ceil(math.Log10(math.Max(xmax, 10))))
	} else {
		xmin = math.Min(xmin, 0)
		if xmax <= xmin {
			xmax = xmin + 1
		}
	}
	if ymax <= 0 {
		ymax = 1
	}
	ymax = niceMax(ymax)
	pw, ph := float64(cw-mLeft-mRight), float64(ch-mTop-mBottom)
	sx := func(x float64) float64 {
		if xa.log {
			return mLeft + (math.Log10(x)-math.Log10(xmin))/(math.Log10(xmax)-math.Log10(xmin))*pw
		}
		return mLeft + (x-xmin)/(xmax-xmin)*pw
	}
	sy := func(y float64) float64 { return mTop + ph - y/ymax*ph }
	open(b, title)
	// y grid
	for i := 0; i <= 4; i++ {
		y := ymax * float64(i) / 4
		fmt.Fprintf(b, `<line class="grid" x1="%d" x2="%d" y1="%.1f" y2="%.1f"/><text class="tick" x="%d" y="%.1f" text-anchor="end">%s</text>`,
			mLeft, cw-mRight, sy(y), sy(y), mLeft-6, sy(y)+4, html.EscapeString(ya.fmt(y)))
	}
	// x ticks
	var xt []float64
	if xa.log {
		for v := xmin; v <= xmax*1.0001; v *= 10 {
			xt = append(xt, v)
		}
	} else {
		step := niceMax((xmax-xmin)/5) / 1
		for v := xmin; v <= xmax+step/1e6; v += step / 1 {
			xt = append(xt, v)
			if len(xt) > 12 {
				break
			}
		}
	}
	for _, v := range xt {
		if v > xmax*1.0001 {
			break
		}
		fmt.Fprintf(b, `<line class="grid" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/><text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`,
			sx(v), sx(v), mTop, ch-mBottom, sx(v), ch-mBottom+16, html.EscapeString(xa.fmt(v)))
	}
	fmt.Fprintf(b, `<text class="label" x="%d" y="%d" text-anchor="middle">%s</text>`, mLeft+int(pw)/2, ch-6, html.EscapeString(xa.label))
	fmt.Fprintf(b, `<text class="label" transform="translate(14,%d) rotate(-90)" text-anchor="middle">%s</text>`, mTop+int(ph)/2, html.EscapeString(ya.label))
	for i, l := range lines {
		var d strings.Builder
		for j, p := range l.pts {
			if xa.log && p.X < xmin {
				continue
			}
			cmd := "L"
			if j == 0 || d.Len() == 0 {
				cmd = "M"
			}
			fmt.Fprintf(&d, "%s%.1f,%.1f", cmd, sx(p.X), sy(math.Min(p.Y, ymax)))
		}
		fmt.Fprintf(b, `<path class="line" data-series="%d" d="%s" stroke="%s"><title>%s</title></path>`, i, d.String(), color(i), html.EscapeString(l.name))
		if len(l.pts) <= 2 { // too short for a visible line
			for _, p := range l.pts {
				fmt.Fprintf(b, `<circle class="dot" data-series="%d" cx="%.1f" cy="%.1f" r="3" fill="%s"/>`, i, sx(p.X), sy(math.Min(p.Y, ymax)), color(i))
			}
		}
	}
	b.WriteString("</svg>")
	legend(b, lines)
	b.WriteString("</figure>\n")
}

type bar struct {
	name           string
	mean, min, max float64
}

// barChart draws one horizontal bar per cell with a min-max whisker over the repetitions.
func barChart(b *strings.Builder, title string, f func(float64) string, bars []bar) {
	if len(bars) == 0 {
		return
	}
	rowH, labelW := 22, 260
	h := mTop + len(bars)*rowH + 30
	vmax := 0.0
	for _, x := range bars {
		vmax = math.Max(vmax, math.Max(x.mean, x.max))
	}
	vmax = niceMax(math.Max(vmax, 1e-9))
	pw := float64(cw - labelW - mRight - 60)
	sx := func(v float64) float64 { return float64(labelW) + v/vmax*pw }
	fmt.Fprintf(b, `<figure class="chart-box"><figcaption>%s</figcaption><svg class="chart bars" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		html.EscapeString(title), cw, h, cw, h, html.EscapeString(title))
	for i := 0; i <= 4; i++ {
		v := vmax * float64(i) / 4
		fmt.Fprintf(b, `<line class="grid" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/><text class="tick" x="%.1f" y="%d" text-anchor="middle">%s</text>`,
			sx(v), sx(v), mTop-6, h-24, sx(v), h-8, html.EscapeString(f(v)))
	}
	for i, x := range bars {
		y := mTop + i*rowH
		fmt.Fprintf(b, `<text class="tick" x="%d" y="%d" text-anchor="end">%s</text>`, labelW-6, y+15, html.EscapeString(x.name))
		fmt.Fprintf(b, `<rect class="bar" x="%d" y="%d" width="%.1f" height="%d" fill="%s"><title>%s: %s</title></rect>`,
			labelW, y+3, sx(x.mean)-float64(labelW), rowH-6, color(i), html.EscapeString(x.name), html.EscapeString(f(x.mean)))
		if x.max > x.min {
			fmt.Fprintf(b, `<line class="whisker" x1="%.1f" x2="%.1f" y1="%d" y2="%d"/>`, sx(x.min), sx(x.max), y+rowH/2, y+rowH/2)
		}
		fmt.Fprintf(b, `<text class="value" x="%.1f" y="%d">%s</text>`, sx(math.Max(x.mean, x.max))+6, y+15, html.EscapeString(f(x.mean)))
	}
	b.WriteString("</svg></figure>\n")
}

func open(b *strings.Builder, title string) {
	fmt.Fprintf(b, `<figure class="chart-box"><figcaption>%s</figcaption><svg class="chart lines" viewBox="0 0 %d %d" width="%d" height="%d" role="img" aria-label="%s">`,
		html.EscapeString(title), cw, ch, cw, ch, html.EscapeString(title))
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
