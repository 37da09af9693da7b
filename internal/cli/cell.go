package cli

import (
	"github.com/natsperf/natsperf/internal/cmdline"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// cellOptions are the runner options a scenario cell's Spec s runs with, the command line's
// connection settings given to its target: -s or --context win over the file's target
// (scenario.Cell.Spec made it the Spec's), whose TLS switches the command line may add to;
// with neither, NATS_URL or the nats context, else an embedded server.
func (a *app) cellOptions(s *spec.Spec) runner.Options {
	cli, file := a.conn.Settings, s.Target
	var conn connect.Settings
	switch {
	case cli.Servers != "" || cli.Context != "":
		conn = cli
	case s.Target.Embedded != nil:
		a.conn.WithEncryption(&s.Target)
		a.conn.WithProcesses(&s.Target)
		a.conn.WithSync(&s.Target)
		a.withTelemetry(&s.Target, file)
		return a.runOptions()
	case len(s.Target.Servers) > 0 || s.Target.Context != "":
		conn = connect.FromSpec(s.Target)
		conn.TLSFirst, conn.TLSInsecure = conn.TLSFirst || cli.TLSFirst, conn.TLSInsecure || cli.TLSInsecure
		conn.ConnectTimeout = cli.ConnectTimeout
		conn.JS = overJS(conn.JS, cli.JS) // the scenario's JetStream domain, unless the flags say
	default:
		conn = cli
	}
	s.Target = connect.SpecTarget(conn)
	a.conn.WithEncryption(&s.Target)
	a.conn.WithSync(&s.Target)
	a.withTelemetry(&s.Target, file)
	return a.runOptions()
}

// withTelemetry gives a cell's target the file's telemetry settings (monitor, the system
// account user), the command line's --sys-creds or --sys-user winning; a system user's
// password the file does not give comes from $NATSPERF_SYS_PASSWORD, as on the command line.
func (a *app) withTelemetry(t *spec.Target, file spec.Target) {
	t.Monitor = file.Monitor
	t.SysCreds, t.SysUser, t.SysPassword = file.SysCreds, file.SysUser, file.SysPassword
	if c := a.conn; c.SysCreds != "" || c.SysUser != "" {
		t.SysCreds, t.SysUser, t.SysPassword = c.SysCreds, c.SysUser, spec.Secret(c.SysPassword)
	}
	if t.SysUser != "" && t.SysPassword == "" && a.streams.Env.Getenv != nil {
		t.SysPassword = spec.Secret(a.streams.Env.Getenv(cmdline.SysPasswordEnv))
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
