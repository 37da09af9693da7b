package report

import (
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/natsperf/natsperf/internal/units"
)

// HTML writes one self-contained page: the summary table, bar charts comparing the cells,
// throughput over time and the latency percentile spectrum. Nothing is loaded at view time.
func HTML(w io.Writer, s *Set, title string) error {
	if title == "" {
		title = "natsperf report"
	}
	metrics := Metrics(s)
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\n<title>%s</title>\n<style>%s</style></head>\n<body>\n<h1>%s</h1>\n", html.EscapeString(title), css, html.EscapeString(title))
	fmt.Fprintf(&b, "<p>%d cells, %d runs. Mean ± standard deviation over the repetitions; whiskers span min to max.</p>\n", len(s.Cells), countRuns(s))
	summaryTable(&b, s, metrics)
	if fs := failures(s); len(fs) > 0 {
		b.WriteString("<h2>Failed runs</h2>\n<p>Left out of every figure; <code>natsperf run --resume</code> runs them again.</p>\n<table class=\"failed\"><thead><tr><th>cell</th><th>repetition</th><th>reason</th></tr></thead><tbody>\n")
		for _, f := range fs {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%s</td></tr>\n", html.EscapeString(f.cell), f.rep, html.EscapeString(f.reason))
		}
		b.WriteString("</tbody></table>\n")
	}

	b.WriteString("<h2>Cells compared</h2>\n")
	for _, m := range metrics {
		if !strings.HasSuffix(m.Key, ".rate") && !strings.HasSuffix(m.Key, ".total") && !strings.HasSuffix(m.Key, ".p99") {
			continue
		}
		var bars []bar
		for _, c := range s.Cells {
			st := CellStats(c, metrics)[m.Key]
			if st.N > 0 {
				bars = append(bars, bar{name: short(s, c), mean: st.Mean, min: st.Min, max: st.Max})
			}
		}
		barChart(&b, m.Label, func(x float64) string { return Format(m, x) }, bars)
	}

	b.WriteString("<h2>Throughput over time</h2>\n<p>First repetition of each cell, all instances added up.</p>\n")
	for _, role := range roles(s) {
		var lines []series
		for _, c := range s.Cells {
			ok := c.OK()
			if len(ok) == 0 {
				continue
			}
			if pts := ok[0].Series()[role]; len(pts) > 0 {
				lines = append(lines, series{name: short(s, c), pts: pts})
			}
		}
		lineChart(&b, role+" msgs/s over time", axis{label: "seconds from the start", fmt: func(x float64) string { return fmt.Sprintf("%gs", math.Round(x*10)/10) }},
			axis{label: "msgs/s", fmt: func(y float64) string { return units.Comma(int64(y)) }}, lines)
	}

	b.WriteString("<h2>Latency percentile spectrum</h2>\n<p>HdrHistogram's view: x is 1/(1-percentile) on a log axis (10 = P90, 100 = P99, 1000 = P99.9), every repetition merged.</p>\n")
	for _, role := range roles(s) {
		var lines []series
		for _, c := range s.Cells {
			h := c.Latency(role)
			if h == nil || h.TotalCount() == 0 {
				continue
			}
			var pts []Point
			for k := 0; ; k++ {
				x := math.Pow(10, float64(k)/10) // 10 points per decade
				if x > float64(h.TotalCount()) || k > 70 {
					break
				}
				p := 100 * (1 - 1/x)
				pts = append(pts, Point{X: x, Y: float64(h.ValueAtPercentile(p)) / 1e6})
			}
			lines = append(lines, series{name: short(s, c), pts: pts})
		}
		lineChart(&b, role+" latency by percentile", axis{log: true, label: "percentile", fmt: spectrumTick},
			axis{label: "milliseconds", fmt: func(y float64) string { return fmt.Sprintf("%.3g", y) }}, lines)
	}
	b.WriteString("<script>" + script + "</script>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

func spectrumTick(x float64) string {
	if x <= 1 {
		return "P0"
	}
	p := 100 * (1 - 1/x)
	return "P" + strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.5f", p), "0"), ".")
}

func roles(s *Set) []string {
	seen := map[string]bool{}
	for _, c := range s.Cells {
		for _, r := range c.Runs {
			for _, g := range r.Result.Groups {
				seen[Role(g.Name)] = true
			}
		}
	}
	var out []string
	for r := range seen {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return roleOrder(out[i]) < roleOrder(out[j]) })
	return out
}

func summaryTable(b *strings.Builder, s *Set, metrics []Metric) {
	b.WriteString("<table class=\"summary\"><thead><tr>")
	for _, a := range s.Axes {
		fmt.Fprintf(b, "<th>%s</th>", html.EscapeString(a))
	}
	if len(s.Axes) == 0 {
		b.WriteString("<th>cell</th>")
	}
	b.WriteString("<th>runs</th>")
	for _, m := range metrics {
		if m.Key == "expected" {
			continue
		}
		label := m.Label
		if m.Key == "stored" {
			label = "stored / expected"
		}
		fmt.Fprintf(b, "<th>%s</th>", html.EscapeString(label))
	}
	b.WriteString("</tr></thead><tbody>\n")
	for _, c := range s.Cells {
		st := CellStats(c, metrics)
		b.WriteString("<tr>")
		if len(s.Axes) == 0 {
			fmt.Fprintf(b, "<td>%s</td>", html.EscapeString(c.Name))
		}
		for _, a := range s.Axes {
			fmt.Fprintf(b, "<td>%s</td>", html.EscapeString(c.Values[a]))
		}
		fmt.Fprintf(b, "<td>%s</td>", html.EscapeString(c.RunsLabel()))
		for _, m := range metrics {
			switch m.Key {
			case "expected":
				continue
			case "stored":
				fmt.Fprintf(b, "<td>%s</td>", html.EscapeString(storedVsExpected(st["stored"], st["expected"])))
			default:
				fmt.Fprintf(b, "<td>%s</td>", html.EscapeString(cellValue(m, st[m.Key])))
			}
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>\n")
}

const css = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1100px}
table{border-collapse:collapse;margin:12px 0}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
figure{margin:18px 0}figcaption{font-weight:600;margin-bottom:4px}
svg.chart{background:#fff;border:1px solid #ddd;max-width:100%;height:auto}
.grid{stroke:#eee}.tick{font-size:11px;fill:#555}.label{font-size:12px;fill:#333}.value{font-size:11px;fill:#333}
.line{fill:none;stroke-width:1.6}.line.dim{opacity:.12}.whisker{stroke:#222;stroke-width:1.5}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px}
.legend li{cursor:default}.legend span{display:inline-block;width:10px;height:10px;margin-right:4px}`

// script highlights a line when its legend entry is hovered, and marks the page as rendered
// (the browser test reads data-charts).
const script = `(function(){
var figs=document.querySelectorAll('figure.chart-box');
figs.forEach(function(f){
  f.querySelectorAll('.legend li').forEach(function(li){
    li.addEventListener('mouseenter',function(){f.querySelectorAll('path.line').forEach(function(p){
      p.classList.toggle('dim',p.getAttribute('data-series')!==li.getAttribute('data-series'));});});
    li.addEventListener('mouseleave',function(){f.querySelectorAll('path.line').forEach(function(p){p.classList.remove('dim');});});
  });
});
document.body.setAttribute('data-charts',String(document.querySelectorAll('svg.chart').length));
})();`

// short names a cell by its axis values only ("one-stream · file · 3 · sync").
func short(s *Set, c *Cell) string {
	var parts []string
	for _, a := range s.Axes {
		if v, ok := c.Values[a]; ok {
			parts = append(parts, v)
		}
	}
	if len(parts) == 0 {
		return c.Name
	}
	return strings.Join(parts, " · ")
}
