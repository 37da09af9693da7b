package connect

import (
	"errors"
	"net/url"
	"strings"

	"github.com/natsperf/natsperf/spec"
)

// FromSpec is a Spec target's connection settings, as the flags would give them: the one
// converter from the serialised shape (spec.Target) to live settings.
func FromSpec(t spec.Target) Settings {
	ct := t.ConnectTimeout.D()
	if ct == 0 {
		ct = DefaultConnectTimeout
	}
	return Settings{
		Servers: strings.Join(t.Servers, ","), Context: t.Context, Creds: t.Creds, NKey: t.NKey,
		User: t.User, Password: string(t.Password), Token: string(t.Token),
		TLSCert: t.TLSCert, TLSKey: t.TLSKey, TLSCA: t.TLSCA, TLSFirst: t.TLSFirst, TLSInsecure: t.TLSInsecure,
		ConnectTimeout: ct, JWT: t.JWT, Seed: t.Seed, ConnectionName: t.ConnectionName,
		SocksProxy: t.SocksProxy, NoContext: t.NoContext,
		JS: JS{Domain: t.JSDomain, APIPrefix: t.JSAPIPrefix, EventPrefix: t.JSEventPrefix,
			InboxPrefix: t.InboxPrefix, Timeout: t.Timeout.D(), Trace: t.Trace},
	}
}

// SpecTarget is c as a Spec target; secrets go in (a Spec written out shows them redacted),
// credentials in server URLs move to the target's fields (MoveUserinfo).
func SpecTarget(c Settings) spec.Target {
	t := spec.Target{
		Context: c.Context, Creds: c.Creds, NKey: c.NKey, User: c.User,
		Password: spec.Secret(c.Password), Token: spec.Secret(c.Token),
		TLSCert: c.TLSCert, TLSKey: c.TLSKey, TLSCA: c.TLSCA, TLSFirst: c.TLSFirst, TLSInsecure: c.TLSInsecure,
		JWT: c.JWT, Seed: c.Seed, ConnectionName: c.ConnectionName, SocksProxy: c.SocksProxy, NoContext: c.NoContext,
		JSDomain: c.Domain, JSAPIPrefix: c.APIPrefix, JSEventPrefix: c.EventPrefix, InboxPrefix: c.InboxPrefix,
		Timeout: spec.Duration(c.JS.Timeout), Trace: c.Trace,
	}
	for _, u := range strings.Split(c.Servers, ",") {
		if u = strings.TrimSpace(u); u != "" {
			t.Servers = append(t.Servers, MoveUserinfo(u, &t))
		}
	}
	if c.ConnectTimeout != DefaultConnectTimeout {
		t.ConnectTimeout = spec.Duration(c.ConnectTimeout)
	}
	return t
}

// WithSettings is t connecting with c: its connection settings are c's (SpecTarget), what is
// not a connection setting (embedded server, monitoring endpoints, system account) stays t's.
// An agent running a Spec that leaves the target to it puts its own -s in this way.
func WithSettings(t spec.Target, c Settings) spec.Target {
	out := SpecTarget(c)
	out.Embedded, out.Monitor = t.Embedded, t.Monitor
	out.SysCreds, out.SysUser, out.SysPassword = t.SysCreds, t.SysUser, t.SysPassword
	return out
}

// MoveUserinfo moves credentials out of a server URL into t's fields (a Spec keeps no
// credentials in URLs, and writes secrets redacted). A URL that does not parse is kept
// redacted: the Spec's validation names it without its secret.
func MoveUserinfo(raw string, t *spec.Target) string {
	s := raw
	if !strings.Contains(s, "://") {
		s = "nats://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return RedactURL(raw)
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

// ErrNoControl is a run across agents (or an agent) without a control server.
var ErrNoControl = errors.New("runs across agents need --control URL (the NATS server the agents listen on) or -s")

// Control is the connection to the agents' control server: conn, with control as the server
// when given, resolved (NATS_URL, the nats context). ErrNoControl when no server is named.
func Control(conn Settings, control string, env Env) (Settings, error) {
	if control != "" {
		conn.Servers, conn.Context = control, ""
	}
	resolved, specified, err := Resolve(conn, env)
	if err != nil {
		return Settings{}, err
	}
	if !specified {
		return Settings{}, ErrNoControl
	}
	return resolved, nil
}
