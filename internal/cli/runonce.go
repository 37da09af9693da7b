package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/live"
	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/scenario"
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

// cellSpec is a cell as the Spec the engine runs, with the connection settings to use: the
// command line's -s or --context win over the file's target, whose TLS switches the command
// line may add to; with neither, NATS_URL or the nats context, else an embedded server.
func (a *app) cellSpec(c scenario.Cell, keep bool) (*spec.Spec, *connect.Settings, error) {
	s, err := c.Spec(a.workloadSpec, keep)
	if err != nil {
		return nil, nil, err
	}
	cli, tg := a.conn.s, c.File.Target
	var conn connect.Settings
	switch {
	case cli.Servers != "" || cli.Context != "":
		conn = cli
	case tg.Embedded != nil:
		return s, nil, nil
	case tg.Servers != "" || tg.Context != "":
		conn = connect.Settings{Servers: tg.Servers, Context: tg.Context, User: tg.User, Password: tg.Password,
			Token: tg.Token, Creds: tg.Creds, NKey: tg.NKey, TLSCert: tg.TLSCert, TLSKey: tg.TLSKey, TLSCA: tg.TLSCA,
			TLSFirst: tg.TLSFirst || cli.TLSFirst, TLSInsecure: tg.TLSInsecure || cli.TLSInsecure,
			ConnectTimeout: cli.ConnectTimeout, JWT: tg.JWT, Seed: tg.Seed, ConnectionName: tg.ConnectionName, SocksProxy: tg.SocksProxy,
			JS: connect.JS{Domain: tg.JSDomain, APIPrefix: tg.JSAPIPrefix, EventPrefix: tg.JSEventPrefix, InboxPrefix: tg.InboxPrefix}}
		conn.JS = overJS(conn.JS, cli.JS)
	default:
		conn = cli
	}
	s.Target = specTarget(conn)
	return s, &conn, nil
}

// scenarioTargets keeps one target while consecutive cells ask for the same one. A cell with
// faults gets a target of its own, closed after it: a killed or paused node must not carry
// over to the next cell.
type scenarioTargets struct {
	a   *app
	key string
	t   *engine.Target
}

func (s *scenarioTargets) get(ctx context.Context, sp *spec.Spec, conn *connect.Settings) (*engine.Target, func(), error) {
	replicas := 1 // an embedded target is sized for the setup's replicas
	for _, st := range sp.Setup.Streams {
		replicas = max(replicas, st.Replicas)
	}
	for _, bk := range sp.Setup.Buckets {
		replicas = max(replicas, bk.Replicas)
	}
	b, _ := json.Marshal(struct {
		T spec.Target
		C *connect.Settings
		R int
	}{sp.Target, conn, replicas})
	key, faults := string(b), len(sp.Faults.Inject) > 0
	if s.t != nil && key == s.key && !faults {
		return s.t, func() {}, nil
	}
	s.close()
	var warn bytes.Buffer // the scenario says "Target:" instead
	t, err := engine.OpenSpecTarget(ctx, sp, engine.Options{Env: s.a.streams.Env, Warn: &warn, Connection: conn})
	if err != nil {
		return nil, nil, err
	}
	if t.Embedded != nil {
		fmt.Fprintf(s.a.streams.Out, "Target: %s\n", t.Embedded.Describe())
	}
	t.Shared = true
	if faults {
		return t, func() { t.Shared = false; t.Close() }, nil
	}
	s.t, s.key = t, key
	return t, func() {}, nil
}

func (s *scenarioTargets) close() {
	if s.t != nil && s.t.Embedded != nil {
		s.t.Embedded.Shutdown()
	}
	s.t = nil
}

// runOnce runs one repetition of a cell: its Spec through the engine, as a command's (setup,
// one start barrier, post-run state, teardown), then its Result file. The returned IndexRun
// has Stop "" when it could not start.
func (a *app) runOnce(ctx context.Context, tg *scenarioTargets, sc *scenario.Scenario, c scenario.Cell, rep int, dir string, rf runFlags, metrics *live.Metrics) scenario.IndexRun {
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
	s, conn, err := a.cellSpec(c, rf.keep)
	if err != nil {
		return fail(err)
	}
	if a.dist.agents != "" {
		return a.runCellDistributed(ctx, sc, c, rep, dir, s, conn, ir, fail, metrics)
	}
	if usesRust(s) {
		return a.runCellRust(ctx, tg, sc, c, rep, dir, s, conn, ir, fail, metrics)
	}
	t, release, err := tg.get(ctx, s, conn)
	if err != nil {
		return fail(err)
	}
	defer release()
	o := engine.Options{
		Env: a.streams.Env, Target: t, Connection: conn,
		Title:    fmt.Sprintf("Scenario %s, %s, repetition %d", sc.Name, c.Name, rep),
		Settings: map[string]any{"scenario": scenarioInfo(sc, c, rep)},
	}
	sink, err := openCellSeries(c.File, s, dir, name, metrics, &ir)
	if err != nil {
		return fail(err)
	}
	if sink != nil {
		o.Series = sink.C()
	}
	r, err := engine.Prepare(ctx, s, o)
	if err == nil && metrics != nil {
		metrics.StartRun(c.Name, name, r.Interval)
	}
	var res *result.Result
	if err == nil {
		r.Start(time.Time{})
		res = r.Wait()
	}
	if sink != nil {
		if serr := sink.Close(); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return fail(err)
	}
	return a.recordCell(dir, ir, res, "", "")
}

// recordCell saves a finished cell's Result as its index run ir names, and prints the cell's
// progress line: the one-line summary, then tag (who ran it), why a failed cell failed, and
// where (each prefixed as given, "" for none).
func (a *app) recordCell(dir string, ir scenario.IndexRun, res *result.Result, tag, where string) scenario.IndexRun {
	ir.Stop, ir.Error, ir.Start, ir.End = res.Stop.Reason, res.Stop.Error, res.Start, res.End
	ir.Lost = res.Loss()
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

// withScenarioSettings adds the scenario's settings to a Result made by a part run (the Rust
// agent's, the agents'), as a local cell's Result has them.
func withScenarioSettings(res *result.Result, sc *scenario.Scenario, c scenario.Cell, rep int) {
	var settings map[string]any
	if json.Unmarshal(res.Settings, &settings) != nil || settings == nil {
		settings = map[string]any{}
	}
	settings["scenario"] = scenarioInfo(sc, c, rep)
	res.Settings, _ = json.Marshal(settings)
}

// startAgentRunMetrics starts a cell's run on --metrics-addr (nil: not asked for) when agents
// run it (natsperf-rust's, run --agents): at the width the agents' engines slice at
// (engine.SeriesInterval).
func startAgentRunMetrics(metrics *live.Metrics, cell, name string, s *spec.Spec) {
	if metrics == nil {
		return
	}
	metrics.StartRun(cell, name, engine.SeriesInterval(s))
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
