package report

import (
	"fmt"
	"html"
	"io"
	"sort"
	"strings"

	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/internal/slo"
)

// CapacityHTML writes a capacity search as one self-contained page: latency percentiles and
// achieved rate against offered rate, each latency threshold as a line, the boundary between
// the last passing and the first failing rate shaded (the knee), and the table of probes.
func CapacityHTML(w io.Writer, o *capacity.Outcome) error {
	var b strings.Builder
	title := "natsperf capacity: " + o.Command
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\n<title>%s</title>\n<style>%s</style></head>\n<body>\n<h1>%s</h1>\n<p><b>%s</b></p>\n",
		html.EscapeString(title), css, html.EscapeString(title), html.EscapeString(CapacityLine(o)))
	probes := append([]capacity.Probe(nil), o.Probes...)
	sort.SliceStable(probes, func(i, j int) bool { return probes[i].Offered < probes[j].Offered })
	var p50, p99, p999, achieved, offered []Point
	for _, p := range probes {
		if p.P50 >= 0 {
			p50 = append(p50, Point{p.Offered, float64(p.P50) / 1e6})
			p99 = append(p99, Point{p.Offered, float64(p.P99) / 1e6})
			p999 = append(p999, Point{p.Offered, float64(p.P999) / 1e6})
		}
		achieved = append(achieved, Point{p.Offered, p.Achieved})
		offered = append(offered, Point{p.Offered, p.Offered})
	}
	var bands []band
	if o.Verdict == capacity.Found {
		bands = append(bands, band{from: o.Low, to: o.High, label: "knee"})
	}
	rates := axis{label: "offered msgs/s", fmt: msgRate}
	if len(p50) > 0 {
		lines := []series{seriesOf("P50", p50), seriesOf("P99", p99), seriesOf("P99.9", p999)}
		for _, s := range o.SLO {
			if t, err := slo.Parse(s); err == nil && t.Metric == "p" && len(probes) > 0 {
				limit := t.Limit / 1e6
				lines = append(lines, seriesOf("SLO "+s, []Point{{probes[0].Offered, limit}, {probes[len(probes)-1].Offered, limit}}))
			}
		}
		xa, ya := rates, axis{label: "latency (ms)", fmt: func(x float64) string { return fmt.Sprintf("%.3g", x) }}
		if fitRanges(&xa, &ya, lines) {
			fmt.Fprintf(&b, "<figure><figcaption>Latency against offered rate</figcaption>\n")
			plot(&b, "latency against offered rate", cw, ch, xa, ya, lines, bands)
			legend(&b, lines)
			b.WriteString("</figure>\n")
		}
	}
	lines := []series{seriesOf("achieved", achieved), seriesOf("offered", offered)}
	xa, ya := rates, axis{label: "achieved msgs/s", fmt: msgRate}
	if fitRanges(&xa, &ya, lines) {
		fmt.Fprintf(&b, "<figure><figcaption>Achieved against offered rate</figcaption>\n")
		plot(&b, "achieved against offered rate", cw, ch, xa, ya, lines, bands)
		legend(&b, lines)
		b.WriteString("</figure>\n")
	}
	var t strings.Builder
	if err := Capacity(&t, o); err != nil {
		return err
	}
	fmt.Fprintf(&b, "<h2>Probes</h2>\n<pre>%s</pre>\n</body></html>\n", html.EscapeString(t.String()))
	_, err := io.WriteString(w, b.String())
	return err
}
