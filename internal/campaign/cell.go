package campaign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/live"
	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// streamAfter is the --duration from which "stream: auto" streams the series to disk.
const streamAfter = 5 * time.Minute

// cell is one repetition of a scenario cell. Consecutive cells share a target (tg).
type cell struct {
	o       *Options
	sc      *scenario.Scenario
	c       scenario.Cell
	rep     int
	tg      *runner.Targets
	metrics *live.Metrics
}

// run runs the cell's Spec through the runner, as a command's (setup once, one start
// barrier, post-run state, teardown; here, through natsperf-rust or across agents), or
// searches its capacity, then writes its Result file. The returned IndexRun has Stop ""
// when it could not start.
func (r cell) run(ctx context.Context) scenario.IndexRun {
	o, c, dir := r.o, r.c, r.o.Dir
	name := scenario.RunName(c, r.rep)
	ir := scenario.IndexRun{Repetition: r.rep, Result: name + ".json", Start: time.Now().UTC()}
	fail := func(err error) scenario.IndexRun {
		fmt.Fprintf(o.Err, "natsperf: %s: %s\n", name, oneLine(err.Error()))
		ir.Stop, ir.Error, ir.End = result.StopFailed, oneLine(err.Error()), time.Now().UTC()
		res := &result.Result{Schema: result.Schema, Command: "run", Start: ir.Start, End: ir.End, Stop: result.Stop{Reason: result.StopFailed, Error: ir.Error}}
		res.Settings, _ = json.Marshal(map[string]any{"scenario": r.info()})
		if werr := result.WriteFile(filepath.Join(dir, ir.Result), res); werr != nil {
			ir.Stop = ""
		}
		if ctx.Err() != nil {
			ir.Stop = result.StopInterrupted
		}
		return ir
	}
	s, err := c.Spec(o.Keep)
	if err != nil {
		return fail(err)
	}
	ro := o.Runner(s)
	// The intervals, live (also the agents', each client's series named after its agent:
	// a1/pod1/pub/1): the series file and --metrics-addr.
	sink, err := openCellSeries(c.File, s, dir, name, r.metrics, &ir)
	if err != nil {
		return fail(err)
	}
	ro.Targets = r.tg
	ro.Title = fmt.Sprintf("Scenario %s, %s, repetition %d", r.sc.Name, c.Name, r.rep)
	ro.Settings = map[string]any{"scenario": r.info()}
	if sink != nil {
		ro.Series = sink.C()
	}
	if r.metrics != nil {
		ro.OnStart = func(p runner.Starting) { r.metrics.StartRun(c.Name, name, p.Interval) }
	}
	var res *result.Result
	if c.File.Capacity != nil {
		res, err = r.capacity(ctx, s, ro, name, &ir)
	} else {
		res, err = runner.Run(ctx, s, ro)
	}
	if sink != nil {
		if serr := sink.Close(); serr != nil && err == nil {
			err = serr
		}
	}
	var in runner.InputError
	switch {
	case err != nil && ro.Agents != "" && !errors.As(err, &in):
		return fail(fmt.Errorf("across agents: %w", err))
	case err != nil:
		return fail(err)
	case ro.Agents != "":
		return r.record(ir, res, fmt.Sprintf(" (%d agents)", len(res.Distributed.Agents)), " ("+name+")")
	case runner.UsesRust(s):
		return r.record(ir, res, " (natsperf-rust)", " ("+name+")")
	}
	return r.record(ir, res, "", "")
}

// record saves a finished cell's Result as its index run ir names, and prints the cell's
// progress line: the one-line summary, then tag (who ran it), why a failed cell failed, and
// where (each prefixed as given, "" for none).
func (r cell) record(ir scenario.IndexRun, res *result.Result, tag, where string) scenario.IndexRun {
	ir.Stop, ir.Error, ir.Start, ir.End = res.Stop.Reason, res.Stop.Error, res.Start, res.End
	ir.Lost, ir.NotRecovered = res.Loss(), res.NotRecovered() != nil
	if err := result.WriteFile(filepath.Join(r.o.Dir, ir.Result), res); err != nil {
		ir.Stop = ""
		fmt.Fprintf(r.o.Err, "natsperf: %v\n", err)
		return ir
	}
	line := report.OneLine(res) + tag
	if res.Stop.Reason != result.StopCompleted && res.Stop.Error != "" && res.Stop.Error != res.Stop.Reason {
		line += ": " + oneLine(res.Stop.Error) // a failed cell says why on its progress line
	}
	fmt.Fprintf(r.o.Out, "  %s%s\n", line, where)
	return ir
}

// info is the cell's entry in its Result's settings.
func (r cell) info() map[string]any {
	values := map[string]string{}
	for _, v := range r.c.Values {
		values[v.Axis] = v.Value
	}
	return map[string]any{"name": r.sc.Name, "file": r.sc.Path, "cell": r.c.Name, "cell_index": r.c.Index, "values": values, "repetition": r.rep}
}

// openCellSeries opens a cell's live interval records: its series file (named in the index
// run ir) and --metrics-addr. nil when neither is wanted.
func openCellSeries(f *scenario.File, s *spec.Spec, dir, name string, metrics *live.Metrics, ir *scenario.IndexRun) (*live.Sink, error) {
	stream := streamSeries(f, s)
	if !stream && metrics == nil {
		return nil, nil
	}
	path := ""
	if stream || f.Stream == "" || f.Stream == "auto" {
		path = filepath.Join(dir, name+".series.jsonl")
		ir.Series = filepath.Base(path)
	}
	return live.Open(path, metrics)
}

// streamSeries decides whether a run streams its interval records to disk.
func streamSeries(f *scenario.File, s *spec.Spec) bool {
	switch f.Stream {
	case "always":
		return true
	case "never":
		return false
	}
	for _, w := range s.Workloads {
		if w.Pacing.Duration.D() >= streamAfter {
			return true
		}
	}
	return false
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
