package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/progress"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/runopts"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// newSpec is the Spec a benchmark command line runs: the connection flags as its target, the
// common flags as its pacing, warm-up and interval, and cfg as its one workload. Flags left at
// their defaults stay zero, which the engine reads as the same defaults.
func (a *app) newSpec(bf benchFlags, fs *pflag.FlagSet, clients int, cfg spec.Config) *spec.Spec {
	s := &spec.Spec{
		Version: spec.Version,
		Target:  a.conn.target(),
		Workloads: []spec.Workload{{
			Clients: clients,
			Pacing: spec.Pacing{
				Rate: bf.Rate, Duration: spec.Duration(bf.Duration), Sleep: spec.Duration(bf.Sleep),
			},
			Config: cfg,
		}},
		Warmup:    spec.Duration(bf.Warmup),
		NoLatency: bf.NoLatency,
		SLO:       bf.SLO,
	}
	shapePacing(bf.Shape, &s.Workloads[0].Pacing)
	withServerMetrics(s, bf.ServerMetrics, bf.NoServerMetrics)
	if fs.Changed("msgs") {
		s.Workloads[0].Pacing.Msgs = bf.Msgs
	}
	if fs.Changed("interval") {
		s.Interval = spec.Duration(bf.Interval)
	}
	withPayloadFill(s, fs)
	return s
}

// size is --size for a spec: zero when left at its default.
func size(bf benchFlags, fs *pflag.FlagSet) spec.Size {
	if fs.Changed("size") {
		return spec.Size(bf.Size)
	}
	return 0
}

// multiMax is --multisubject-max for a spec: zero when left at its default.
func multiMax(sf subjectFlags, fs *pflag.FlagSet) int {
	if fs.Changed("multisubject-max") {
		return sf.MultiSubjectMax
	}
	return 0
}

// idle is --idle-timeout for a spec: zero when left at its default.
func idle(bf benchFlags, fs *pflag.FlagSet) spec.Duration {
	if fs.Changed("idle-timeout") {
		return spec.Duration(bf.IdleTimeout)
	}
	return 0
}

// pendingLimit is a --pending-* value for a spec: -1 (unlimited) is the spec's zero.
func pendingLimit(v int64) int64 {
	if v < 0 {
		return 0
	}
	return v
}

// withFaults adds --verify, --fault and --fault-exec to s.
func withFaults(s *spec.Spec, ff *faultFlags, fs *pflag.FlagSet) *spec.Spec {
	s.Verify = ff.Verify
	s.Faults = spec.Faults{Inject: ff.Faults, Exec: ff.Execs}
	if fs.Changed("fault-exec-timeout") {
		s.Faults.ExecTimeout = spec.Duration(ff.ExecTimeout)
	}
	return s
}

// specRun is what a benchmark command line builds: the Spec (the whole run, its connection
// included), and the --hist file the command line writes beside it.
type specRun struct {
	spec *spec.Spec
	hist string
}

// specBuilder turns a parsed command line (flags and arguments) into its specRun; bad input
// is a usage error. It runs nothing.
type specBuilder func(cmd *cobra.Command, args []string) (*specRun, error)

// specRunE is a benchmark command's RunE: build its Spec, then run it. The builder is kept
// until specCommand files it under its command, for natsperf spec and scenario workloads.
func (a *app) specRunE(build specBuilder) func(*cobra.Command, []string) error {
	build = withPrecision(build)
	a.building = build
	return func(cmd *cobra.Command, args []string) error {
		if err := a.conn.checkEncryption(); err != nil {
			return err
		}
		if err := a.conn.checkLinks(); err != nil {
			return err
		}
		r, err := build(cmd, args)
		if err != nil {
			return err
		}
		if err := a.withClient(r.spec); err != nil {
			return err
		}
		return a.runSpec(cmd, r)
	}
}

// runSpec hands a command line's Spec to the runner (in this process, through natsperf-rust,
// or across agents, as the flags say) and renders its Result.
func (a *app) runSpec(cmd *cobra.Command, sr *specRun) error {
	if err := a.distributedCheck(); err != nil {
		return err
	}
	if err := a.clientBinCheck(sr.spec); err != nil {
		return err
	}
	if err := checkOutputFile("-o", a.out.File); err != nil {
		return err
	}
	if err := checkOutputFile("--csv", a.csvFile); err != nil {
		return err
	}
	ctx := runCtx(cmd)
	o := a.runOptions()
	o.CLI.Warn, o.CLI.Logf, o.CLI.Hist = a.streams.Err, a.logf(), sr.hist
	if a.streams.IsTerminal && !a.out.NoProgress {
		o.CLI.Progress = progress.Bars{W: a.streams.Err}
	}
	var text func(io.Writer, *result.Result) error // the kind's own layout (latency's)
	o.CLI.Prepared = func(p runopts.Prepared) {
		warnPrivate(a.streams.Err, p.Embedded, p.Command)
		text = p.Text
	}
	res, err := runner.Run(ctx, sr.spec, o)
	if err != nil {
		return a.runError(ctx.Err(), err)
	}
	if text == nil { // run by natsperf-rust or agents: a latency Result still prints as latency's
		text = coordinatedText(res, *a.started)
	}
	err = a.render(res, text)
	if herr := a.saveHist(sr.hist, res); herr != nil && err == nil {
		err = herr
	}
	return err
}

// runOptions are the runner's options from the command line's flags: where the run goes
// (--agents ..., --client-bin); the run's connection is its Spec's target.
func (a *app) runOptions() runner.Options {
	return runner.Options{
		Agents: a.dist.agents, Control: a.dist.control, AgentsWait: a.dist.wait, OnAgentLoss: a.dist.onLoss,
		RustBin: a.client.bin,
		CLI:     &runopts.CLI{Env: a.streams.Env, Flags: &a.conn.s},
	}
}

// runError maps what the runner returned before a run to the command line's exit codes.
func (a *app) runError(ctxErr, err error) error {
	var in runner.InputError
	switch {
	case errors.As(err, &in):
		return usageError{err}
	case ctxErr != nil:
		fmt.Fprintf(a.streams.Err, "natsperf: interrupted before the run started\n")
		return exitCode(exitInterrupted)
	}
	return err
}

// printSpec writes s (YAML; JSON with --json) and validates it, as natsperf run SPEC would.
func (a *app) printSpec(s *spec.Spec) error {
	if err := s.Validate(); err != nil {
		return usageError{err}
	}
	if a.out.JSON {
		return s.WriteJSON(a.streams.Out)
	}
	b, err := s.YAML()
	if err != nil {
		return err
	}
	_, err = a.streams.Out.Write(b)
	return err
}

// isSpecFile reports whether path holds a run Spec rather than a scenario: its top-level
// version names the Spec format (any version of it, so a wrong one gets the Spec's error).
func isSpecFile(path string) bool {
	data, err := os.ReadFile(path)
	if err != nil {
		return false // the scenario loader reports it
	}
	var head struct {
		Version string `yaml:"version"`
	}
	if yaml.Unmarshal(data, &head) != nil {
		return false
	}
	return strings.HasPrefix(head.Version, "natsperf.spec/")
}

// runSpecFile runs the Spec at path once and renders its Result as the command it stands for.
func (a *app) runSpecFile(cmd *cobra.Command, path string, rf runFlags) error {
	if len(rf.set) > 0 || rf.resume || rf.keep || rf.metricsAddr != "" {
		return usagef("%s is a Spec: --set, --resume, --keep and --metrics-addr are for scenario files", path)
	}
	s, err := spec.ReadFile(path)
	if err != nil {
		return usageError{err}
	}
	// -s or --context wins over the Spec's target, as over a scenario file's (cellSpec).
	if cli := a.conn.s; cli.Servers != "" || cli.Context != "" {
		s.Target = connect.SpecTarget(cli)
	}
	// Secrets are never in a spec: the command line gives them.
	if p := a.conn.s.Password; p != "" {
		s.Target.Password = spec.Secret(p)
	}
	if t := a.conn.s.Token; t != "" {
		s.Target.Token = spec.Secret(t)
	}
	if rf.dryRun {
		return a.printSpec(s)
	}
	return a.runSpec(cmd, &specRun{spec: s})
}

// specAnnotation marks the commands that build a Spec (and so take --dry-run).
const specAnnotation = "natsperf-spec"

// specCommand marks cmd as a benchmark command and files the builder its RunE was made with
// (specRunE), so its Spec can be built without running it.
func (a *app) specCommand(cmd *cobra.Command) *cobra.Command {
	if a.building == nil {
		panic("natsperf: " + cmd.Name() + ": specCommand without specRunE") // a mistake in this package
	}
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[specAnnotation] = "yes"
	a.builders[cmd] = a.building
	a.building = nil
	return cmd
}

// specCmd prints the Spec a benchmark command line would run. It parses the command line with
// that command's own flags (same tree, no second root) and calls its builder, so the Spec
// printed is the one the command runs.
func (a *app) specCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "spec COMMAND [ARGS] [FLAGS]",
		Short: "Print the Spec a benchmark command line would run (YAML; JSON with --json), without running it",
		Long: `Print the run Spec (docs/spec.md) that a benchmark command line builds, without connecting
anywhere or running anything: YAML, or JSON with --json. Save it, diff it, edit it, and run it
with 'natsperf run FILE'. Passwords and tokens are written as "[redacted]"; give them again on
the command line of 'run' or use creds, nkey or a nats context. The commands that build a Spec
are every benchmark command: pub, sub, pubsub, service serve|request, js pub sync|async|batch,
js ordered|consume|fetch|push, js get sync|batch, kv put|get and latency.`,
		Example: `  natsperf spec pub foo --msgs 1000 --size 16
  natsperf spec pubsub foo --pub 2 --sub 4 --rate 1000 --duration 2s --json`,
		DisableFlagParsing: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
				return cmd.Help()
			}
			_, sr, err := a.commandSpec(cmd, args, "it builds no Spec (pub, sub, pubsub, service, js, kv and latency do)")
			if err != nil {
				return err
			}
			return a.printSpec(sr.spec)
		},
	}
}

// commandSpec parses a benchmark command line (args after 'spec' or 'capacity') with that
// command's own flags, in this command tree, and calls its Spec builder. notOne ends the
// message for a command that builds no Spec.
func (a *app) commandSpec(cmd *cobra.Command, args []string, notOne string) (*cobra.Command, *specRun, error) {
	target, rest, err := cmd.Root().Find(args)
	if err != nil {
		return nil, nil, usageError{err}
	}
	if _, ok := target.Annotations[specAnnotation]; !ok {
		return nil, nil, usagef("'%s' is not a benchmark command: %s", target.CommandPath(), notOne)
	}
	if err := target.ParseFlags(rest); err != nil {
		return nil, nil, usageError{err}
	}
	if err := a.conn.parsed(a.streams.Env); err != nil {
		return nil, nil, err
	}
	if err := target.ValidateArgs(target.Flags().Args()); err != nil {
		return nil, nil, err
	}
	sr, err := a.builders[target](target, target.Flags().Args())
	if err != nil {
		return nil, nil, err
	}
	if err := a.withClient(sr.spec); err != nil {
		return nil, nil, err
	}
	return target, sr, nil
}
