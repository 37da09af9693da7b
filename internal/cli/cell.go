package cli

import (
	"bytes"
	"strings"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

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

// cellOptions are the runner options a scenario cell's Spec s runs with, the command line's
// connection settings given to its target: -s or --context win over the file's target
// (scenario.Cell.Spec made it the Spec's), whose TLS switches the command line may add to;
// with neither, NATS_URL or the nats context, else an embedded server.
func (a *app) cellOptions(s *spec.Spec) runner.Options {
	cli, file := a.conn.s, s.Target
	var conn connect.Settings
	switch {
	case cli.Servers != "" || cli.Context != "":
		conn = cli
	case s.Target.Embedded != nil:
		a.conn.withEncryption(&s.Target)
		a.conn.withProcesses(&s.Target)
		a.conn.withSync(&s.Target)
		a.withTelemetry(&s.Target, file)
		return a.runOptions(nil)
	case len(s.Target.Servers) > 0 || s.Target.Context != "":
		conn = connect.FromSpec(s.Target)
		conn.TLSFirst, conn.TLSInsecure = conn.TLSFirst || cli.TLSFirst, conn.TLSInsecure || cli.TLSInsecure
		conn.ConnectTimeout = cli.ConnectTimeout
		conn.JS = overJS(conn.JS, cli.JS) // the scenario's JetStream domain, unless the flags say
	default:
		conn = cli
	}
	s.Target = connect.SpecTarget(conn)
	a.conn.withEncryption(&s.Target)
	a.conn.withSync(&s.Target)
	a.withTelemetry(&s.Target, file)
	return a.runOptions(&conn)
}

// withTelemetry gives a cell's target the file's telemetry settings (monitor, the system
// account user), the command line's --sys-creds or --sys-user winning; a system user's
// password the file does not give comes from $NATSPERF_SYS_PASSWORD, as on the command line.
func (a *app) withTelemetry(t *spec.Target, file spec.Target) {
	t.Monitor = file.Monitor
	t.SysCreds, t.SysUser, t.SysPassword = file.SysCreds, file.SysUser, file.SysPassword
	if c := a.conn; c.sysCreds != "" || c.sysUser != "" {
		t.SysCreds, t.SysUser, t.SysPassword = c.sysCreds, c.sysUser, spec.Secret(c.sysPassword)
	}
	if t.SysUser != "" && t.SysPassword == "" && a.streams.Env.Getenv != nil {
		t.SysPassword = spec.Secret(a.streams.Env.Getenv(sysPasswordEnv))
	}
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
