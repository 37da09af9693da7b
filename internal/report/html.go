package report

import (
	"fmt"
	"html"
	"io"
	"math"
	"sort"
	"strings"
)

// HTML writes one self-contained page: the summary table, bar charts comparing the cells,
// throughput over time and the latency percentile spectrum. Nothing is loaded at view time.
func HTML(w io.Writer, s *Set, title string) error {
	if title == "" {
		title = "natsperf report"
	}
	stab, err := Stabilities(s)
	if err != nil {
		return err
	}
	metrics := Metrics(s)
	var b strings.Builder
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\n<title>%s</title>\n<style>%s</style></head>\n<body>\n<h1>%s</h1>\n", html.EscapeString(title), css, html.EscapeString(title))
	b.WriteString("<dl class=\"context\">")
	for _, f := range Header(s) {
		fmt.Fprintf(&b, "<dt>%s</dt><dd>%s</dd>", html.EscapeString(f.Name), html.EscapeString(f.Value))
	}
	b.WriteString("</dl>\n")
	inadequateHTML(&b, s)
	if fs := failures(s); len(fs) > 0 {
		b.WriteString("<h2>Failed runs</h2>\n<p>Left out of every figure; <code>natsperf run --resume</code> runs them again.</p>\n<table class=\"failed\"><thead><tr><th>cell</th><th>repetition</th><th>reason</th></tr></thead><tbody>\n")
		for _, f := range fs {
			fmt.Fprintf(&b, "<tr><td>%s</td><td>%d</td><td>%s</td></tr>\n", html.EscapeString(f.cell), f.rep, html.EscapeString(f.reason))
		}
		b.WriteString("</tbody></table>\n")
	}
	if effects := Effects(s); len(effects) > 0 {
		b.WriteString("<h2>What each choice changes</h2>\n<p>Each level against the axis's first, in cells that differ in that axis only: the ratio of the means with a 95% interval from the repetitions (* the interval excludes 1). Failed runs are left out.</p>\n<ul class=\"verdicts\">")
		_, verdicts, interactions := EffectLines(effects)
		for _, v := range verdicts {
			fmt.Fprintf(&b, "<li>%s</li>", html.EscapeString(v))
		}
		if len(verdicts) == 0 {
			b.WriteString("<li>No choice changes a headline metric beyond the noise of the repetitions.</li>")
		}
		for _, x := range interactions {
			fmt.Fprintf(&b, "<li class=\"interaction\">Interaction: %s</li>", html.EscapeString(x))
		}
		b.WriteString("</ul>\n")
		for _, t := range EffectTables(s, effects) {
			htmlTable(&b, t, "effects")
		}
	}
	fmt.Fprintf(&b, "<h2>Cells</h2>\n<p>%d cells, %d runs. Mean ± the standard deviation in %% of the mean over the repetitions that did not fail; whiskers span min to max.</p>\n", len(s.Cells), countRuns(s))
	summaryTable(&b, s, metrics)
	if t := StorageTable(s); t != nil {
		b.WriteString("<h2>Storage</h2>\n<p>What the servers hold (every replica) against messages x replicas x size.</p>\n")
		htmlTable(&b, *t, "storage")
	}

	if len(s.Cells) > 1 {
		b.WriteString("<h2>Cells compared</h2>\n")
	}
	for _, m := range metrics {
		if len(s.Cells) < 2 {
			break
		}
		if !strings.HasSuffix(m.Key, ".total") && !strings.HasSuffix(m.Key, ".p99") {
			continue
		}
		var bars []bar
		for _, c := range s.Cells {
			st := CellStats(c, metrics)[m.Key]
			if st.N > 0 {
				bars = append(bars, bar{name: short(s, c), mean: st.Mean, min: st.Min, max: st.Max})
			}
		}
		tick, label := HumanCount, m.Label
		if m.Unit == "ns" {
			tick = HumanNanos
			label += " (latency)"
		}
		barChart(&b, m.Label, label, tick, bars)
	}

	var tp []panel
	for _, c := range s.Cells {
		ok := c.OK()
		if len(ok) == 0 || ok[0].SeriesPath != "" { // streamed: the stability view shows it
			continue
		}
		series := ok[0].Series()
		p := panel{title: short(s, c)}
		for _, role := range roles(s) {
			if pts := series[role]; len(pts) > 0 {
				p.lines = append(p.lines, seriesOf(role, pts))
			}
		}
		if len(p.lines) > 0 {
			tp = append(tp, p)
		}
	}
	if len(tp) > 0 {
		b.WriteString("<h2>Throughput over time</h2>\n<p>One chart per cell on the same axes: the first repetition that did not fail, every instance added up.</p>\n")
		smallMultiples(&b, "msgs/s over time", axis{label: "time from the start", fmt: HumanDuration, time: true}, axis{label: "msgs/s", fmt: HumanCount}, tp)
	}

	var lp []panel
	for _, c := range s.Cells {
		p := panel{title: short(s, c)}
		for _, role := range roles(s) {
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
				pts = append(pts, Point{X: x, Y: float64(h.ValueAtPercentile(100 * (1 - 1/x)))})
			}
			p.lines = append(p.lines, series{name: role, pts: pts})
		}
		if len(p.lines) > 0 {
			lp = append(lp, p)
		}
	}
	if len(lp) > 0 {
		b.WriteString("<h2>Latency percentile spectrum</h2>\n<p>One chart per cell on the same axes, every repetition merged. HdrHistogram's view: x is 1/(1-percentile) on a log axis.</p>\n")
		smallMultiples(&b, "latency by percentile", axis{log: true, label: "percentile", fmt: spectrumTick}, axis{label: "latency", fmt: HumanNanos}, lp)
	}

	for _, st := range stab {
		stabilityHTML(&b, st)
	}
	first := true
	for _, c := range s.Cells {
		if t := InstanceTable(c); t != nil {
			if first {
				b.WriteString("<h2>Per instance</h2>\n")
				first = false
			}
			fmt.Fprintf(&b, "<h3>%s</h3>\n", html.EscapeString(t.Title))
			htmlTable(&b, *t, "instances")
		}
	}
	first = true
	for _, c := range s.Cells {
		if t := AgentTable(c); t != nil {
			if first {
				b.WriteString("<h2>Per agent</h2>\n")
				first = false
			}
			fmt.Fprintf(&b, "<h3>%s</h3>\n", html.EscapeString(t.Title))
			htmlTable(&b, *t, "agents")
		}
	}
	if notes := stopNotes(s); len(notes) > 0 {
		b.WriteString("<h2>Notes</h2>\n<ul>")
		for _, n := range notes {
			fmt.Fprintf(&b, "<li>%s</li>", html.EscapeString(n))
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("<script>" + script + "</script>\n</body></html>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// stabilityHTML is a long run's view: throughput and latency per window with the stalls and
// faults shaded, then drift, stalls and faults as tables.
func stabilityHTML(b *strings.Builder, st *Stability) {
	fmt.Fprintf(b, "<h2>Stability: %s, repetition %d</h2>\n<p>%s in %d windows of %s. Shaded: stalls (no message for more than %s) and faults.</p>\n",
		html.EscapeString(st.Cell), st.Repetition, HumanDuration(st.Duration), len(st.Windows), HumanDuration(st.Width), HumanDuration(st.Threshold))
	var pub, sub, p50, p99, mx []Point
	for _, w := range st.Windows {
		mid := (w.From + w.To) / 2
		pub, sub = append(pub, Point{mid, w.PubRate}), append(sub, Point{mid, w.SubRate})
		if w.P50 > 0 {
			p50, p99 = append(p50, Point{mid, w.P50}), append(p99, Point{mid, w.P99})
		}
		if w.Max > 0 {
			mx = append(mx, Point{mid, w.Max})
		}
	}
	bands := append([]band{}, st.Faults...)
	for _, s := range st.Stalls {
		bands = append(bands, band{from: s.From, to: s.To, label: s.Role + " stall " + HumanDuration(s.To-s.From)})
	}
	var tl []series
	if len(pub) > 0 && anyY(pub) {
		tl = append(tl, series{name: "pub", pts: pub})
	}
	if anyY(sub) {
		tl = append(tl, series{name: "sub", pts: sub})
	}
	timeChart(b, "msgs/s per window", axis{label: "msgs/s", fmt: HumanCount}, tl, bands, st.Duration)
	if len(mx) > 0 {
		lines := []series{{name: "max", pts: mx}}
		if len(p50) > 0 {
			lines = []series{{name: "P50", pts: p50}, {name: "P99", pts: p99}, {name: "max", pts: mx}}
		}
		role := st.LatencyRole
		if role == "" {
			role = "all groups'"
		}
		timeChart(b, role+" latency per window", axis{label: "latency", fmt: HumanNanos}, lines, bands, st.Duration)
	}
	for _, t := range StabilityTables(st) {
		fmt.Fprintf(b, "<h3>%s</h3>\n", html.EscapeString(t.Title))
		htmlTable(b, t, "stability")
	}
}

func anyY(pts []Point) bool {
	for _, p := range pts {
		if p.Y > 0 {
			return true
		}
	}
	return false
}

func seriesOf(name string, pts []Point) series { return series{name: name, pts: pts} }

func htmlTable(b *strings.Builder, t Table, class string) {
	fmt.Fprintf(b, "<table class=\"%s\"><thead><tr>", class)
	for _, h := range t.Head {
		fmt.Fprintf(b, "<th>%s</th>", html.EscapeString(h))
	}
	b.WriteString("</tr></thead><tbody>\n")
	for _, r := range t.Rows {
		b.WriteString("<tr>")
		for _, c := range r {
			fmt.Fprintf(b, "<td>%s</td>", html.EscapeString(c))
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</tbody></table>\n")
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

const css = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1280px}
table{font-size:13px}td{white-space:nowrap}table.summary td,table.summary th{white-space:normal}
table{border-collapse:collapse;margin:12px 0}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
figure{margin:18px 0}figcaption{font-weight:600;margin-bottom:4px}
svg.chart{background:#fff;border:1px solid #ddd;max-width:100%;height:auto}
.grid{stroke:#eee}.tick{font-size:11px;fill:#555}.label{font-size:12px;fill:#333}.value{font-size:11px;fill:#333}
.line{fill:none;stroke-width:1.6}.band{fill:#D55E00;opacity:.15}.dot{stroke:none}
dl.context{display:grid;grid-template-columns:max-content auto;gap:2px 12px}dl.context dt{font-weight:600}dl.context dd{margin:0}
.grid-multiples{display:flex;flex-wrap:wrap;gap:8px}.panel{border:1px solid #eee;padding:2px}.panel-title{font-size:12px;font-weight:600;padding:2px 4px}
.panel svg.chart{border:none}li.interaction{color:#D55E00}table.failed td{color:#a00}
@media print{body{margin:0;max-width:none}figure,table,.panel{break-inside:avoid}.legend li{cursor:auto}}.line.dim{opacity:.12}.whisker{stroke:#222;stroke-width:1.5}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px}
.legend li{cursor:default}.legend span{display:inline-block;width:10px;height:10px;margin-right:4px}`

// script highlights a line when its legend entry is hovered, and marks the page as rendered:
// the browser test reads data-charts, data-unlabelled (charts without both axis labels) and
// data-render-ms (from navigation to the end of the script).
const script = `(function(){
var figs=document.querySelectorAll('figure.chart-box');
figs.forEach(function(f){
  f.querySelectorAll('.legend li').forEach(function(li){
    li.addEventListener('mouseenter',function(){f.querySelectorAll('path.line').forEach(function(p){
      p.classList.toggle('dim',p.getAttribute('data-series')!==li.getAttribute('data-series'));});});
    li.addEventListener('mouseleave',function(){f.querySelectorAll('path.line').forEach(function(p){p.classList.remove('dim');});});
  });
});
var charts=document.querySelectorAll('svg.chart'),unlabelled=0;
charts.forEach(function(c){var x=c.querySelector('text.xlabel'),y=c.querySelector('text.ylabel');
  if(!x||!y||!x.textContent.trim()||!y.textContent.trim()){unlabelled++;}});
document.body.setAttribute('data-unlabelled',String(unlabelled));
document.body.setAttribute('data-render-ms',String(Math.round(performance.now())));
document.body.setAttribute('data-charts',String(charts.length));
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
