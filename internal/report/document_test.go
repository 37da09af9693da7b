package report

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestSectionInEveryFormat: a section appended to a Document's list, with no code of its own
// in any renderer, is drawn by the Markdown, the page and the text, after the sections before
// it; its chart is drawn by the page only, and a section of charts alone is left out where
// charts are not drawn.
func TestSectionInEveryFormat(t *testing.T) {
	d, err := Build(adequacySet(10*time.Second, [2][]float64{{1000, 1010, 990}, {2000, 2020, 1980}}), "")
	if err != nil {
		t.Fatal(err)
	}
	d.Sections = append(d.Sections,
		Section{Title: "Zeta check", Intro: []Para{{Text: "Why `zeta` & <b> matter."}}, List: list("", []string{"point one"}),
			Charts: []Chart{barChart{title: "zeta bars", xlabel: "zetas", tick: HumanCount, bars: []bar{{name: "a", mean: 2, min: 1, max: 3}}}},
			Tables: []Table{{Title: "zeta table", Head: []string{"key", "value"}, Rows: [][]string{{"alpha", "42"}}}}},
		Section{Title: "Omega chart", Intro: []Para{{Text: "Only a chart."}},
			Charts: []Chart{barChart{title: "omega bars", xlabel: "omegas", tick: HumanCount, bars: []bar{{name: "b", mean: 1, min: 1, max: 1}}}}})
	for _, tc := range []struct {
		name       string
		write      func(*bytes.Buffer) error
		want       []string // in this order, after the Cells section
		chartsOnly []string // present only where charts are drawn
	}{
		{"md", func(b *bytes.Buffer) error { return d.WriteMarkdown(b) },
			[]string{"## Cells", "## Zeta check\n\nWhy `zeta` & <b> matter.\n\n- point one\n\n### zeta table\n\n| key | value |\n| --- | --- |\n| alpha | 42 |\n"}, nil},
		{"html", func(b *bytes.Buffer) error { return d.WriteHTML(b) },
			[]string{"<h2>Cells</h2>", "<h2>Zeta check</h2>\n<p>Why <code>zeta</code> &amp; &lt;b&gt; matter.</p>\n<ul><li>point one</li></ul>\n", `aria-label="zeta bars"`,
				"<h3>zeta table</h3>\n<div class=\"scroll-box\"><table><thead><tr><th>key</th><th>value</th></tr></thead><tbody>\n<tr><td>alpha</td><td>42</td></tr>\n</tbody></table></div>\n"},
			[]string{"<h2>Omega chart</h2>\n<p>Only a chart.</p>\n", `aria-label="omega bars"`}},
		{"text", func(b *bytes.Buffer) error { return d.WriteText(b) },
			[]string{"Cells\n-----", "Zeta check\n----------\n\nWhy `zeta` & <b> matter.\n\n- point one\n\nzeta table\n\nkey    value\nalpha  42\n"}, nil},
	} {
		var b bytes.Buffer
		if err := tc.write(&b); err != nil {
			t.Fatal(err)
		}
		out, at := b.String(), 0
		for _, w := range append(tc.want, tc.chartsOnly...) {
			i := strings.Index(out[at:], w)
			if i < 0 {
				t.Errorf("%s lacks, after byte %d, %q:\n%s", tc.name, at, w, out)
				break
			}
			at += i + len(w)
		}
		if tc.chartsOnly == nil && (strings.Contains(out, "Omega") || strings.Contains(out, "Only a chart")) {
			t.Errorf("%s draws no chart but shows the section of a chart alone:\n%s", tc.name, out)
		}
	}
}
