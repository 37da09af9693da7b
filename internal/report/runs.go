package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/internal/live"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
)

// Entry is one Result with where it sits in a scenario.
type Entry struct {
	Path       string
	Cell       string
	Values     map[string]string
	Repetition int
	Result     *result.Result
	SeriesPath string // streamed interval records, "" when the Result holds them
	// Capacity is the cell's capacity search, when the scenario searched it (capacity:).
	Capacity *capacity.Outcome
}

// Cell is the runs of one matrix cell, in repetition order.
type Cell struct {
	Name   string
	Index  int
	Values map[string]string
	Runs   []Entry
}

// Set is what report and compare read: cells in order, and the axes that name them.
type Set struct {
	Axes  []string
	Cells []*Cell
	// From the run directory's index, for the report's header.
	Scenario, Description, File string
	Vars                        map[string]string
}

// Load reads run directories (with index.json) and Result files. Results that are not part
// of a scenario form one cell each, named after their file.
func Load(paths []string) (*Set, error) {
	s := &Set{}
	at := map[string]*Cell{}
	add := func(r Entry, index int) {
		r = apartByServer(r, at)
		c := at[r.Cell]
		if c == nil {
			c = &Cell{Name: r.Cell, Index: index, Values: r.Values}
			at[r.Cell] = c
			s.Cells = append(s.Cells, c)
		}
		c.Runs = append(c.Runs, r)
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			return nil, fmt.Errorf("read results: %w", err)
		}
		if st.IsDir() {
			ix, err := scenario.ReadIndex(p)
			if err != nil {
				return nil, fmt.Errorf("%s is not a run directory: %w", p, err)
			}
			if s.Scenario == "" {
				s.Scenario, s.Description, s.File, s.Vars = ix.Scenario, ix.Description, ix.File, ix.Vars
			}
			if len(s.Axes) == 0 {
				for _, a := range ix.Axes {
					s.Axes = append(s.Axes, a.Name)
				}
			}
			for _, c := range ix.Cells {
				for _, r := range c.Runs {
					if !r.Done() {
						continue
					}
					res, err := result.ReadFile(filepath.Join(p, r.Result))
					if err == nil {
						err = checkResult(filepath.Join(p, r.Result), res)
					}
					if err != nil {
						return nil, err
					}
					run := Entry{Path: filepath.Join(p, r.Result), Cell: c.Name, Values: c.Values, Repetition: r.Repetition, Result: res}
					if r.Series != "" {
						run.SeriesPath = filepath.Join(p, r.Series)
					}
					if r.Capacity != "" {
						if run.Capacity, err = readCapacity(filepath.Join(p, r.Capacity)); err != nil {
							return nil, err
						}
					}
					add(run, c.Index)
				}
			}
			continue
		}
		res, err := result.ReadFile(p)
		if err == nil {
			err = checkResult(p, res)
		}
		if err != nil {
			return nil, err
		}
		run := Entry{Path: p, Result: res, Repetition: 1}
		var info struct {
			Scenario struct {
				Cell       string            `json:"cell"`
				Index      int               `json:"cell_index"`
				Values     map[string]string `json:"values"`
				Repetition int               `json:"repetition"`
			} `json:"scenario"`
		}
		_ = json.Unmarshal(res.Settings, &info)
		index := len(s.Cells)
		if info.Scenario.Cell != "" {
			run.Cell, run.Values, run.Repetition, index = info.Scenario.Cell, info.Scenario.Values, info.Scenario.Repetition, info.Scenario.Index
		} else {
			run.Cell = strings.TrimSuffix(filepath.Base(p), ".json")
		}
		if sp := strings.TrimSuffix(p, ".json") + ".series.jsonl"; fileExists(sp) {
			run.SeriesPath = sp
		}
		add(run, index)
	}
	if len(s.Cells) == 0 {
		return nil, errors.New("no finished runs to report")
	}
	sort.SliceStable(s.Cells, func(i, j int) bool { return s.Cells[i].Index < s.Cells[j].Index })
	addClientAxis(s)
	if len(s.Axes) == 0 {
		seen := map[string]bool{}
		for _, c := range s.Cells {
			for k := range c.Values {
				if !seen[k] {
					seen[k] = true
					s.Axes = append(s.Axes, k)
				}
			}
		}
		sort.Strings(s.Axes)
	}
	return s, nil
}

// ClientAxis is the axis that names a cell's client libraries.
const ClientAxis = "client"

// addClientAxis gives every cell a "client" value (its runs' client libraries, e.g. nats.go,
// async-nats, or async-nats+nats.go for a merged run) when the cells measured more than one
// library and no axis names it already, so tables show Go and Rust rows side by side.
func addClientAxis(s *Set) {
	if slices.Contains(s.Axes, ClientAxis) {
		return
	}
	libs := map[string]bool{}
	cellLib := make([]string, len(s.Cells))
	for i, c := range s.Cells {
		if c.Values[ClientAxis] != "" {
			return // a scenario's own client: value
		}
		if len(c.Runs) > 0 {
			cellLib[i] = c.Runs[0].Result.Libraries()
			libs[cellLib[i]] = true
		}
	}
	if len(libs) < 2 {
		return
	}
	for i, c := range s.Cells {
		v := make(map[string]string, len(c.Values)+1)
		maps.Copy(v, c.Values)
		v[ClientAxis] = cellLib[i]
		c.Values = v
	}
	if len(s.Axes) > 0 {
		s.Axes = append(s.Axes, ClientAxis)
	}
}

func fileExists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// Series is a run's throughput over time per role ("pub", "sub"): msgs/sec per interval,
// from the Result or from its streamed series file.
func (r Entry) Series() map[string][]Point {
	out := map[string]map[float64]float64{}
	width := 1.0
	addPoint := func(role string, off float64, msgs int64) {
		if out[role] == nil {
			out[role] = map[float64]float64{}
		}
		out[role][off] += float64(msgs)
	}
	if r.SeriesPath != "" {
		lines, _ := live.Read(r.SeriesPath)
		start := r.Result.Start.UnixNano()
		for _, l := range lines {
			grp := l.Src
			if i := strings.LastIndexByte(grp, '/'); i > 0 {
				grp = grp[:i]
			}
			addPoint(Role(grp), float64(l.T-start)/1e9, l.Msgs)
		}
		width = intervalOf(r.Result)
	}
	for _, g := range r.Result.Groups {
		for _, iv := range g.Series {
			addPoint(Role(g.Name), iv.Offset.Seconds(), iv.Msgs)
		}
		if len(g.Series) > 1 {
			width = (g.Series[1].Offset - g.Series[0].Offset).Seconds()
		}
	}
	res := map[string][]Point{}
	dur := r.Result.End.Sub(r.Result.Start).Seconds()
	for role, m := range out {
		var pts []Point
		for x, y := range m {
			w := width
			if rest := dur - x; rest > 0 && rest < w {
				w = rest // the last interval ends with the run: its rate is over what it lasted
			}
			pts = append(pts, Point{X: x, Y: y / w})
		}
		sort.Slice(pts, func(i, j int) bool { return pts[i].X < pts[j].X })
		res[role] = fillGaps(pts, width)
	}
	return res
}

// intervalOf reads the series interval from the Result's settings (1s when unknown).
func intervalOf(r *result.Result) float64 {
	var s struct {
		Workloads map[string]struct {
			Settings struct {
				Bench struct {
					Interval int64 `json:"interval"`
				} `json:"bench"`
			} `json:"settings"`
		} `json:"workloads"`
	}
	_ = json.Unmarshal(r.Settings, &s)
	for _, w := range s.Workloads {
		if w.Settings.Bench.Interval > 0 {
			return float64(w.Settings.Bench.Interval) / 1e9
		}
	}
	return 1
}

// Point is one point of a chart.
type Point struct{ X, Y float64 }

// Role is a group's role without its instance prefix: "pod1/pub" is "pub".
func Role(group string) string {
	if i := strings.LastIndexByte(group, '/'); i >= 0 {
		return group[i+1:]
	}
	return group
}

// Instance is a group's instance prefix: "pod1/pub" is "pod1", "pub" is "".
func Instance(group string) string {
	if i := strings.LastIndexByte(group, '/'); i >= 0 {
		return group[:i]
	}
	return ""
}

// Failed reports whether the run failed: its figures are partial or zero, so no aggregate
// takes them in; reports list it with its reason instead.
func (r Entry) Failed() bool { return r.Result.Stop.Reason == result.StopFailed }

// OK is the cell's runs that did not fail, the only ones aggregated.
func (c *Cell) OK() []Entry {
	var out []Entry
	for _, r := range c.Runs {
		if !r.Failed() {
			out = append(out, r)
		}
	}
	return out
}

// FailedRuns is the cell's failed runs.
func (c *Cell) FailedRuns() []Entry {
	var out []Entry
	for _, r := range c.Runs {
		if r.Failed() {
			out = append(out, r)
		}
	}
	return out
}

// RunsLabel is how many runs a cell's figures come from: "3", or "2 (1 failed)".
func (c *Cell) RunsLabel() string {
	ok, failed := len(c.OK()), len(c.FailedRuns())
	label := fmt.Sprint(ok)
	if failed > 0 {
		label = fmt.Sprintf("%d (%d failed)", ok, failed)
	}
	return label + c.sloLabel()
}

// sloLabel marks a cell whose runs were judged on thresholds (--slo, a scenario's slo:):
// "SLO pass" when every run that completed held them all, else how many did not.
func (c *Cell) sloLabel() string {
	judged, missed := 0, 0
	for _, r := range c.OK() {
		if len(r.Result.SLO) == 0 {
			continue
		}
		judged++
		for _, v := range r.Result.SLO {
			if !v.Pass {
				missed++
				break
			}
		}
	}
	switch {
	case judged == 0:
		return ""
	case missed == 0:
		return ", SLO pass"
	}
	return fmt.Sprintf(", SLO FAIL in %d of %d", missed, judged)
}

// FailReason is a failed run's stop reason, one line.
func (r Entry) FailReason() string {
	if r.Result.Stop.Error == "" {
		return "no reason recorded"
	}
	return strings.ReplaceAll(r.Result.Stop.Error, "\n", " ")
}

// fillGaps adds a zero for every interval missing between two points: a client records no
// interval in which nothing moved, and a line drawn straight across an outage would show
// traffic that never was.
func fillGaps(pts []Point, width float64) []Point {
	if width <= 0 || len(pts) < 2 {
		return pts
	}
	out := make([]Point, 0, len(pts))
	for i, p := range pts {
		if i > 0 {
			for x := pts[i-1].X + width; x < p.X-width/2 && len(out) < 1_000_000; x += width {
				out = append(out, Point{X: x})
			}
		}
		out = append(out, p)
	}
	return out
}

// readCapacity reads a cell's capacity search.
func readCapacity(path string) (*capacity.Outcome, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read capacity: %w", err)
	}
	var o capacity.Outcome
	if err := json.Unmarshal(b, &o); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if o.Schema != capacity.Schema {
		return nil, fmt.Errorf("%s: schema %q is not %s", path, o.Schema, capacity.Schema)
	}
	return &o, nil
}
