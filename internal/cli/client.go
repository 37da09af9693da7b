package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/nats-io/nuid"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/agentproto"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/coord"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/live"
	"github.com/natsperf/natsperf/internal/progress"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/rustbin"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/internal/version"
	"github.com/natsperf/natsperf/spec"
)

// clientFlags choose the NATS client library a command's clients run on (--client).
type clientFlags struct {
	name string // go or rust
	bin  string // --client-bin
	fs   flagSets
}

// rustCommands are the commands natsperf-rust runs, as their command paths (without the root)
// and Spec kinds.
var rustCommands = map[string]bool{
	"pub": true, "sub": true, "service serve": true, "service request": true, "latency": true, "js pub sync": true, "js pub async": true,
}

func (c *clientFlags) add(f *pflag.FlagSet) {
	f.StringVar(&c.name, "client", "go", "the NATS client library the clients run on: go (nats.go, in this process) or rust (async-nats: a natsperf-rust agent started here, or with --agents the agents labelled client=rust)")
	f.StringVar(&c.bin, "client-bin", "", "natsperf-rust's path for --client rust (default: next to natsperf, on PATH, or clients/rust/target/release)")
	c.fs = append(c.fs, f)
}

func (c *clientFlags) changed(name string) bool { return c.fs.changed(name) }

// registerClientFlags puts --client on the commands natsperf-rust runs.
func (a *app) registerClientFlags(root *cobra.Command) {
	eachCommand(root, func(c *cobra.Command) {
		if path := strings.TrimPrefix(c.CommandPath(), root.Name()+" "); rustCommands[path] {
			a.client.add(c.Flags())
		}
	})
}

// withClient records --client in the Spec a command line built (its workloads' client).
func (a *app) withClient(s *spec.Spec) error {
	switch a.client.name {
	case "go", "":
		if a.client.changed("client-bin") {
			return usagef("--client-bin is for --client rust")
		}
	case "rust":
		for i := range s.Workloads {
			s.Workloads[i].Client = "rust"
		}
	default:
		return usagef("--client must be go or rust, got %q", a.client.name)
	}
	return nil
}

// usesRust says whether s runs through natsperf-rust (its workloads' client is rust).
func usesRust(s *spec.Spec) bool {
	for _, w := range s.Workloads {
		if w.Client == "rust" {
			return true
		}
	}
	return false
}

// clientCheck refuses Specs natsperf-rust does not run: other kinds, and Go and Rust
// workloads in one run (one run is one engine).
func clientCheck(s *spec.Spec) error {
	if !usesRust(s) {
		return nil
	}
	for _, w := range s.Workloads {
		if w.Client != "rust" {
			return usagef("a run's workloads use one client library: %s is go, others rust", w.Kind())
		}
		if !rustCommands[w.Kind()] {
			return usagef("--client rust runs pub, sub, service serve, service request, latency, js pub sync and js pub async, not %s: use --client go", w.Kind())
		}
		if flag := rustLacksPayload(w.Config); flag != "" {
			return usagef("%s does not apply to --client rust (natsperf-rust sends --size bytes with the stamp in the payload): use --client go", flag)
		}
	}
	if flag := rustLacksTarget(s.Target); flag != "" {
		return usagef("%s does not apply to --client rust (natsperf-rust connects with -s, --creds, --nkey, --user/--password, --token and TLS only): use --client go", flag)
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

// rustBinary is natsperf-rust: --client-bin, else found as rustbin.Find finds it.
func (a *app) rustBinary() (string, error) {
	if a.client.bin != "" {
		if fi, err := os.Stat(a.client.bin); err != nil || fi.IsDir() {
			return "", usagef("--client-bin %s: no such file", a.client.bin)
		}
		return a.client.bin, nil
	}
	bin, err := rustbin.Find(".")
	if err != nil {
		return "", fmt.Errorf("--client rust: %w", err)
	}
	return bin, nil
}

// runRust runs s through natsperf-rust: on the agents labelled client=rust (--agents), or on a
// natsperf-rust agent started here for this run on the run's server (the embedded one when no
// server is given), coordinated as a distributed run of one agent. The child agent is always
// stopped at the end (also on Ctrl-C and failure).
func (a *app) runRust(cmd *cobra.Command, sr *specRun) error {
	if a.dist.agents != "" {
		return a.runDistributed(cmd, sr.spec, sr.hist)
	}
	bin, err := a.rustBinary()
	if err != nil {
		return err
	}
	if err := sr.spec.Validate(); err != nil {
		return usageError{err}
	}
	if err := checkOutputFile("-o", a.out.File); err != nil {
		return err
	}
	if err := checkOutputFile("--csv", a.csvFile); err != nil {
		return err
	}
	ctx := runCtx(cmd)
	s := sr.spec
	t, err := engine.OpenSpecTarget(ctx, s, engine.Options{Env: a.streams.Env, Warn: a.streams.Err, Connection: sr.conn})
	if err != nil {
		return a.engineError(ctx.Err(), err)
	}
	defer t.Close()
	if engine.NeedsSetup(s) { // streams made here, once, as for a distributed scenario cell
		_, teardown, err := engine.Setup(ctx, t, s)
		defer teardown()
		if err != nil {
			return err
		}
		s = engine.WithoutSetup(s)
	}
	run := *s
	run.Target = specTarget(t.Settings)
	run.Target.Embedded = nil

	res, err := a.coordinateRust(ctx, bin, t.Settings, &run, true, nil)
	return a.coordinated(ctx, res, err, sr.hist)
}

// runCellRust runs one repetition of a scenario cell whose workloads say client rust: on
// the cell's target (the scenario's shared one), its setup made here, through a
// natsperf-rust agent started for it; the Result saved as runOnce saves one. With --agents
// runOnce takes runCellDistributed instead (only client=rust agents).
func (a *app) runCellRust(ctx context.Context, tg *scenarioTargets, sc *scenario.Scenario, c scenario.Cell, rep int, dir string,
	s *spec.Spec, conn *connect.Settings, ir scenario.IndexRun, fail func(error) scenario.IndexRun, metrics *live.Metrics,
) scenario.IndexRun {
	name := scenario.RunName(c, rep)
	if err := clientCheck(s); err != nil {
		return fail(err)
	}
	bin, err := a.rustBinary()
	if err != nil {
		return fail(err)
	}
	t, release, err := tg.get(ctx, s, conn)
	if err != nil {
		return fail(err)
	}
	defer release()
	var warnings []string
	if engine.NeedsSetup(s) {
		w, teardown, err := engine.Setup(ctx, t, s)
		defer teardown()
		if err != nil {
			return fail(err)
		}
		warnings, s = w, engine.WithoutSetup(s)
	}
	run := *s
	run.Target = specTarget(t.Settings)
	run.Target.Embedded = nil
	// The agent's intervals, live: the series file and --metrics-addr, as a local cell's.
	sink, err := openCellSeries(c.File, s, dir, name, metrics, &ir)
	if err != nil {
		return fail(err)
	}
	var series chan<- record.Slice
	if sink != nil {
		series = sink.C()
	}
	startAgentRunMetrics(metrics, c.Name, name, s)
	res, err := a.coordinateRust(ctx, bin, t.Settings, &run, false, series)
	if sink != nil {
		if serr := sink.Close(); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		return fail(err)
	}
	res.Warnings = append(warnings, res.Warnings...)
	withScenarioSettings(res, sc, c, rep)
	return a.recordCell(dir, ir, res, " (natsperf-rust)", " ("+name+")")
}

// coordinateRust runs spec s on a natsperf-rust agent started for it on the server c, as a
// one-agent distributed run, and stops the agent after.
func (a *app) coordinateRust(ctx context.Context, bin string, c connect.Settings, s *spec.Spec, bars bool, series chan<- record.Slice) (*result.Result, error) {
	id := nuid.Next()
	agent, err := startRustAgent(bin, c, "natsperf-run="+id)
	if err != nil {
		return nil, err
	}
	defer agent.stop()
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() { // an agent that dies ends the wait for it
		select {
		case <-agent.done:
			cancel()
		case <-rctx.Done():
		}
	}()
	cfg := coord.Config{
		Control: c, Count: 1, Selector: map[string]string{"natsperf-run": id}, Client: "rust",
		Wait: 30 * time.Second, OnLoss: coord.OnLossStop, Version: version.String(),
		Secrets: agentproto.Secrets{Password: string(s.Target.Password), Token: string(s.Target.Token)},
		Series:  series,
	}
	if bars && a.streams.IsTerminal && !a.out.NoProgress {
		cfg.Progress = progress.Bars{W: a.streams.Err}
	}
	res, err := coord.Run(rctx, s, cfg)
	if err != nil && ctx.Err() == nil && agent.exited() {
		var in coord.InputError
		if !errors.As(err, &in) {
			return nil, fmt.Errorf("natsperf-rust agent (%s) exited: %s", bin, agent.lastLine())
		}
	}
	return res, err
}

// rustAgent is a natsperf-rust agent started for one run.
type rustAgent struct {
	cmd  *exec.Cmd
	errs *lockedBuffer
	done chan struct{}
}

// startRustAgent starts `natsperf-rust agent` on the run's server, labelled so this run's
// coordinator picks it and no other. Passwords and tokens go in its environment, never in
// its command line.
func startRustAgent(bin string, c connect.Settings, label string) (*rustAgent, error) {
	args := []string{"-s", c.Servers}
	for flag, v := range map[string]string{"--creds": c.Creds, "--nkey": c.NKey, "--user": c.User, "--tls-cert": c.TLSCert, "--tls-key": c.TLSKey, "--tls-ca": c.TLSCA} {
		if v != "" {
			args = append(args, flag, v)
		}
	}
	if c.TLSFirst {
		args = append(args, "--tlsfirst")
	}
	args = append(args, "agent", "--label", label, "--label", "client=rust", "--name", fmt.Sprintf("rust-%d", os.Getpid()))
	cmd := exec.Command(bin, args...)
	cmd.Env = os.Environ()
	if c.Password != "" {
		cmd.Env = append(cmd.Env, "NATSPERF_RUST_PASSWORD="+c.Password)
	}
	if c.Token != "" {
		cmd.Env = append(cmd.Env, "NATSPERF_RUST_TOKEN="+c.Token)
	}
	ra := &rustAgent{cmd: cmd, errs: &lockedBuffer{}, done: make(chan struct{})}
	cmd.Stderr = ra.errs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("start natsperf-rust (%s): %w", bin, err)
	}
	go func() {
		_ = cmd.Wait()
		close(ra.done)
	}()
	return ra, nil
}

func (r *rustAgent) exited() bool {
	select {
	case <-r.done:
		return true
	default:
		return false
	}
}

// lastLine is the agent's last line on stderr (why it exited).
func (r *rustAgent) lastLine() string {
	lines := strings.Split(strings.TrimSpace(r.errs.String()), "\n")
	if last := lines[len(lines)-1]; last != "" {
		return last
	}
	return "it said nothing (is it natsperf-rust?)"
}

// stop ends the agent: SIGTERM (it stops its run and unregisters), then a kill.
func (r *rustAgent) stop() {
	if r.exited() {
		return
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(10 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.done
	}
}

// lockedBuffer keeps a child's stderr while the child writes it.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
