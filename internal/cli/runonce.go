package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/live"
	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/scenario"
)

// streamAfter is the --duration from which "stream: auto" streams the series to disk.
const streamAfter = 5 * time.Minute

// scenarioTargets keeps one target while consecutive cells ask for the same one.
type scenarioTargets struct {
	a   *app
	key string
	t   *target
}

func (s *scenarioTargets) get(ctx context.Context, f *scenario.File) (*target, error) {
	b, _ := json.Marshal(f.Target)
	key := string(b)
	if s.t != nil && key == s.key {
		return s.t, nil
	}
	s.close()
	t, err := s.open(ctx, f)
	if err != nil {
		return nil, err
	}
	t.Shared = true
	s.t, s.key = t, key
	return t, nil
}

// open resolves the target: -s/--context on the command line, else the file's target:, else
// NATS_URL, else an embedded server (a 3-node cluster when a setup stream has replicas).
func (s *scenarioTargets) open(ctx context.Context, f *scenario.File) (*target, error) {
	a, tg := s.a, f.Target
	cli := a.conn.s
	if cli.Servers == "" && cli.Context == "" && tg.Embedded == nil {
		if tg.Servers != "" || tg.Context != "" {
			cli = connect.Settings{Servers: tg.Servers, Context: tg.Context, User: tg.User, Password: tg.Password,
				Token: tg.Token, Creds: tg.Creds, NKey: tg.NKey, TLSCert: tg.TLSCert, TLSKey: tg.TLSKey, TLSCA: tg.TLSCA,
				TLSFirst: tg.TLSFirst || cli.TLSFirst, TLSInsecure: tg.TLSInsecure || cli.TLSInsecure,
				ConnectTimeout: cli.ConnectTimeout}
		}
		resolved, specified, err := connect.Resolve(cli, a.streams.Env)
		if err != nil {
			return nil, usageError{err}
		}
		if specified {
			return &target{Settings: resolved}, nil
		}
	} else if cli.Servers != "" || cli.Context != "" {
		resolved, _, err := connect.Resolve(cli, a.streams.Env)
		if err != nil {
			return nil, usageError{err}
		}
		return &target{Settings: resolved}, nil
	}
	nodes := 1
	if tg.Embedded != nil {
		nodes = tg.Embedded.Nodes
	}
	for _, st := range f.Setup.Streams {
		if st.Replicas > 1 {
			nodes = max(nodes, 3, st.Replicas)
		}
	}
	c, err := embedded.Start(ctx, embedded.Options{Nodes: nodes})
	if err != nil {
		return nil, fmt.Errorf("start embedded server: %w", err)
	}
	fmt.Fprintf(a.streams.Out, "Target: %s\n", c.Describe())
	return &target{Settings: connect.Settings{Servers: c.URL(), ConnectTimeout: cli.ConnectTimeout}, Embedded: c}, nil
}

func (s *scenarioTargets) close() {
	if s.t != nil && s.t.Embedded != nil {
		s.t.Embedded.Shutdown()
	}
	s.t = nil
}

// runOnce runs one repetition of a cell: setup, capture every instance's plan, one runner,
// post-run state, teardown, Result file. The returned IndexRun has Stop "" when it could not
// start.
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
	f := c.File
	t, err := tg.get(ctx, f)
	if err != nil {
		return fail(err)
	}
	teardown, warnings, err := a.setupCell(ctx, t, f, rf.keep)
	defer teardown()
	if err != nil {
		return fail(err)
	}
	var parts []part
	var log bytes.Buffer
	release := func() {
		for _, p := range parts {
			p.close(ctx)
		}
	}
	for _, w := range f.Workloads {
		for i := 1; i <= w.Instances; i++ {
			args, err := w.Args(i)
			if err == nil {
				var cp captured
				cp, err = a.capturePlan(ctx, t, args, &log)
				parts = append(parts, part{prefix: instancePrefix(w.Name, i), captured: cp})
			}
			if err != nil {
				if len(parts) > 0 && parts[len(parts)-1].plan == nil {
					parts = parts[:len(parts)-1]
				}
				release()
				return fail(err)
			}
		}
	}
	settings := map[string]any{"scenario": scenarioInfo(sc, c, rep), "connection": t.Settings.Redacted(), "embedded": t.Embedded != nil}
	plan, interval, warmup := mergePlans(fmt.Sprintf("Scenario %s, %s, repetition %d", sc.Name, c.Name, rep), parts, settings)
	runner := &bench.Runner{Dial: t.Dialer(), Grace: t.Grace(), Interval: interval, Warmup: warmup}
	var sink *live.Sink
	if streamSeries(f, parts) || metrics != nil {
		path := ""
		if streamSeries(f, parts) || f.Stream == "" || f.Stream == "auto" {
			path = filepath.Join(dir, name+".series.jsonl")
			ir.Series = filepath.Base(path)
		}
		if sink, err = live.Open(path, metrics); err != nil {
			release()
			return fail(err)
		}
		runner.Series = sink.C()
		if metrics != nil {
			metrics.StartRun(c.Name, name, interval)
		}
	}
	res, err := runner.Run(ctx, plan)
	if sink != nil {
		if serr := sink.Close(); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		release()
		return fail(err)
	}
	if t.Embedded != nil {
		for i := range res.Servers {
			res.Servers[i].Embedded = true
		}
	}
	for _, p := range parts {
		if p.finish != nil {
			p.finish(ctx, res)
		}
	}
	res.Streams = mergeStreams(res.Streams)
	res.Warnings = append(res.Warnings, warnings...)
	ir.Stop, ir.Error, ir.Start, ir.End = res.Stop.Reason, res.Stop.Error, res.Start, res.End
	ir.Lost = res.Loss()
	if err := result.WriteFile(filepath.Join(dir, ir.Result), res); err != nil {
		ir.Stop = ""
		fmt.Fprintf(a.streams.Err, "natsperf: %v\n", err)
		return ir
	}
	line := report.OneLine(res)
	if res.Stop.Reason != result.StopCompleted && res.Stop.Error != "" && res.Stop.Error != res.Stop.Reason {
		line += ": " + oneLine(res.Stop.Error) // a failed cell says why on its progress line
	}
	fmt.Fprintf(a.streams.Out, "  %s\n", line)
	return ir
}

// streamSeries decides whether a run streams its interval records to disk.
func streamSeries(f *scenario.File, parts []part) bool {
	switch f.Stream {
	case "always":
		return true
	case "never":
		return false
	}
	for _, p := range parts {
		if p.bf.Duration >= streamAfter {
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

// setupCell creates the cell's streams and buckets. A stream natsperf created earlier is
// replaced, so every run starts empty with this cell's settings; someone else's is used as it
// is, with a warning. teardown deletes what this run created (unless keep).
func (a *app) setupCell(ctx context.Context, t *target, f *scenario.File, keep bool) (func(), []string, error) {
	streams, buckets := f.Setup.Expanded(), f.Setup.Buckets
	if len(streams) == 0 && len(buckets) == 0 {
		return func() {}, nil, nil
	}
	sctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	nc, err := t.Dialer()(sctx, "natsperf-scenario-setup")
	if err != nil {
		return func() {}, nil, fmt.Errorf("setup: connect: %w", err)
	}
	jsc, err := jetstream.New(nc)
	if err != nil {
		nc.Close()
		return func() {}, nil, fmt.Errorf("setup: %w", err)
	}
	var created []func(context.Context)
	var warnings []string
	teardown := func() {
		if !keep {
			tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
			for _, d := range created {
				d(tctx)
			}
			cancel()
		}
		nc.Close()
	}
	for _, st := range streams {
		storage, err := js.ParseStorage(orDefault(st.Storage, "file"))
		if err != nil {
			return teardown, nil, err
		}
		var maxBytes int64
		if st.MaxBytes != "" {
			var v sizeValue
			if err := v.Set(st.MaxBytes); err != nil {
				return teardown, nil, fmt.Errorf("stream %s: maxbytes: %w", st.Name, err)
			}
			maxBytes = int64(v)
		}
		if old, err := jsc.Stream(sctx, st.Name); err == nil {
			if !js.Marked(old.CachedInfo().Config.Metadata) {
				warnings = append(warnings, fmt.Sprintf("stream %s exists and was not created by natsperf: used as it is", st.Name))
				continue
			}
			if err := jsc.DeleteStream(sctx, st.Name); err != nil {
				return teardown, nil, fmt.Errorf("replace stream %s: %w", st.Name, err)
			}
		}
		spec := js.StreamSpec{Name: st.Name, Subjects: st.Subjects, Storage: storage, Replicas: max(st.Replicas, 1),
			MaxBytes: maxBytes, DedupWindow: 2 * time.Minute, Create: true}
		if _, _, err := js.EnsureStream(sctx, jsc, spec); err != nil {
			return teardown, nil, err
		}
		waitLeader(sctx, jsc, st.Name)
		n := st.Name
		created = append(created, func(ctx context.Context) { _ = jsc.DeleteStream(ctx, n) })
	}
	for _, b := range buckets {
		storage, err := js.ParseStorage(orDefault(b.Storage, "file"))
		if err != nil {
			return teardown, nil, err
		}
		bk, _, err := js.EnsureBucket(sctx, jsc, js.BucketSpec{Name: b.Name, Storage: storage, Replicas: max(b.Replicas, 1), History: b.History})
		if err != nil {
			return teardown, nil, err
		}
		if bk.Created {
			n := b.Name
			created = append(created, func(ctx context.Context) { _ = jsc.DeleteKeyValue(ctx, n) })
		}
	}
	return teardown, warnings, nil
}

// waitLeader waits (bounded by ctx) until a new replicated stream has elected its leader:
// consumers created before that fail with "no responders".
func waitLeader(ctx context.Context, jsc jetstream.JetStream, name string) {
	for ctx.Err() == nil {
		if st, err := jsc.Stream(ctx, name); err == nil {
			if c := st.CachedInfo().Cluster; c == nil || c.Leader != "" {
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}
