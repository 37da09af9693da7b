package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"gopkg.in/yaml.v3"

	"github.com/natsperf/natsperf/internal/cmdline"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/progress"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// specRunE is a benchmark command's RunE: build its Line (cmdline), then run its Spec.
func (a *app) specRunE(c *cmdline.Command) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		if err := a.conn.CheckEncryption(); err != nil {
			return err
		}
		if err := a.conn.CheckLinks(); err != nil {
			return err
		}
		l, err := c.Line(args, a.streams.Env)
		if err != nil {
			return err
		}
		a.notices(l)
		a.dist, a.clientBin = &l.Agents, l.ClientBin
		return a.runSpec(cmd, l)
	}
}

// runSpec hands a command line's Spec to the runner (in this process, through natsperf-rust,
// or across agents, as the flags say) and renders its Result.
func (a *app) runSpec(cmd *cobra.Command, sr *cmdline.Line) error {
	if err := a.distributedCheck(); err != nil {
		return err
	}
	if err := a.clientBinCheck(sr.Spec); err != nil {
		return err
	}
	if err := checkOutputFile("-o", a.out.File); err != nil {
		return err
	}
	if err := checkOutputFile("--csv", a.out.CSV); err != nil {
		return err
	}
	ctx := runCtx(cmd)
	o := a.runOptions()
	o.Log, o.StartLog, o.Hist = a.streams.Err, a.startLog(), sr.Hist
	if a.streams.IsTerminal && !a.out.NoProgress {
		o.Progress = progress.Bars{W: a.streams.Err}
	}
	var text func(io.Writer, *result.Result) error // the kind's own layout (latency's)
	o.OnStart = func(p runner.Starting) {
		warnPrivate(a.streams.Err, p.Embedded, p.Command)
		text = p.Text
	}
	res, err := runner.Run(ctx, sr.Spec, o)
	if err != nil {
		return a.runError(ctx.Err(), err)
	}
	if text == nil { // run by natsperf-rust or agents: a latency Result still prints as latency's
		text = coordinatedText(res, *a.started)
	}
	err = a.render(res, text)
	if herr := a.saveHist(sr.Hist, res); herr != nil && err == nil {
		err = herr
	}
	return err
}

// runOptions are the runner's options from the command line's flags: where the run goes
// (--agents ..., --client-bin), the agents' control server reached with the connection
// flags, the environment the command line reads; the run's connection is its Spec's target.
func (a *app) runOptions() runner.Options {
	control := connect.SpecTarget(a.conn.Settings)
	return runner.Options{
		Agents: a.dist.Agents, Control: a.dist.Control, ControlTarget: &control, AgentsWait: a.dist.Wait,
		OnAgentLoss: a.dist.OnLoss, RustBin: a.clientBin, Getenv: getenv(a.streams.Env),
	}
}

// getenv is env as runner.Options.Getenv: its Home answers HOME, and a nil Getenv is an
// empty environment (the runner's nil is the process's).
func getenv(env connect.Env) func(string) string {
	return func(key string) string {
		switch {
		case key == "HOME":
			return env.Home
		case env.Getenv == nil:
			return ""
		}
		return env.Getenv(key)
	}
}

// runError maps what the runner returned before a run to the command line's exit codes.
func (a *app) runError(ctxErr, err error) error {
	var in runner.InputError
	switch {
	case errors.As(err, &in):
		return usageError{Err: err}
	case ctxErr != nil:
		fmt.Fprintf(a.streams.Err, "natsperf: interrupted before the run started\n")
		return exitCode(exitInterrupted)
	}
	return err
}

// printSpec writes s (YAML; JSON with --json) and validates it, as natsperf run SPEC would.
func (a *app) printSpec(s *spec.Spec) error {
	if err := s.Validate(); err != nil {
		return usageError{Err: err}
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
		return usageError{Err: err}
	}
	// -s or --context wins over the Spec's target, as over a scenario file's (cellSpec).
	if cli := a.conn.Settings; cli.Servers != "" || cli.Context != "" {
		s.Target = connect.SpecTarget(cli)
	}
	// Secrets are never in a spec: the command line gives them.
	if p := a.conn.Settings.Password; p != "" {
		s.Target.Password = spec.Secret(p)
	}
	if t := a.conn.Settings.Token; t != "" {
		s.Target.Token = spec.Secret(t)
	}
	if rf.dryRun {
		return a.printSpec(s)
	}
	return a.runSpec(cmd, &cmdline.Line{Spec: s})
}

// specAnnotation marks the commands that build a Spec (and so take --dry-run).
const specAnnotation = "natsperf-spec"

// benchCommand makes cmd (its help) the benchmark command path: its flags are cmdline's, its
// RunE builds their Spec and runs it, and natsperf spec and capacity find its builder.
func (a *app) benchCommand(cmd *cobra.Command, path string) *cobra.Command {
	c := cmdline.NewCommand(path, a.g)
	cmd.Flags().AddFlagSet(c.Flags())
	cmd.Args = exactArgs(c.Args())
	cmd.RunE = a.specRunE(c)
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[specAnnotation] = "yes"
	a.builders[cmd] = c
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
			return a.printSpec(sr.Spec)
		},
	}
}

// commandSpec parses a benchmark command line (args after 'spec' or 'capacity') with that
// command's own flags, in this command tree, and builds its Line. notOne ends the message for
// a command that builds no Spec.
func (a *app) commandSpec(cmd *cobra.Command, args []string, notOne string) (*cobra.Command, *cmdline.Line, error) {
	target, rest, err := cmd.Root().Find(args)
	if err != nil {
		return nil, nil, usageError{Err: err}
	}
	if _, ok := target.Annotations[specAnnotation]; !ok {
		return nil, nil, usagef("'%s' is not a benchmark command: %s", target.CommandPath(), notOne)
	}
	if err := target.ParseFlags(rest); err != nil {
		return nil, nil, usageError{Err: err}
	}
	if err := a.conn.Parsed(a.streams.Env); err != nil {
		return nil, nil, err
	}
	if err := target.ValidateArgs(target.Flags().Args()); err != nil {
		return nil, nil, err
	}
	l, err := a.builders[target].Line(target.Flags().Args(), a.streams.Env)
	if err != nil {
		return nil, nil, err
	}
	a.notices(l)
	a.dist, a.clientBin = &l.Agents, l.ClientBin
	return target, l, nil
}

// clientBinCheck refuses a --client-bin that is not a file, for a run that starts it here.
func (a *app) clientBinCheck(s *spec.Spec) error {
	if a.clientBin == "" || a.dist.Agents != "" || !runner.UsesRust(s) {
		return nil
	}
	if fi, err := os.Stat(a.clientBin); err != nil || fi.IsDir() {
		return usagef("--client-bin %s: no such file", a.clientBin)
	}
	return nil
}
