package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/live"
	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/runopts"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// streamAfter is the --duration from which "stream: auto" streams the series to disk.
const streamAfter = 5 * time.Minute

// workloadSpec builds the Spec of one scenario workload's command line, as the command would:
// parsed with the command's own flag definitions (in a tree of its own, so no flag keeps
// another workload's value) and built by the command's Spec builder. Nothing runs.
func (a *app) workloadSpec(args []string) (*spec.Spec, error) {
	var sink bytes.Buffer
	root, wa := newApp(&Streams{Out: &sink, Err: &sink, Env: a.streams.Env})
	cmd, rest, err := root.Find(args)
	if err != nil {
		return nil, usageError{err}
	}
	build, ok := wa.builders[cmd]
	if !ok || cmd.Name() == "latency" {
		return nil, usagef("%q is not a benchmark command (pub, sub, pubsub, service, js, kv)", strings.Join(args, " "))
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return nil, usageError{err}
	}
	for _, f := range []string{"json", "output", "server", "context", "hist"} {
		if fl := cmd.Flags().Lookup(f); fl != nil && fl.Changed {
			return nil, usagef("--%s is set by the scenario (target:, run -o), not by a workload", f)
		}
	}
	if err := cmd.ValidateArgs(cmd.Flags().Args()); err != nil {
		return nil, err
	}
	sr, err := build(cmd, cmd.Flags().Args())
	if err != nil {
		return nil, err
	}
	if err := wa.withClient(sr.spec); err != nil {
		return nil, err
	}
	return sr.spec, nil
}

// checkWorkloadArgs checks a workload's command line when the scenario is loaded: unknown
// commands and flags, wrong arguments and bad values are found before anything runs.
func (a *app) checkWorkloadArgs(args []string) error {
	_, err := a.workloadSpec(args)
	return err
}

// cellSpec is a cell as the Spec the runner runs, its target the connection to use: the
// command line's -s or --context win over the file's target (scenario.Cell.Spec made it the
// Spec's), whose TLS switches the command line may add to; with neither, NATS_URL or the nats
// context, else an embedded server.
func (a *app) cellSpec(c scenario.Cell, keep bool) (*spec.Spec, error) {
	s, err := c.Spec(a.workloadSpec, keep)
	if err != nil {
		return nil, err
	}
	cli, file := a.conn.s, s.Target
	var conn connect.Settings
	switch {
	case cli.Servers != "" || cli.Context != "":
		conn = cli
	case s.Target.Embedded != nil:
		a.conn.withEncryption(&s.Target)
		a.conn.withProcesses(&s.Target)
		a.conn.withSync(&s.Target)
		a.withTelemetry(&s.Target, file)
		return s, nil
	case len(s.Target.Servers) > 0 || s.Target.Context != "":
		conn = connect.FromSpec(s.Target)
		conn.TLSFirst, conn.TLSInsecure = conn.TLSFirst || cli.TLSFirst, conn.TLSInsecure || cli.TLSInsecure
		conn.ConnectTimeout = cli.ConnectTimeout
		conn.JS = overJS(conn.JS, cli.JS) // the scenario's JetStream domain, unless the flags say
	default:
		conn = cli
	}
	s.Target = connect.SpecTarget(conn)
	a.conn.withEncryption(&s.Target)
	a.conn.withSync(&s.Target)
	a.withTelemetry(&s.Target, file)
	return s, nil
}

// withTelemetry gives a cell's target the file's telemetry settings (monitor, the system
// account user), the command line's --sys-creds or --sys-user winning; a system user's
// password the file does not give comes from $NATSPERF_SYS_PASSWORD, as on the command line.
func (a *app) withTelemetry(t *spec.Target, file spec.Target) {
	t.Monitor = file.Monitor
	t.SysCreds, t.SysUser, t.SysPassword = file.SysCreds, file.SysUser, file.SysPassword
	if c := a.conn; c.sysCreds != "" || c.sysUser != "" {
		t.SysCreds, t.SysUser, t.SysPassword = c.sysCreds, c.sysUser, spec.Secret(c.sysPassword)
	}
	if t.SysUser != "" && t.SysPassword == "" && a.streams.Env.Getenv != nil {
		t.SysPassword = spec.Secret(a.streams.Env.Getenv(sysPasswordEnv))
	}
}

// runOnce runs one repetition of a cell: its Spec through the runner, as a command's (setup
// once, one start barrier, post-run state, teardown; here, through natsperf-rust or across
// agents), then its Result file. Consecutive cells share a target (tg). The returned
// IndexRun has Stop "" when it could not start.
func (a *app) runOnce(ctx context.Context, tg *runner.Targets, sc *scenario.Scenario, c scenario.Cell, rep int, dir string, rf runFlags, metrics *live.Metrics) scenario.IndexRun {
	name := scenario.RunName(c, rep)
	ir := scenario.IndexRun{Repetition: rep, Result: name + ".json", Start: time.Now().UTC()}
	fail := func(err error) scenario.IndexRun {
		fmt.Fprintf(a.streams.Err, "natsperf: %s: %s\n", name, oneLine(err.Error()))
		ir.Stop, ir.Error, ir.End = result.StopFailed, oneLine(err.Error()), time.Now().UTC()
		res := &result.Result{Schema: result.Schema, Command: "run", Start: ir.Start, End: ir.End, Stop: result.Stop{Reason: result.StopFailed, Error: ir.Error}}
		res.Settings, _ = json.Marshal(map[string]any{"scenario": scenarioInfo(sc, c, rep)})
		if werr := result.WriteFile(filepath.Join(dir, ir.Result), res); werr != nil {
			ir.Stop = ""
		}
		if ctx.Err() != nil {
			ir.Stop = result.StopInterrupted
		}
		return ir
	}
	s, err := a.cellSpec(c, rf.keep)
	if err != nil {
		return fail(err)
	}
	// The intervals, live (also the agents', each client's series named after its agent:
	// a1/pod1/pub/1): the series file and --metrics-addr.
	sink, err := openCellSeries(c.File, s, dir, name, metrics, &ir)
	if err != nil {
		return fail(err)
	}
	o := a.runOptions()
	o.Targets = tg
	o.CLI.Title = fmt.Sprintf("Scenario %s, %s, repetition %d", sc.Name, c.Name, rep)
	o.CLI.Settings = map[string]any{"scenario": scenarioInfo(sc, c, rep)}
	if sink != nil {
		o.Series = sink.C()
	}
	if metrics != nil {
		o.CLI.Prepared = func(p runopts.Prepared) { metrics.StartRun(c.Name, name, p.Interval) }
	}
	var res *runner.Result
	if c.File.Capacity != nil {
		res, err = a.cellCapacity(ctx, c.File.Capacity, s, o, dir, name, &ir)
	} else {
		res, err = runner.Run(ctx, s, o)
	}
	if sink != nil {
		if serr := sink.Close(); serr != nil && err == nil {
			err = serr
		}
	}
	var in runner.InputError
	switch {
	case err != nil && a.dist.agents != "" && !errors.As(err, &in):
		return fail(fmt.Errorf("across agents: %w", err))
	case err != nil:
		return fail(err)
	case a.dist.agents != "":
		return a.recordCell(dir, ir, res, fmt.Sprintf(" (%d agents)", len(res.Distributed.Agents)), " ("+name+")")
	case runner.UsesRust(s):
		return a.recordCell(dir, ir, res, " (natsperf-rust)", " ("+name+")")
	}
	return a.recordCell(dir, ir, res, "", "")
}

// recordCell saves a finished cell's Result as its index run ir names, and prints the cell's
// progress line: the one-line summary, then tag (who ran it), why a failed cell failed, and
// where (each prefixed as given, "" for none).
func (a *app) recordCell(dir string, ir scenario.IndexRun, res *result.Result, tag, where string) scenario.IndexRun {
	ir.Stop, ir.Error, ir.Start, ir.End = res.Stop.Reason, res.Stop.Error, res.Start, res.End
	ir.Lost, ir.NotRecovered = res.Loss(), res.NotRecovered() != nil
	if err := result.WriteFile(filepath.Join(dir, ir.Result), res); err != nil {
		ir.Stop = ""
		fmt.Fprintf(a.streams.Err, "natsperf: %v\n", err)
		return ir
	}
	line := report.OneLine(res) + tag
	if res.Stop.Reason != result.StopCompleted && res.Stop.Error != "" && res.Stop.Error != res.Stop.Reason {
		line += ": " + oneLine(res.Stop.Error) // a failed cell says why on its progress line
	}
	fmt.Fprintf(a.streams.Out, "  %s%s\n", line, where)
	return ir
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

func scenarioInfo(sc *scenario.Scenario, c scenario.Cell, rep int) map[string]any {
	values := map[string]string{}
	for _, v := range c.Values {
		values[v.Axis] = v.Value
	}
	return map[string]any{"name": sc.Name, "file": sc.Path, "cell": c.Name, "cell_index": c.Index, "values": values, "repetition": rep}
}

// overJS is the scenario file's JetStream settings with the command line's, where given, over
// them.
func overJS(file, flags connect.JS) connect.JS {
	for _, f := range []struct {
		to   *string
		from string
	}{
		{&file.Domain, flags.Domain}, {&file.APIPrefix, flags.APIPrefix}, {&file.EventPrefix, flags.EventPrefix}, {&file.InboxPrefix, flags.InboxPrefix},
	} {
		if f.from != "" {
			*f.to = f.from
		}
	}
	if flags.Timeout != 0 {
		file.Timeout = flags.Timeout
	}
	file.Trace = file.Trace || flags.Trace
	return file
}
