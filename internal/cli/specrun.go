package cli

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gopkg.in/yaml.v3"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/progress"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/spec"
)

// newSpec is the Spec a benchmark command line runs: the connection flags as its target, the
// common flags as its pacing, warm-up and interval, and cfg as its one workload. Flags left at
// their defaults stay zero, which the engine reads as the same defaults.
func (a *app) newSpec(bf benchFlags, fs *pflag.FlagSet, clients int, cfg spec.Config) *spec.Spec {
	s := &spec.Spec{
		Version: spec.Version,
		Target:  specTarget(a.conn.s),
		Workloads: []spec.Workload{{
			Clients: clients,
			Pacing: spec.Pacing{
				Rate: bf.Rate, Duration: spec.Duration(bf.Duration), Sleep: spec.Duration(bf.Sleep),
			},
			Config: cfg,
		}},
		Warmup:    spec.Duration(bf.Warmup),
		NoLatency: bf.NoLatency,
	}
	if fs.Changed("msgs") {
		s.Workloads[0].Pacing.Msgs = bf.Msgs
	}
	if fs.Changed("interval") {
		s.Interval = spec.Duration(bf.Interval)
	}
	return s
}

// specTarget is the connection flags as a spec target; secrets go in (a spec written out
// shows them redacted).
func specTarget(c connect.Settings) spec.Target {
	t := spec.Target{
		Context: c.Context, Creds: c.Creds, NKey: c.NKey, User: c.User,
		Password: spec.Secret(c.Password), Token: spec.Secret(c.Token),
		TLSCert: c.TLSCert, TLSKey: c.TLSKey, TLSCA: c.TLSCA, TLSFirst: c.TLSFirst, TLSInsecure: c.TLSInsecure,
	}
	for _, u := range strings.Split(c.Servers, ",") {
		if u = strings.TrimSpace(u); u != "" {
			t.Servers = append(t.Servers, withoutUserinfo(u, &t))
		}
	}
	if c.ConnectTimeout != connect.DefaultConnectTimeout {
		t.ConnectTimeout = spec.Duration(c.ConnectTimeout)
	}
	return t
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

// withoutUserinfo moves credentials out of a server URL into t's fields (a Spec keeps no
// credentials in URLs, and writes secrets redacted). A URL that does not parse is kept
// redacted: the Spec's validation names it without its secret.
func withoutUserinfo(raw string, t *spec.Target) string {
	s := raw
	if !strings.Contains(s, "://") {
		s = "nats://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return connect.RedactURL(raw)
	}
	if u.User == nil {
		return raw
	}
	if p, ok := u.User.Password(); ok {
		if t.User == "" && t.Password == "" {
			t.User, t.Password = u.User.Username(), spec.Secret(p)
		}
	} else if t.Token == "" {
		t.Token = spec.Secret(u.User.Username())
	}
	u.User = nil
	return u.String()
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

// runSpec hands s to the engine and renders its Result; under natsperf spec it prints s instead.
// In a scenario's capture mode it hands the built plan over instead of running it.
// conn is the command line's connection settings (nil for a Spec file, whose target is its own).
func (a *app) runSpec(cmd *cobra.Command, s *spec.Spec, bf benchFlags, conn *connect.Settings) error {
	if a.specOnly {
		return a.printSpec(s)
	}
	ctx := runCtx(cmd)
	o := engine.Options{Env: a.streams.Env, Warn: a.streams.Err, Logf: a.logf(), Hist: bf.Hist, Connection: conn}
	if a.capture != nil {
		o.Target = a.capture.target // the scenario's, shared by its workloads
		r, err := engine.Plan(ctx, s, o)
		if err != nil {
			return a.engineError(ctx.Err(), err)
		}
		bf.Interval, bf.Warmup = r.Interval, r.Warmup
		// The scenario merges the plans' groups into one run; each workload's after-run steps
		// (JetStream: stream state, consumer clean-up, setup warnings) run on the merged Result.
		after := r.Plan.After
		a.capture.add(r.Plan, bf, func(ctx context.Context, res *result.Result) {
			if after != nil {
				after(ctx, res)
			}
			r.Close()
		})
		return nil
	}
	if err := checkOutputFile("-o", a.out.File); err != nil {
		return err
	}
	if err := checkOutputFile("--csv", a.csvFile); err != nil {
		return err
	}
	if a.streams.IsTerminal && !a.out.NoProgress {
		o.Progress = progress.Bars{W: a.streams.Err}
	}
	r, err := engine.Prepare(ctx, s, o)
	if err != nil {
		return a.engineError(ctx.Err(), err)
	}
	defer r.Close()
	warnPrivate(a.streams.Err, r.Target, r.Plan.Command)
	r.Start(time.Time{})
	res := r.Wait()
	err = a.render(res, r.Text)
	if herr := a.saveHist(bf.Hist, res); herr != nil && err == nil {
		err = herr
	}
	return err
}

// engineError maps what the engine returned before a run to the command line's exit codes.
func (a *app) engineError(ctxErr, err error) error {
	var in engine.InputError
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
	return a.runSpec(cmd, s, benchFlags{}, nil)
}

// specAnnotation marks the commands that build a Spec (and so take --dry-run).
const specAnnotation = "natsperf-spec"

func specCommand(cmd *cobra.Command) *cobra.Command {
	if cmd.Annotations == nil {
		cmd.Annotations = map[string]string{}
	}
	cmd.Annotations[specAnnotation] = "yes"
	return cmd
}

// specCmd prints the Spec a benchmark command line would run. It parses the command line with
// that command's own flags (same tree, no second root) and runs its RunE with specOnly set, so
// the Spec printed is the one the command builds.
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
			target, rest, err := cmd.Root().Find(args)
			if err != nil {
				return usageError{err}
			}
			if _, ok := target.Annotations[specAnnotation]; !ok {
				return usagef("'%s' is not a benchmark command: it builds no Spec (pub, sub, pubsub, service, js, kv and latency do)", target.CommandPath())
			}
			if err := target.ParseFlags(rest); err != nil {
				return usageError{err}
			}
			if err := target.ValidateArgs(target.Flags().Args()); err != nil {
				return err
			}
			a.specOnly = true
			return target.RunE(target, target.Flags().Args())
		},
	}
}
