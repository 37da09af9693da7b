package connect

import (
	"fmt"

	"github.com/nats-io/nats.go"
)

// Resolve merges, in increasing priority, the nats CLI context, NATS_URL and
// the explicit fields of s (see the package comment for the exact rules). It
// returns the merged Settings, with Context set to the context actually used,
// and whether any server was specified at all: false means the caller should
// start an embedded server. The result holds secrets; use Redacted to print.
func Resolve(s Settings, env Env) (resolved Settings, specified bool, err error) {
	envURL := env.get("NATS_URL")

	base, err := contextFor(s, env, envURL)
	if err != nil {
		return Settings{}, false, err
	}
	if envURL != "" {
		base.Servers = envURL
	}
	merged := overlay(base, s)

	if merged.Servers == "" {
		return merged, false, nil
	}
	if _, err := merged.URLs(); err != nil {
		return Settings{}, false, err
	}
	return merged, true, nil
}

// contextFor loads the context that applies, or returns zero Settings.
func contextFor(s Settings, env Env, envURL string) (Settings, error) {
	dir := env.configDir()
	if s.Context != "" {
		return withDefaultURL(loadContext(env, dir, s.Context, flagContext+" "+s.Context))
	}
	// A selected context must not lend its credentials to a server the
	// user chose some other way.
	if s.Servers != "" || envURL != "" || dir == "" || s.NoContext {
		return Settings{}, nil
	}
	name, file, err := selectedContext(dir)
	if err != nil || name == "" {
		return Settings{}, err
	}
	label := fmt.Sprintf("selected context %s (from %s)", name, file)
	return withDefaultURL(loadContext(env, dir, name, label))
}

// withDefaultURL applies the nats CLI rule that a context without url means
// the default local server.
func withDefaultURL(c Settings, err error) (Settings, error) {
	if err == nil && c.Servers == "" {
		c.Servers = nats.DefaultURL
	}
	return c, err
}

// overlay puts the explicit fields of top over base.
func overlay(base, top Settings) Settings {
	out := base
	if top.Servers != "" {
		out.Servers = top.Servers
	}
	if top.hasAuth() {
		out.User, out.Password, out.Token = top.User, top.Password, top.Token
		out.Creds, out.NKey = top.Creds, top.NKey
		out.JWT, out.Seed = top.JWT, top.Seed
	}
	// Only the flags say these: a nats context's own are not read (see contextFile).
	out.ConnectionName, out.SocksProxy, out.NoContext, out.JS = top.ConnectionName, top.SocksProxy, top.NoContext, top.JS
	if top.TLSCert != "" {
		out.TLSCert = top.TLSCert
	}
	if top.TLSKey != "" {
		out.TLSKey = top.TLSKey
	}
	if top.TLSCA != "" {
		out.TLSCA = top.TLSCA
	}
	out.TLSFirst = base.TLSFirst || top.TLSFirst
	out.TLSInsecure = base.TLSInsecure || top.TLSInsecure
	if top.ConnectTimeout != 0 {
		out.ConnectTimeout = top.ConnectTimeout
	}
	return out
}
