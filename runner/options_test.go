package runner_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// Every exported field of runner.Options is a type a Go program outside this module can
// name and build: no type from an internal package in it, however deep (pointers, maps,
// channels, function signatures, interface methods, the exported fields of the public
// structs it holds). natsperf's own command line sets the same fields.
func TestOptionsHaveOnlyPublicTypes(t *testing.T) {
	typ := reflect.TypeOf(runner.Options{})
	if typ.NumField() < 10 {
		t.Fatalf("runner.Options has %d fields: want the whole struct", typ.NumField())
	}
	for i := 0; i < typ.NumField(); i++ {
		f := typ.Field(i)
		if !f.IsExported() {
			t.Errorf("runner.Options.%s is unexported: a program cannot set it", f.Name)
			continue
		}
		if where := internalIn(f.Type); where != "" {
			t.Errorf("runner.Options.%s (%s) holds %s, from an internal package", f.Name, f.Type, where)
		}
	}
	// The check itself finds what it is for, however it is wrapped.
	for _, bad := range []any{
		struct{ Env connect.Env }{},
		struct{ P harness.Progress }{},
		struct{ F func(io.Writer) []harness.Bar }{},
		struct{ M map[string]*connect.Settings }{},
		struct{ C chan<- struct{ S connect.JS } }{},
	} {
		if internalIn(reflect.TypeOf(bad)) == "" {
			t.Errorf("%T: the check found no internal type in it", bad)
		}
	}
}

// internalIn is the first type from an internal package that t is or holds, "" when none.
func internalIn(t reflect.Type) string {
	return walk(t, map[reflect.Type]bool{})
}

func walk(t reflect.Type, seen map[reflect.Type]bool) string {
	if seen[t] {
		return ""
	}
	seen[t] = true
	if p := t.PkgPath(); strings.Contains(p, "/internal/") || strings.HasPrefix(p, "internal/") {
		return t.String()
	}
	if t.PkgPath() != "" && !strings.Contains(strings.SplitN(t.PkgPath(), "/", 2)[0], ".") {
		return "" // the standard library's
	}
	var inner []reflect.Type
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Chan:
		inner = append(inner, t.Elem())
	case reflect.Map:
		inner = append(inner, t.Key(), t.Elem())
	case reflect.Func:
		for i := 0; i < t.NumIn(); i++ {
			inner = append(inner, t.In(i))
		}
		for i := 0; i < t.NumOut(); i++ {
			inner = append(inner, t.Out(i))
		}
	case reflect.Interface:
		for i := 0; i < t.NumMethod(); i++ {
			inner = append(inner, t.Method(i).Type)
		}
	case reflect.Struct:
		for i := 0; i < t.NumField(); i++ {
			if f := t.Field(i); f.IsExported() {
				inner = append(inner, f.Type)
			}
		}
	}
	for _, in := range inner {
		if where := walk(in, seen); where != "" {
			return where
		}
	}
	return ""
}

// What natsperf's command line sets, a program sets the same way: the environment NATS_URL
// is read from (Getenv: the run goes to this test's server, which receives every message),
// start lines apart from notices (StartLog, Log), live bars (Progress), the hook told once
// before the start (OnStart), and the labels (Title on the start line, Settings and Hist in
// the Result's settings).
func TestOptionsReachTheCaller(t *testing.T) {
	s := natstest.Server(t, nil)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var got atomic.Int64
	sub, err := nc.Subscribe("runner.options", func(*nats.Msg) { got.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	home := t.TempDir() // no nats context of this machine's user
	var startLog, log bytes.Buffer
	bars := &recordedBars{}
	var starts []runner.Starting
	const msgs = 2000
	res, err := runner.Run(context.Background(), &spec.Spec{
		Version:   spec.Version,
		Workloads: []spec.Workload{{Clients: 2, Pacing: spec.Pacing{Msgs: msgs}, Config: &spec.Pub{Subject: "runner.options", Size: 16}}},
	}, runner.Options{
		Getenv: func(k string) string {
			return map[string]string{"NATS_URL": s.ClientURL(), "HOME": home}[k]
		},
		Log: &log, StartLog: &startLog, Progress: bars,
		OnStart:  func(p runner.Starting) { starts = append(starts, p) },
		Title:    "options test",
		Settings: map[string]any{"label": "x1"}, Hist: "h.hgrm",
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop.Reason != result.StopCompleted {
		t.Fatalf("stop %+v", res.Stop)
	}
	natstest.WaitFor(t, 30e9, "the test's subscriber to receive every message", func() bool { return got.Load() == msgs })
	if len(starts) != 1 || starts[0].Interval <= 0 || starts[0].Command != "pub" || starts[0].Embedded {
		t.Errorf("OnStart told %+v: want once, pub on the test's server, with its interval", starts)
	}
	if sl := startLog.String(); !strings.Contains(sl, "Starting options test") || strings.Count(sl, "] Starting ") != 2 {
		t.Errorf("start lines %q: want the title's and one per client", sl)
	}
	if strings.Contains(log.String(), "Starting") {
		t.Errorf("notices %q hold start lines", log.String())
	}
	if labels, stopped := bars.get(); len(labels) != 2 || stopped != 1 {
		t.Errorf("progress: bars %q, stopped %d times: want one per client, stopped once", labels, stopped)
	}
	var settings struct {
		Label string `json:"label"`
		Bench struct {
			Hist string `json:"hist"`
		} `json:"bench"`
	}
	if err := json.Unmarshal(res.Settings, &settings); err != nil || settings.Label != "x1" {
		t.Errorf("settings %s (%v): want label x1", res.Settings, err)
	}
	if !bytes.Contains(res.Settings, []byte(`"h.hgrm"`)) {
		t.Errorf("settings %s: want the hist file echoed", res.Settings)
	}
}

// recordedBars is a runner.Progress that keeps the bars' labels and counts its stops.
type recordedBars struct {
	mu      sync.Mutex
	labels  []string
	stopped int
}

func (r *recordedBars) Start(bars []runner.Bar) func() {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, b := range bars {
		_ = b.Count() // callable from any goroutine
		r.labels = append(r.labels, b.Label)
	}
	return func() { r.mu.Lock(); r.stopped++; r.mu.Unlock() }
}

func (r *recordedBars) get() ([]string, int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.labels...), r.stopped
}

// Across agents, the same Options: ControlTarget is how the control server is reached (here
// its token, which the Spec's target, another server, does not have), and the run tells
// Log, Progress (a bar per agent), OnStart and Settings as a run in this process does.
// Without ControlTarget the control server refuses the run.
func TestOptionsAcrossAgents(t *testing.T) {
	const token = "control-s3cret"
	control := natstest.Server(t, func(o *server.Options) { o.Authorization = token })
	target := natstest.Server(t, nil)
	ctl := spec.Target{Servers: []string{control.ClientURL()}, Token: spec.Secret(token)}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	a, err := runner.StartAgent(ctx, runner.AgentOptions{Control: ctl, Target: spec.Target{Servers: []string{target.ClientURL()}}, Name: "a1"})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	s := &spec.Spec{
		Version:   spec.Version,
		Target:    spec.Target{Servers: []string{target.ClientURL()}},
		Workloads: []spec.Workload{{Pacing: spec.Pacing{Msgs: 1000}, Config: &spec.Pub{Subject: "runner.agents", Size: 16}}},
	}
	_, err = runner.Run(ctx, s, runner.Options{Agents: "1", Control: control.ClientURL(), AgentsWait: 30e9})
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization") || strings.Contains(err.Error(), token) {
		t.Fatalf("without ControlTarget: err %v: want the control server's refusal, without its token", err)
	}
	t.Logf("without ControlTarget: %v", err)
	var log bytes.Buffer
	bars := &recordedBars{}
	starts := 0
	res, err := runner.Run(ctx, s, runner.Options{
		Agents: "1", ControlTarget: &ctl, AgentsWait: 30e9,
		Log: &log, Progress: bars, OnStart: func(runner.Starting) { starts++ },
		Settings: map[string]any{"label": "x2"},
	})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop.Reason != result.StopCompleted || len(res.Distributed.Agents) != 1 || res.Groups[0].Aggregate.Msgs != 1000 {
		t.Fatalf("stop %+v, agents %d: want 1000 messages completed on one agent", res.Stop, len(res.Distributed.Agents))
	}
	if labels, stopped := bars.get(); len(labels) != 1 || stopped != 1 || starts != 1 {
		t.Errorf("progress bars %q stopped %d times, OnStart %d times: want one bar, once each", labels, stopped, starts)
	}
	if log.Len() == 0 || strings.Contains(log.String(), token) {
		t.Errorf("notices %q: want the coordinator's steps, without the token", log.String())
	}
	var settings struct {
		Label string `json:"label"`
	}
	if err := json.Unmarshal(res.Settings, &settings); err != nil || settings.Label != "x2" {
		t.Errorf("settings %s (%v): want label x2", res.Settings, err)
	}
}
