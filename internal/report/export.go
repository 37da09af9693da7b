package report

import (
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/natsperf/natsperf/internal/histo"
)

// CSV writes one row per run: the cell, its axis values, the repetition and every metric.
func CSV(w io.Writer, s *Set) error {
	metrics := Metrics(s)
	cw := csv.NewWriter(w)
	head := append([]string{"cell"}, s.Axes...)
	head = append(head, "repetition", "stop", "error")
	for _, m := range metrics {
		head = append(head, m.Key)
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	for _, c := range s.Cells {
		for _, r := range c.Runs {
			row := []string{c.Name}
			for _, a := range s.Axes {
				row = append(row, c.Values[a])
			}
			row = append(row, strconv.Itoa(r.Repetition), r.Result.Stop.Reason, r.Result.Stop.Error)
			v := Values(r.Result)
			for _, m := range metrics {
				x, ok := v[m.Key]
				if !ok {
					row = append(row, "")
					continue
				}
				row = append(row, strconv.FormatFloat(x, 'f', -1, 64))
			}
			if err := cw.Write(row); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// jsonCell is a cell in the JSON report.
type jsonCell struct {
	Name    string            `json:"name"`
	Values  map[string]string `json:"values,omitempty"`
	Runs    int               `json:"runs"` // the runs the metrics come from
	Failed  []jsonFailed      `json:"failed,omitempty"`
	Metrics map[string]Stats  `json:"metrics"`
}

// jsonEffect is one axis level's effect on one metric (see Effect): low and high are the 95%
// interval, absent without one.
type jsonEffect struct {
	Axis        string   `json:"axis"`
	Level       string   `json:"level"`
	Baseline    string   `json:"baseline"`
	Metric      string   `json:"metric"`
	Ratio       float64  `json:"ratio"`
	Low         *float64 `json:"low,omitempty"`
	High        *float64 `json:"high,omitempty"`
	Pairs       int      `json:"pairs"`
	Significant bool     `json:"significant"`
	FlipsWith   []string `json:"flips_with,omitempty"`
}

// jsonFailed is a run left out of the metrics.
type jsonFailed struct {
	Repetition int    `json:"repetition"`
	Reason     string `json:"reason"`
}

// JSON writes the per-cell statistics.
func JSON(w io.Writer, s *Set) error {
	metrics := Metrics(s)
	out := struct {
		Schema  string       `json:"schema"`
		Axes    []string     `json:"axes,omitempty"`
		Metrics []Metric     `json:"metrics"`
		Cells   []jsonCell   `json:"cells"`
		Effects []jsonEffect `json:"effects,omitempty"`
		// Warnings are the "too short or too few to answer" lines (Inadequacies).
		Warnings []string `json:"warnings,omitempty"`
	}{Schema: "natsperf.report/v2", Axes: s.Axes, Metrics: metrics, Warnings: Inadequacies(s)}
	for _, e := range Effects(s) {
		je := jsonEffect{Axis: e.Axis, Level: e.Level, Baseline: e.Baseline, Metric: e.Metric.Key, Ratio: e.Ratio, Pairs: e.Pairs, Significant: e.Significant()}
		if e.CI {
			je.Low, je.High = &e.Lo, &e.Hi
		}
		for _, f := range e.Flips {
			je.FlipsWith = append(je.FlipsWith, f.Axis)
		}
		out.Effects = append(out.Effects, je)
	}
	for _, c := range s.Cells {
		jc := jsonCell{Name: c.Name, Values: c.Values, Runs: len(c.OK()), Metrics: map[string]Stats{}}
		for _, r := range c.FailedRuns() {
			jc.Failed = append(jc.Failed, jsonFailed{r.Repetition, r.FailReason()})
		}
		for k, st := range CellStats(c, metrics) {
			jc.Metrics[k] = st
		}
		out.Cells = append(out.Cells, jc)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// HGRM writes each cell's merged receiver latency (or the first role with latency) as an
// HdrHistogram percentile distribution, one block per cell headed by a # line; ErrNoLatency
// when no cell has one, so that an empty answer is never mistaken for an empty histogram.
func HGRM(w io.Writer, s *Set) error {
	written := 0
	for _, c := range s.Cells {
		for _, role := range []string{"sub", "request", "pub", "serve"} {
			h := c.Latency(role)
			if h == nil {
				continue
			}
			if _, err := fmt.Fprintf(w, "# %s: %s latency, %d runs\n", c.Name, role, len(c.OK())); err != nil {
				return err
			}
			if err := histo.WriteHGRM(w, h); err != nil {
				return err
			}
			if _, err := fmt.Fprintln(w); err != nil {
				return err
			}
			written++
			break
		}
	}
	if written == 0 {
		return ErrNoLatency
	}
	return nil
}

// ErrNoLatency says a report asked for latency distributions found none to write.
var ErrNoLatency = errors.New("no latency histogram in these Results (core publishers measure none; runs with --no-latency or payloads below 16 B record none)")
