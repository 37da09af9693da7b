// Package runner runs natsperf benchmarks from Go: hand it a spec.Spec, get the
// *result.Result (package github.com/natsperf/natsperf/result, which documents every field)
// that the command line would print and save. The same call runs the Spec wherever it is asked to:
//
//   - in this process (the default), on the nats.go engine;
//   - through natsperf-rust, when the Spec's workloads say client rust: a natsperf-rust agent
//     is started for the run, coordinated as a one-agent run, and stopped after;
//   - across natsperf agents (Options.Agents: a count or a label selector), found on a
//     control server, started at one instant and merged into one Result.
//
// In every case the Spec's own setup (streams to recreate, buckets to create) is made once,
// here, before any client starts, and deleted after when it asks. With no server in the
// Spec's target (and no NATS_URL), a run in this process or through natsperf-rust starts an
// embedded nats-server, as the command line does.
//
// Run does everything at once; Prepare, then Start and Wait, split a run in this process in
// two phases: every client is connected and set up before Start releases them all at one
// instant. Targets keeps one target open across runs (probe after probe, a scenario's cells).
//
// Options say where the run goes and what the caller is told while it goes: notices and
// start lines (Log, StartLog), live bars (Progress), the moment it starts (OnStart), every
// closed interval (Series). natsperf's own command line, its scenario cells and its capacity
// probes call Run with the same public Options a Go program sets; the run itself, its
// connection and secrets included, is the Spec.
//
// Every workload kind of spec.Kinds runs here: pub, sub, pubsub (with js too), service serve
// and request, js pub, the js consumers and direct gets, kv put and get, latency; natsperf-rust
// runs RustKinds.
package runner

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// Options say where a run goes and what it tells its caller while it goes. The zero value
// runs the Spec in this process (or through natsperf-rust when its workloads say client
// rust), reads NATS_URL and the nats contexts from this process's environment, and writes
// nothing. Every field is a public type: a Go program sets each of them as natsperf's own
// command line, its scenario cells and its capacity probes do.
type Options struct {
	// Log receives the one-line notices (embedded server started, retries, the agents'
	// coordinator's steps) and, unless StartLog is set, the start lines; nil: discarded.
	Log io.Writer
	// StartLog, when set, receives the start lines instead of Log: the run's, then one per
	// client as it starts, stamped with the time of day ("15:04:05 [1] Starting Core NATS
	// publisher, publishing 1,000 messages"). natsperf's command line prints them with the
	// Result, notices apart.
	StartLog io.Writer
	// Progress, when set, shows live progress: one bar per client (per agent across agents).
	Progress Progress
	// OnStart, when set, is called once, when the run is about to start (Starting says what
	// a caller's rendering needs: the series interval, the kind's own text layout).
	OnStart func(Starting)

	// Getenv is the environment the run reads: NATS_URL and the nats contexts (the nats
	// CLI's, under XDG_CONFIG_HOME or HOME's .config) when the Spec's target names no
	// server, an embedded server's encryption key (NATSPERF_JS_KEY), where nats-server
	// releases are kept (NATSPERF_SERVER_BINARIES); nil: this process's (os.Getenv).
	Getenv func(key string) string

	// Title and Settings label the run, as natsperf labels a scenario's cells: Title replaces
	// the run's name on its first start line (a run in this process: "Starting TITLE [...]"
	// instead of "Starting Core NATS publisher benchmark [...]"), and Settings' entries join
	// the Result's settings (as JSON, so their values must marshal), replacing any of their
	// names.
	Title    string
	Settings map[string]any
	// Hist is the file the caller saves the run's latency histogram to (natsperf's --hist),
	// echoed in the Result's settings; the runner writes nothing there.
	Hist string

	// Agents, when set, runs the Spec across natsperf agents: a number ("3") or a label
	// selector ("zone=a,tier=x"). A Spec whose workloads say client rust goes to the agents
	// labelled client=rust (natsperf-rust agents), any other to natsperf agents.
	Agents string
	// Control is the NATS server the agents listen on (default: ControlTarget's).
	Control string
	// ControlTarget is how the agents' control server is reached: its credentials, TLS, nats
	// context and (unless Control is set) servers; nil: the Spec's target. Its secrets are
	// spec.Secret, written redacted like the Spec's.
	ControlTarget *spec.Target
	// AgentsWait bounds how long to wait for the agents asked for (0: 30s).
	AgentsWait time.Duration
	// OnAgentLoss is what the run does when an agent stops answering: OnLossStop (the
	// default) or OnLossContinue. The Result is partial and names the lost agents either way.
	OnAgentLoss string

	// RustBin is natsperf-rust's path, for a Spec whose workloads say client rust (default:
	// next to this executable, on PATH, or clients/rust/target/release).
	RustBin string

	// Series, when set, receives every client's closed interval while the run goes (its
	// Src across agents named after the agent, "a1/pub/1"). An interval that finds it full
	// is dropped; nothing is sent after Run returns. Run does not close it.
	Series chan<- result.Slice

	// Targets, when set, keeps the run's target open for the next run that asks for the same
	// one (the same servers, or an embedded server of the same size). Runs across agents
	// do not use it.
	Targets *Targets
}

// What a run across agents does when one is lost (Options.OnAgentLoss).
const (
	OnLossStop     = "stop"
	OnLossContinue = "continue"
)

// Run runs s where o says and returns its Result (result.Write saves it as the command
// line's --json does; WriteText prints it). An error means the run could not start (an
// InputError: the Spec or Options are wrong); a run that started and failed returns its
// Result with Stop saying why.
func Run(ctx context.Context, s *spec.Spec, o Options) (*result.Result, error) {
	if err := checkClient(s); err != nil {
		return nil, err
	}
	s = s.Shaped() // one Poisson seed for every agent, and the Result records it
	switch {
	case o.Agents != "":
		return runAgents(ctx, s, o)
	case UsesRust(s):
		return runRust(ctx, s, o)
	}
	p, err := Prepare(ctx, s, o)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	p.Start(time.Time{})
	return p.Wait(), nil
}

// Prepared is a run whose clients are connected and set up, held until Start.
type Prepared struct {
	r       *engine.Execution
	release func()
}

// Prepare validates s, opens its target (or takes o.Targets') and sets up every client, in
// this process: runs across agents and through natsperf-rust go through Run. It must be
// followed by Start and Wait, or by Close.
func Prepare(ctx context.Context, s *spec.Spec, o Options) (*Prepared, error) {
	if o.Agents != "" || UsesRust(s) {
		return nil, InputError{fmt.Errorf("runner.Prepare runs in this process: a run across agents or through natsperf-rust goes through runner.Run")}
	}
	eo := engine.Options{
		Env: envOf(o), Warn: o.Log, Logf: logfOf(o), Progress: progressOf(o.Progress),
		Hist: o.Hist, Title: o.Title, Settings: o.Settings, Series: o.Series,
	}
	release := func() {}
	if o.Targets != nil {
		t, rel, err := o.Targets.get(ctx, s, eo.Env)
		if err != nil {
			return nil, inputError(err)
		}
		eo.Target, release = t, rel
	}
	r, err := engine.Prepare(ctx, s, eo)
	if err != nil {
		release()
		return nil, inputError(err)
	}
	if o.OnStart != nil {
		o.OnStart(Starting{Interval: r.Interval, Text: r.Text, Embedded: r.Target.Embedded != nil, Command: r.Plan.Command})
	}
	return &Prepared{r: r, release: release}, nil
}

// Start releases every client at at (at once when at is zero or past) and returns at once.
func (p *Prepared) Start(at time.Time) { p.r.Start(at) }

// Wait waits for the run to end and returns its Result.
func (p *Prepared) Wait() *result.Result { return p.r.Wait() }

// Close releases a prepared run that will not be started, or one that ended; it may be
// called more than once.
func (p *Prepared) Close() {
	p.r.Close()
	if p.release != nil {
		p.release()
		p.release = nil
	}
}

// SeriesInterval is the width a run of s slices its series at.
func SeriesInterval(s *spec.Spec) time.Duration { return engine.SeriesInterval(s) }
