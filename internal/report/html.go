package report

import (
	"fmt"
	"html"
	"io"
	"sort"
	"strings"
)

// HTML writes the report (Build) as one self-contained page: the sections' tables and their
// charts (cells compared, throughput over time, the latency percentile spectrum, stability
// per window) as inline SVG. Nothing is loaded at view time.
func HTML(w io.Writer, s *Set, title string) error {
	d, err := Build(s, title)
	if err != nil {
		return err
	}
	return d.WriteHTML(w)
}

// WriteHTML writes the document as one self-contained page.
func (d *Document) WriteHTML(w io.Writer) error {
	var b strings.Builder
	title := html.EscapeString(d.Title)
	fmt.Fprintf(&b, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" content=\"width=device-width\">\n<title>%s</title>\n<style>%s</style></head>\n<body>\n<h1>%s</h1>\n", title, css, title)
	b.WriteString("<dl class=\"context\">")
	for _, f := range d.Header {
		fmt.Fprintf(&b, "<dt>%s</dt><dd>%s</dd>", html.EscapeString(f.Name), html.EscapeString(f.Value))
	}
	b.WriteString("</dl>\n")
	for _, sec := range d.Sections {
		fmt.Fprintf(&b, "<h2>%s</h2>\n", html.EscapeString(sec.Title))
		for _, p := range sec.Intro {
			text := p.Page
			if text == "" {
				text = p.Text
			}
			fmt.Fprintf(&b, "<p>%s</p>\n", inline(text))
		}
		if len(sec.List.Items) > 0 {
			fmt.Fprintf(&b, "<ul%s>", classAttr(sec.List.Class))
			for _, it := range sec.List.Items {
				fmt.Fprintf(&b, "<li%s>%s</li>", classAttr(it.Class), inline(it.Text))
			}
			b.WriteString("</ul>\n")
		}
		for _, c := range sec.Charts {
			c.svg(&b)
		}
		for _, t := range sec.Tables {
			if t.Title != "" {
				fmt.Fprintf(&b, "<h3>%s</h3>\n", html.EscapeString(t.Title))
			}
			htmlTable(&b, t)
		}
	}
	b.WriteString("<script>" + script + "</script>\n</body></html>\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// inline is prose as HTML: &, < and > escaped (quotes need none in text), `code` in <code>.
func inline(s string) string {
	s = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
	parts := strings.Split(s, "`")
	if len(parts)%2 == 0 {
		return s // an unpaired backtick: no code span
	}
	var b strings.Builder
	for i, p := range parts {
		if i%2 == 1 {
			p = "<code>" + p + "</code>"
		}
		b.WriteString(p)
	}
	return b.String()
}

func classAttr(class string) string {
	if class == "" {
		return ""
	}
	return ` class="` + html.EscapeString(class) + `"`
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

// htmlTable writes t in a box that scrolls sideways: a wide table (the cells, the storage)
// scrolls inside it instead of widening the page.
func htmlTable(b *strings.Builder, t Table) {
	fmt.Fprintf(b, "<div class=\"scroll-box\"><table%s><thead><tr>", classAttr(t.Class))
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
	b.WriteString("</tbody></table></div>\n")
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

const css = `body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#222;max-width:1280px}
table{font-size:13px}td{white-space:nowrap}table.summary td,table.summary th{white-space:normal}
table{border-collapse:collapse;margin:12px 0}th,td{border:1px solid #ccc;padding:3px 8px;text-align:right}
th{background:#f4f4f4}td:first-child,th:first-child{text-align:left}
figure{margin:18px 0}figcaption{font-weight:600;margin-bottom:4px}
svg.chart{background:#fff;border:1px solid #ddd;max-width:100%;height:auto}
.grid{stroke:#eee}.tick{font-size:11px;fill:#555}.label{font-size:12px;fill:#333}.value{font-size:11px;fill:#333}
.line{fill:none;stroke-width:1.6}.band{fill:#D55E00;opacity:.15}.marker{stroke:#555;stroke-width:1;stroke-dasharray:2 2}.marker-label{font-size:9px;fill:#555}.dot{stroke:none}
dl.context{display:grid;grid-template-columns:max-content auto;gap:2px 12px}dl.context dt{font-weight:600}dl.context dd{margin:0}
.grid-multiples{display:flex;flex-wrap:wrap;gap:8px}.panel{border:1px solid #eee;padding:2px}.panel-title{font-size:12px;font-weight:600;padding:2px 4px}
.panel svg.chart{border:none}li.interaction{color:#D55E00}table.failed td{color:#a00}
@media print{body{margin:0;max-width:none}figure,table,.panel{break-inside:avoid}.legend li{cursor:auto}}.line.dim{opacity:.12}.whisker{stroke:#222;stroke-width:1.5}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:4px 14px;font-size:12px}
.legend li{cursor:default}.legend span{display:inline-block;width:10px;height:10px;margin-right:4px}
.scroll-box{max-width:100%;overflow-x:auto}.scroll-box pre{margin:0}.scroll-box table{margin:6px 0}
.knee{fill:#E69F00;opacity:.22}.knee-label{font-size:11px;fill:#8a5a00}.key{font-size:12px;color:#555;margin:4px 0}
.dot.fail{stroke-width:1.6}.slo{stroke:#c00;stroke-width:1.8;stroke-dasharray:8 5}.slo-label{font-size:11px;fill:#c00;font-weight:600}`

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
document.body.setAttribute('data-page-width',String(document.documentElement.scrollWidth));
document.body.setAttribute('data-window-width',String(window.innerWidth));
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
