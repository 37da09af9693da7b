package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/units"
)

// durabilitySection answers a durability scenario in one table (examples/durability.yaml):
// per cell the publish rate and P99 beside what --verify found after the faults, acknowledged
// messages lost, nodes whose copies diverged, and the longest unavailability. It shows when a
// run read its stream back.
func durabilitySection(s *Set) *Section {
	metrics := Metrics(s)
	var shown []Metric
	for _, m := range metrics {
		if m.Key == "pub.total" || m.Key == "pub.p99" {
			shown = append(shown, m)
		}
	}
	t := Table{Head: append([]string{}, s.Axes...), Class: "durability"}
	if len(s.Axes) == 0 {
		t.Head = append(t.Head, "cell")
	}
	t.Head = append(t.Head, "runs")
	for _, m := range shown {
		t.Head = append(t.Head, m.Label)
	}
	t.Head = append(t.Head, "acknowledged", "acked but lost", "diverged", "unavailable")
	found := false
	for _, c := range s.Cells {
		var acked, lost int64
		var diverged []string
		var unavailable time.Duration
		checked := 0
		for _, r := range c.OK() {
			v := r.Result.Verify
			if v == nil || v.Stream == "" || v.Error != "" {
				continue
			}
			checked++
			acked += v.Acked
			lost += v.AckedButMissing
			unavailable = max(unavailable, v.Unavailable)
			for _, d := range v.Diverged {
				if !strings.Contains(strings.Join(diverged, ","), d) {
					diverged = append(diverged, d)
				}
			}
		}
		if checked == 0 {
			continue
		}
		found = true
		var row []string
		if len(s.Axes) == 0 {
			row = append(row, c.Name)
		}
		for _, a := range s.Axes {
			row = append(row, c.Values[a])
		}
		row = append(row, c.RunsLabel())
		st := CellStats(c, metrics)
		for _, m := range shown {
			row = append(row, cellValue(m, st[m.Key]))
		}
		lostCell := units.Comma(lost)
		if lost > 0 && lost == acked {
			lostCell += " (all)"
		}
		div := "none"
		if len(diverged) > 0 {
			div = strings.Join(diverged, ", ")
		}
		row = append(row, units.Comma(acked), lostCell, div, fmt.Sprintf("%.2f s", unavailable.Seconds()))
		t.Rows = append(t.Rows, row)
	}
	if !found {
		return nil
	}
	return &Section{Title: "Durability", Tables: []Table{t}, Intro: []Para{{
		Text: "What --verify found after each cell's faults, summed over its runs: acknowledged messages, those missing from the stream after recovery, the nodes whose own copies disagreed, and the longest time without a successful ack or delivery. docs/durability.md",
		Page: "What --verify found after each cell's faults, summed over its runs.",
	}}}
}
