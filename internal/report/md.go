package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/result"
)

// Format prints one value of a metric.
func Format(m Metric, x float64) string {
	switch m.Unit {
	case "ns":
		return Duration(int64(math.Round(x)))
	case "B":
		return units.FormatSize(int64(x))
	case "msgs/s":
		return msgRate(x)
	}
	return units.Comma(int64(math.Round(x)))
}

// msgRate prints msgs/s with commas, and with decimals below 100 so a slow fixed-rate run's
// 0.4 msgs/s does not read 0.
func msgRate(x float64) string {
	if math.Abs(x) < 100 {
		return trim(x)
	}
	return units.Comma(int64(math.Round(x)))
}

// cellValue is the mean ± the standard deviation as a percentage of it over the repetitions
// (just the value for one run): "2.04ms ± 3%" reads at a glance where "2.04ms ± 61.2us" does not.
func cellValue(m Metric, s Stats) string {
	if s.N == 0 {
		return ""
	}
	if s.N == 1 || s.StdDev == 0 {
		return Format(m, s.Mean)
	}
	if s.Mean == 0 {
		return Format(m, s.Mean) + " ± " + Format(m, s.StdDev)
	}
	return fmt.Sprintf("%s ± %.0f%%", Format(m, s.Mean), s.StdDev/math.Abs(s.Mean)*100)
}

// Markdown writes the report (Build) as Markdown.
func Markdown(w io.Writer, s *Set, title string) error {
	d, err := Build(s, title)
	if err != nil {
		return err
	}
	return d.WriteMarkdown(w)
}

// WriteMarkdown writes the document as Markdown; charts are left out.
func (d *Document) WriteMarkdown(w io.Writer) error {
	return d.writeProse(w, prose{
		heading: func(level int, title string) string { return strings.Repeat("#", level) + " " + mdEscape(title) + "\n" },
		field:   func(f Field) string { return fmt.Sprintf("- **%s**: %s\n", f.Name, mdEscape(f.Value)) },
		table:   mdTable,
	})
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func mdTable(b *strings.Builder, t Table) {
	row := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + mdEscape(c) + " |")
		}
		b.WriteString("\n")
	}
	row(t.Head)
	b.WriteString("|" + strings.Repeat(" --- |", len(t.Head)) + "\n")
	for _, r := range t.Rows {
		row(r)
	}
}

func countRuns(s *Set) int {
	n := 0
	for _, c := range s.Cells {
		n += len(c.Runs)
	}
	return n
}

func storedVsExpected(stored, expected Stats) string {
	if stored.N == 0 {
		return ""
	}
	out := units.FormatSize(int64(stored.Mean)) + " / " + units.FormatSize(int64(expected.Mean))
	if expected.Mean > 0 {
		out += fmt.Sprintf(" (%.2fx)", stored.Mean/expected.Mean)
	}
	return out
}

func durOf(xs []float64) string {
	if len(xs) == 0 {
		return ""
	}
	return Duration(int64(Of(xs).Mean))
}

func pct(l *result.Latency, p float64) int64 {
	for _, x := range l.Percentiles {
		if x.P == p {
			return x.Ns
		}
	}
	return 0
}

// OneLine summarises a Result for the run command's log.
func OneLine(r *result.Result) string {
	v := Values(r)
	var parts []string
	for _, role := range []string{"pub", "sub", "request", "serve"} {
		if x, ok := v[role+".rate"]; ok {
			parts = append(parts, fmt.Sprintf("%s %s msgs/s per client (%s msgs/s total)", role, units.Comma(int64(x)), units.Comma(int64(v[role+".total"]))))
		}
	}
	for _, role := range []string{"sub", "pub", "request"} {
		if x, ok := v[role+".p50"]; ok {
			parts = append(parts, fmt.Sprintf("%s latency P50 %s P99 %s", role, Duration(int64(x)), Duration(int64(v[role+".p99"]))))
			break
		}
	}
	if x, ok := v["lost"]; ok {
		parts = append(parts, fmt.Sprintf("lost %d dup %d", int64(x), int64(v["duplicated"])))
	}
	parts = append(parts, r.Stop.Reason)
	return strings.Join(parts, " · ")
}
