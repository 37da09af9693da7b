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
// Every workload kind of spec.Kinds runs here: pub, sub, pubsub (with js too), service serve
// and request, js pub, the js consumers and direct gets, kv put and get, latency; natsperf-rust
// runs RustKinds.
package runner

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/runopts"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// Options say where a run goes and where it reports. The zero value runs the Spec in this
// process (or through natsperf-rust when its workloads say client rust) and writes nothing.
type Options struct {
	// Log receives the start lines and one-line notices (embedded server started, retries).
	Log io.Writer

	// Agents, when set, runs the Spec across natsperf agents: a number ("3") or a label
	// selector ("zone=a,tier=x"). A Spec whose workloads say client rust goes to the agents
	// labelled client=rust (natsperf-rust agents), any other to natsperf agents.
	Agents string
	// Control is the NATS server the agents listen on (default: the Spec's target's).
	Control string
	// AgentsWait bounds how long to wait for the agents asked for (0: 30s).
	AgentsWait time.Duration
	// OnAgentLoss is what the run does when an agent stops answering: OnLossStop (the
	// default) or OnLossContinue. The Result is partial and names the lost agents either way.
	OnAgentLoss string

	// RustBin is natsperf-rust's path, for a Spec whose workloads say client rust (default:
	// next to this executable, on PATH, or clients/rust/target/release).
	RustBin string

	// Series, when set, receives every client's closed interval while the run goes (across
	// agents: named after the agent, "a1/pub/1"). An interval that finds it full is dropped;
	// nothing is sent after Run returns. Run does not close it.
	Series chan<- Slice

	// Targets, when set, keeps the run's target open for the next run that asks for the same
	// one (the same servers, or an embedded server of the same size). Runs across agents
	// do not use it.
	Targets *Targets

	// CLI are natsperf's own command line's settings (internal/runopts); nil for a library.
	CLI *runopts.CLI
}

// Slice is one client's interval, sent to Options.Series when it closes: Start on the run's
// clock (nanoseconds), messages and bytes in it, its latencies (HdrHistogram, encoded), and
// Src, the client it comes from ("pub/1"; across agents "a1/pub/1").
type Slice = record.Slice

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
	c := cliOf(o)
	eo := engine.Options{
		Env: c.Env, Warn: c.Warn, Logf: c.Logf, Progress: c.Progress,
		Hist: c.Hist, Title: c.Title, Settings: c.Settings, Series: o.Series,
	}
	release := func() {}
	if o.Targets != nil {
		t, rel, err := o.Targets.get(ctx, s, c.Env)
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
	if c.Starting != nil {
		c.Starting(runopts.Starting{Interval: r.Interval, Text: r.Text, Embedded: r.Target.Embedded != nil, Command: r.Plan.Command})
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

// cliOf is o's command-line settings, or what a library's Options stand for: Log for the
// notices and start lines, the process's environment.
func cliOf(o Options) runopts.CLI {
	if o.CLI != nil {
		return *o.CLI
	}
	c := runopts.CLI{Env: connect.OSEnv()}
	if o.Log != nil {
		c.Warn = o.Log
		c.Logf = func(format string, args ...any) {
			_, _ = io.WriteString(o.Log, time.Now().Format("15:04:05 ")+fmt.Sprintf(format, args...)+"\n")
		}
	}
	return c
}

// SeriesInterval is the width a run of s slices its series at.
func SeriesInterval(s *spec.Spec) time.Duration { return engine.SeriesInterval(s) }
