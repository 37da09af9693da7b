package runner

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/nats-io/nuid"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/coord"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/inflight"
	"github.com/natsperf/natsperf/internal/rustbin"
	"github.com/natsperf/natsperf/internal/version"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// rustKindsFile lists the workload kinds natsperf-rust runs. It is the only list: the crate
// compiles the same file in (clients/rust/src/spec.rs), so the two sides cannot drift.
//
//go:embed rust-kinds.json
var rustKindsFile []byte

// rustKinds are the workload kinds natsperf-rust runs, read from rustKindsFile.
var rustKinds = func() []string {
	var k []string
	if err := json.Unmarshal(rustKindsFile, &k); err != nil {
		panic("runner/rust-kinds.json: " + err.Error())
	}
	return k
}()

// RustKinds are the workload kinds natsperf-rust runs (client rust).
func RustKinds() []string { return slices.Clone(rustKinds) }

// UsesRust says whether s runs through natsperf-rust (its workloads' client is rust).
func UsesRust(s *spec.Spec) bool {
	for _, w := range s.Workloads {
		if w.Client == "rust" {
			return true
		}
	}
	return false
}

// checkClient refuses Specs natsperf-rust does not run: other kinds, and Go and Rust
// workloads in one run (one run is one engine).
func checkClient(s *spec.Spec) error {
	if !UsesRust(s) {
		return nil
	}
	for _, w := range s.Workloads {
		if w.Client != "rust" {
			return InputError{fmt.Errorf("a run's workloads use one client library: %s is go, others rust", w.Kind())}
		}
		if !slices.Contains(rustKinds, w.Kind()) {
			return InputError{fmt.Errorf("--client rust runs %s, not %s: use --client go", kindList(rustKinds), w.Kind())}
		}
		if p := w.Pacing; p.RateTo > 0 || len(p.Steps) > 0 || p.Arrivals == "poisson" {
			return InputError{fmt.Errorf("natsperf-rust paces at a constant rate: --ramp, --steps and --arrivals poisson run with --client go")}
		}
		if w.Pacing.MaxInflight > 0 && !rustOpenModel(w.Kind()) {
			return InputError{fmt.Errorf("natsperf-rust's %s has no open model: --max-inflight runs with --client go", w.Kind())}
		}
		if flag := rustLacksPayload(w.Config); flag != "" {
			return InputError{fmt.Errorf("%s does not apply to --client rust (natsperf-rust sends --size bytes with the stamp in the payload): use --client go", flag)}
		}
	}
	if flag := rustLacksTarget(s.Target); flag != "" {
		return InputError{fmt.Errorf("%s does not apply to --client rust (natsperf-rust connects with -s, --creds, --nkey, --user/--password, --token and TLS only): use --client go", flag)}
	}
	return rustStoreCheck(s)
}

// rustStoreCheck refuses what natsperf-rust does not do yet rather than ignore it: it creates
// the streams it publishes to itself, uncompressed, and fills its payloads its own way.
// (Encryption is the embedded server's, which natsperf starts for it either way.)
func rustStoreCheck(s *spec.Spec) error {
	for _, w := range s.Workloads {
		if w.PayloadFill != "" && w.PayloadFill != "text" { // text is how natsperf-rust fills
			return InputError{fmt.Errorf("--payload-fill %s is not in natsperf-rust yet: use --client go", w.PayloadFill)}
		}
	}
	for _, st := range s.Setup.Streams {
		if st.Compression == "s2" && !st.Recreate {
			return InputError{fmt.Errorf("--compression: natsperf-rust creates its stream uncompressed; create it with --client go first, or use --client go")}
		}
		if st.PersistAsync && !st.Recreate {
			return InputError{fmt.Errorf("--persistasync: natsperf-rust creates its stream with the default persist mode; create it with --client go first, or use --client go")}
		}
	}
	return nil
}

// rustLacksTarget names a connection flag natsperf-rust does not take, "" when none is set.
func rustLacksTarget(t spec.Target) string {
	for _, f := range []struct {
		set  bool
		flag string
	}{
		{t.JWT != "" || t.Seed != "", "--jwt/--seed"}, {t.ConnectionName != "", "--connection-name"},
		{t.SocksProxy != "", "--socks-proxy"}, {t.JSDomain != "", "--js-domain"}, {t.JSAPIPrefix != "", "--js-api-prefix"},
		{t.JSEventPrefix != "", "--js-event-prefix"}, {t.InboxPrefix != "", "--inbox-prefix"},
		{t.Timeout != 0, "--timeout"}, {t.Trace, "--trace"}, {t.NoContext, "--no-context"},
	} {
		if f.set {
			return f.flag
		}
	}
	return ""
}

// rustLacksPayload names a payload flag natsperf-rust does not take, "" when none is set.
func rustLacksPayload(c spec.Config) string {
	var p spec.Payload
	var random bool
	switch x := c.(type) {
	case *spec.Pub:
		p, random = x.Payload, x.MultiSubjectRandomize
	case *spec.ServiceRequest:
		p = x.Payload
	case *spec.JSPubSync:
		p, random = x.Payload, x.MultiSubjectRandomize
	case *spec.JSPubAsync:
		p, random = x.Payload, x.MultiSubjectRandomize
	}
	switch {
	case p.File != "":
		return "--payload"
	case p.Random:
		return "--payload-random"
	case len(p.Headers) > 0:
		return "--header"
	case p.Stamp == "header":
		return "--stamp header"
	case random:
		return "--multisubject-randomize"
	}
	return ""
}

// kindList is "a, b and c".
func kindList(k []string) string {
	if len(k) < 2 {
		return strings.Join(k, "")
	}
	return strings.Join(k[:len(k)-1], ", ") + " and " + k[len(k)-1]
}

// runRust runs s through a natsperf-rust agent started here for this run on the run's server
// (the embedded one when no server is given), coordinated as a distributed run of one agent:
// the Spec's setup made here first. The child agent is always stopped at the end (also on
// cancellation and failure).
func runRust(ctx context.Context, s *spec.Spec, o Options) (*result.Result, error) {
	bin := o.RustBin
	if bin == "" {
		var err error
		if bin, err = rustbin.Find("."); err != nil {
			return nil, fmt.Errorf("--client rust: %w", err)
		}
	} else if fi, err := os.Stat(bin); err != nil || fi.IsDir() {
		return nil, InputError{fmt.Errorf("natsperf-rust %s: no such file", bin)}
	}
	if err := s.Validate(); err != nil {
		return nil, InputError{err}
	}
	s = withInflight(s)
	env := envOf(o)
	var t *engine.Target
	if o.Targets != nil {
		shared, release, err := o.Targets.get(ctx, s, env)
		if err != nil {
			return nil, inputError(err)
		}
		defer release()
		t = shared
	} else {
		own, err := engine.OpenSpecTarget(ctx, s, engine.Options{Env: env, Warn: o.Log})
		if err != nil {
			return nil, inputError(err)
		}
		defer own.Close()
		t = own
	}
	if err := engine.CheckServerVersion(ctx, t, s); err != nil {
		return nil, inputError(err)
	}
	if err := engine.CheckPayload(ctx, t, s); err != nil {
		return nil, inputError(err)
	}
	warnings, teardown, s, err := setupOnce(ctx, t, s)
	defer teardown()
	if err != nil {
		return nil, err
	}
	run := *s
	run.Target = connect.SpecTarget(t.Settings)
	run.Target.Embedded = nil
	prepared(o, s)

	id := nuid.Next()
	agent, err := rustbin.StartAgent(bin, t.Settings, "natsperf-run="+id)
	if err != nil {
		return nil, err
	}
	defer agent.Stop()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // an agent that dies ends the wait for it
		select {
		case <-agent.Done():
			cancel()
		case <-rctx.Done():
		}
	}()
	cfg := coord.Config{
		Control: t.Settings, Count: 1, Selector: map[string]string{"natsperf-run": id}, Client: "rust",
		Wait: 30 * time.Second, OnLoss: coord.OnLossStop, Version: version.String(),
		Progress: progressOf(o.Progress), Series: o.Series,
	}
	res, err := coord.Coordinate(rctx, &run, cfg)
	if err != nil {
		var in coord.InputError
		if ctx.Err() == nil && agent.Exited() && !errors.As(err, &in) {
			return nil, fmt.Errorf("natsperf-rust agent (%s) exited: %s", bin, agent.LastLine())
		}
		return nil, inputError(err)
	}
	return finish(res, warnings, o), nil
}

// rustOpenModel says whether natsperf-rust runs kind at a fixed rate as the open model
// (operations sent on schedule with up to pacing.max_inflight awaiting answers).
func rustOpenModel(kind string) bool {
	return kind == "service request" || kind == "js pub sync" || kind == "kv put"
}

// withInflight is s with the open model's default bound filled in for natsperf-rust's fixed-rate
// requesters and sync publishers (which compute none themselves): rate x twice the tightest
// latency threshold, else rate x 1s, as natsperf's engine does. s itself is not changed.
func withInflight(s *spec.Spec) *spec.Spec {
	out := *s
	out.Workloads = slices.Clone(s.Workloads)
	for i := range out.Workloads {
		p := &out.Workloads[i].Pacing
		if rustOpenModel(out.Workloads[i].Kind()) && p.Rate > 0 && p.MaxInflight == 0 {
			p.MaxInflight = inflight.DefaultBound(p.Rate, s.SLO)
		}
	}
	return &out
}
