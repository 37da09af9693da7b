package report

import (
	"fmt"
	"math"
	"strings"

	"github.com/natsperf/natsperf/result"
)

// The sections of a report, one function each, returning nil when it has nothing to show.
// Build lists them in order.

func inadequacySection(s *Set) *Section {
	lines := Inadequacies(s)
	if len(lines) == 0 {
		return nil
	}
	return &Section{Title: "Too short or too few to answer", List: list("inadequate", lines)}
}

func failedSection(s *Set) *Section {
	t := Table{Head: []string{"cell", "repetition", "reason"}, Class: "failed"}
	for _, c := range s.Cells {
		for _, r := range c.FailedRuns() {
			t.Rows = append(t.Rows, []string{c.Name, fmt.Sprint(r.Repetition), r.FailReason()})
		}
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return &Section{Title: "Failed runs", Tables: []Table{t}, Intro: []Para{{
		Text: "Left out of every figure above; `natsperf run --resume` runs them again.",
		Page: "Left out of every figure; `natsperf run --resume` runs them again.",
	}}}
}

// effectsSection is "What each choice changes": verdicts, interactions, then a table per axis.
func effectsSection(s *Set) *Section {
	effects := Effects(s)
	if len(effects) == 0 {
		return nil
	}
	const intro = "Each level against the axis's first, in cells that differ in that axis only: the ratio of the means with a 95%% interval from the repetitions (%s the interval excludes 1). Failed runs are left out."
	_, verdicts, interactions := EffectLines(effects)
	l := list("verdicts", verdicts)
	if len(verdicts) == 0 {
		l.Items = append(l.Items, Item{Text: "No choice changes a headline metric beyond the noise of the repetitions."})
	}
	for _, x := range interactions {
		l.Items = append(l.Items, Item{Text: "Interaction: " + x, Class: "interaction"})
	}
	return &Section{Title: "What each choice changes", List: l, Tables: EffectTables(s, effects),
		Intro: []Para{{Text: fmt.Sprintf(intro, "`*`:"), Page: fmt.Sprintf(intro, "*")}}}
}

// cellsSection is the summary: one row per cell.
func cellsSection(s *Set, metrics []Metric) *Section {
	n, runs := len(s.Cells), countRuns(s)
	return &Section{Title: "Cells", Tables: []Table{summaryTable(s, metrics)}, Intro: []Para{{
		Text: fmt.Sprintf("%d cells, %d runs. Values are the mean ± the standard deviation (in %% of the mean) over the repetitions that did not fail; rates per client are the average of the msgs/sec of every client that has one (nats bench's \"avg\"), totals add the instances up; latency percentiles merge every run's histogram.", n, runs),
		Page: fmt.Sprintf("%d cells, %d runs. Mean ± the standard deviation in %% of the mean over the repetitions that did not fail; whiskers span min to max.", n, runs),
	}}}
}

func summaryTable(s *Set, metrics []Metric) Table {
	t := Table{Head: append([]string{}, s.Axes...), Class: "summary"}
	if len(s.Axes) == 0 {
		t.Head = append(t.Head, "cell")
	}
	t.Head = append(t.Head, "runs")
	var cols []Metric
	for _, m := range metrics {
		switch m.Key {
		case "expected":
			continue
		case "stored":
			t.Head = append(t.Head, "stored / expected")
		default:
			t.Head = append(t.Head, m.Label)
		}
		cols = append(cols, m)
	}
	for _, c := range s.Cells {
		st := CellStats(c, metrics)
		var row []string
		if len(s.Axes) == 0 {
			row = append(row, c.Name)
		}
		for _, a := range s.Axes {
			row = append(row, c.Values[a])
		}
		row = append(row, c.RunsLabel())
		for _, m := range cols {
			if m.Key == "stored" {
				row = append(row, storedVsExpected(st["stored"], st["expected"]))
				continue
			}
			row = append(row, cellValue(m, st[m.Key]))
		}
		t.Rows = append(t.Rows, row)
	}
	return t
}

func storageSection(s *Set) *Section {
	t := StorageTable(s)
	if t == nil {
		return nil
	}
	return &Section{Title: "Storage", Tables: []Table{*t}, Intro: []Para{{
		Text: "What the servers hold (every replica) against messages x replicas x size; above 1 is the overhead of the store.",
		Page: "What the servers hold (every replica) against messages x replicas x size.",
	}}}
}

// comparedSection is a bar chart per total rate and P99: a bar per cell.
func comparedSection(s *Set, metrics []Metric) *Section {
	if len(s.Cells) < 2 {
		return nil
	}
	sec := &Section{Title: "Cells compared"}
	for _, m := range metrics {
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
		f := barChart{title: m.Label, xlabel: m.Label, tick: HumanCount, bars: bars}
		if m.Unit == "ns" {
			f.tick, f.xlabel = HumanNanos, m.Label+" (latency)"
		}
		sec.Charts = append(sec.Charts, f)
	}
	return sec
}

// throughputSection is each cell's msgs/s over time, for runs that did not stream their
// series (the stability view shows those).
func throughputSection(s *Set) *Section {
	var tp []panel
	for _, c := range s.Cells {
		ok := c.OK()
		if len(ok) == 0 || ok[0].SeriesPath != "" {
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
	if len(tp) == 0 {
		return nil
	}
	return &Section{Title: "Throughput over time",
		Intro:  []Para{{Text: "One chart per cell on the same axes: the first repetition that did not fail, every instance added up."}},
		Charts: []Chart{smallMultiples{"msgs/s over time", axis{label: "time from the start", fmt: HumanDuration, time: true}, axis{label: "msgs/s", fmt: HumanCount}, tp}}}
}

// spectrumSection is each cell's latency by percentile, HdrHistogram's way.
func spectrumSection(s *Set) *Section {
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
	if len(lp) == 0 {
		return nil
	}
	return &Section{Title: "Latency percentile spectrum",
		Intro:  []Para{{Text: "One chart per cell on the same axes, every repetition merged. HdrHistogram's view: x is 1/(1-percentile) on a log axis."}},
		Charts: []Chart{smallMultiples{"latency by percentile", axis{log: true, label: "percentile", fmt: spectrumTick}, axis{label: "latency", fmt: HumanNanos}, lp}}}
}

// stabilitySection is a long run's view: throughput and latency per window with the stalls
// and faults shaded, then drift, stalls and faults as tables.
func stabilitySection(st *Stability) *Section {
	intro := fmt.Sprintf("%s in %d windows of %s.", HumanDuration(st.Duration), len(st.Windows), HumanDuration(st.Width))
	sec := &Section{Title: fmt.Sprintf("Stability: %s, repetition %d", st.Cell, st.Repetition), Tables: StabilityTables(st),
		Intro: []Para{{Text: intro, Page: fmt.Sprintf("%s Shaded: stalls (no message for more than %s) and faults.", intro, HumanDuration(st.Threshold))}}}
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
	bands := append(append([]band{}, st.Faults...), st.Markers...)
	for _, s := range st.Stalls {
		bands = append(bands, band{from: s.From, to: s.To, label: s.Role + " stall " + HumanDuration(s.To-s.From)})
	}
	chart := func(title string, ya axis, lines []series) {
		sec.Charts = append(sec.Charts, timeChart{title: title, ya: ya, lines: lines, bands: bands, duration: st.Duration})
	}
	var tl []series
	if len(pub) > 0 && anyY(pub) {
		tl = append(tl, series{name: "pub", pts: pub})
	}
	if anyY(sub) {
		tl = append(tl, series{name: "sub", pts: sub})
	}
	chart("msgs/s per window", axis{label: "msgs/s", fmt: HumanCount}, tl)
	if len(mx) > 0 {
		lines := []series{{name: "max", pts: mx}}
		if len(p50) > 0 {
			lines = []series{{name: "P50", pts: p50}, {name: "P99", pts: p99}, {name: "max", pts: mx}}
		}
		role := st.LatencyRole
		if role == "" {
			role = "all groups'"
		}
		chart(role+" latency per window", axis{label: "latency", fmt: HumanNanos}, lines)
	}
	if len(st.CPU) > 0 {
		chart("server CPU (% of one core; embedded: natsperf's whole process)", axis{label: "CPU %", fmt: trim}, st.CPU)
		chart("server memory (resident)", axis{label: "bytes", fmt: HumanCount}, st.Mem)
	}
	return sec
}

// cellTablesSection is one table per cell that has one (per instance, per agent), each
// headed by its title.
func cellTablesSection(s *Set, title string, table func(*Cell) *Table) *Section {
	sec := &Section{Title: title}
	for _, c := range s.Cells {
		if t := table(c); t != nil {
			sec.Tables = append(sec.Tables, *t)
		}
	}
	if len(sec.Tables) == 0 {
		return nil
	}
	return sec
}

// notesSection lists the runs that stopped early without failing.
func notesSection(s *Set) *Section {
	var notes []string
	for _, c := range s.Cells {
		for _, r := range c.Runs {
			if r.Result.Stop.Reason != result.StopCompleted && !r.Failed() {
				notes = append(notes, fmt.Sprintf("%s, repetition %d: stopped %s: %s", c.Name, r.Repetition, r.Result.Stop.Reason, r.Result.Stop.Error))
			}
		}
	}
	if len(notes) == 0 {
		return nil
	}
	return &Section{Title: "Notes", List: list("", notes)}
}

func list(class string, texts []string) List {
	l := List{Class: class}
	for _, t := range texts {
		l.Items = append(l.Items, Item{Text: t})
	}
	return l
}
