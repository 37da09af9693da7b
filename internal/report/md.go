package report

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/units"
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

// Markdown writes the report: one row per cell, then per-instance tables per cell.
func Markdown(w io.Writer, s *Set, title string) error {
	metrics := Metrics(s)
	var b strings.Builder
	if title == "" {
		title = "natsperf report"
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	for _, f := range Header(s) {
		fmt.Fprintf(&b, "- **%s**: %s\n", f.Name, mdEscape(f.Value))
	}
	b.WriteString("\n")
	inadequateMD(&b, s)
	failedRuns(&b, s)
	effectsMD(&b, s)
	b.WriteString("## Cells\n\n")
	fmt.Fprintf(&b, "%d cells, %d runs. Values are the mean ± the standard deviation (in %% of the mean) over the repetitions that did not fail; rates per client are the average of the msgs/sec of every client that has one (nats bench's \"avg\"), totals add the instances up; latency percentiles merge every run's histogram.\n\n", len(s.Cells), countRuns(s))
	head := append([]string{}, s.Axes...)
	if len(s.Axes) == 0 {
		head = append(head, "cell")
	}
	head = append(head, "runs")
	var cols []Metric
	for _, m := range metrics {
		if m.Key == "expected" {
			continue
		}
		cols = append(cols, m)
		if m.Key == "stored" {
			head = append(head, "stored / expected")
			continue
		}
		head = append(head, m.Label)
	}
	table(&b, head, func(row func(...string)) {
		for _, c := range s.Cells {
			st := CellStats(c, metrics)
			var cells []string
			if len(s.Axes) == 0 {
				cells = append(cells, c.Name)
			}
			for _, a := range s.Axes {
				cells = append(cells, c.Values[a])
			}
			cells = append(cells, c.RunsLabel())
			for _, m := range cols {
				if m.Key == "stored" {
					cells = append(cells, storedVsExpected(st["stored"], st["expected"]))
					continue
				}
				cells = append(cells, cellValue(m, st[m.Key]))
			}
			row(cells...)
		}
	})
	if t := StorageTable(s); t != nil {
		b.WriteString("\n## Storage\n\nWhat the servers hold (every replica) against messages x replicas x size; above 1 is the overhead of the store.\n\n")
		mdTable(&b, *t)
	}
	stab, err := Stabilities(s)
	if err != nil {
		return err
	}
	for _, st := range stab {
		fmt.Fprintf(&b, "\n## Stability: %s, repetition %d\n\n%s in %d windows of %s.\n", mdEscape(st.Cell), st.Repetition, HumanDuration(st.Duration), len(st.Windows), HumanDuration(st.Width))
		for _, t := range StabilityTables(st) {
			fmt.Fprintf(&b, "\n### %s\n\n", mdEscape(t.Title))
			mdTable(&b, t)
		}
	}
	first := true
	for _, c := range s.Cells {
		if t := InstanceTable(c); t != nil {
			if first {
				b.WriteString("\n## Per instance\n")
				first = false
			}
			fmt.Fprintf(&b, "\n### %s\n\n", mdEscape(t.Title))
			mdTable(&b, *t)
		}
	}
	first = true
	for _, c := range s.Cells {
		if t := AgentTable(c); t != nil {
			if first {
				b.WriteString("\n## Per agent\n")
				first = false
			}
			fmt.Fprintf(&b, "\n### %s\n\n", mdEscape(t.Title))
			mdTable(&b, *t)
		}
	}
	if notes := stopNotes(s); len(notes) > 0 {
		b.WriteString("\n## Notes\n\n")
		for _, n := range notes {
			b.WriteString("- " + n + "\n")
		}
	}
	_, err = io.WriteString(w, b.String())
	return err
}

// failedRuns lists the runs left out of every figure, with their reasons.
func failedRuns(b *strings.Builder, s *Set) {
	rows := failures(s)
	if len(rows) == 0 {
		return
	}
	b.WriteString("## Failed runs\n\nLeft out of every figure above; `natsperf run --resume` runs them again.\n\n")
	table(b, []string{"cell", "repetition", "reason"}, func(row func(...string)) {
		for _, f := range rows {
			row(f.cell, fmt.Sprint(f.rep), mdEscape(f.reason))
		}
	})
	b.WriteString("\n")
}

func mdEscape(s string) string { return strings.ReplaceAll(s, "|", "\\|") }

func mdTable(b *strings.Builder, t Table) {
	table(b, t.Head, func(row func(...string)) {
		for _, r := range t.Rows {
			row(r...)
		}
	})
}

// effectsMD is "What each choice changes": verdicts, interactions, then a table per axis.
func effectsMD(b *strings.Builder, s *Set) {
	effects := Effects(s)
	if len(effects) == 0 {
		return
	}
	b.WriteString("## What each choice changes\n\n")
	b.WriteString("Each level against the axis's first, in cells that differ in that axis only: the ratio of the means with a 95% interval from the repetitions (`*`: the interval excludes 1). Failed runs are left out.\n\n")
	_, verdicts, interactions := EffectLines(effects)
	for _, v := range verdicts {
		b.WriteString("- " + v + "\n")
	}
	if len(verdicts) == 0 {
		b.WriteString("- No choice changes a headline metric beyond the noise of the repetitions.\n")
	}
	for _, x := range interactions {
		b.WriteString("- Interaction: " + x + "\n")
	}
	for _, t := range EffectTables(s, effects) {
		b.WriteString("\n")
		mdTable(b, t)
	}
	b.WriteString("\n")
}

type failure struct {
	cell   string
	rep    int
	reason string
}

func failures(s *Set) []failure {
	var out []failure
	for _, c := range s.Cells {
		for _, r := range c.FailedRuns() {
			out = append(out, failure{c.Name, r.Repetition, r.FailReason()})
		}
	}
	return out
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

func stopNotes(s *Set) []string {
	var out []string
	for _, c := range s.Cells {
		for _, r := range c.Runs {
			if r.Result.Stop.Reason != result.StopCompleted && !r.Failed() {
				out = append(out, fmt.Sprintf("%s, repetition %d: stopped %s: %s", c.Name, r.Repetition, r.Result.Stop.Reason, r.Result.Stop.Error))
			}
		}
	}
	return out
}

func table(b *strings.Builder, head []string, rows func(row func(...string))) {
	b.WriteString("| " + strings.Join(head, " | ") + " |\n|")
	for range head {
		b.WriteString(" --- |")
	}
	b.WriteString("\n")
	rows(func(cells ...string) {
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	})
}

// OneLine summarises a Result for the run command's log.
func OneLine(r *result.Result) string {
	v := Values(r)
	var parts []string
	for _, role := range []string{"pub", "sub", "request", "serve"} {
		if x, ok := v[role+".rate"]; ok {
			parts = append(parts, fmt.Sprintf("%s %s msgs/s per client (%s total)", role, units.Comma(int64(x)), units.Comma(int64(v[role+".total"]))))
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
