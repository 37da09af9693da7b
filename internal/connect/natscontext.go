package connect

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// contextFile is the part of a nats CLI context (jsm.go natscontext) that
// natsperf understands. Unknown fields are ignored.
type contextFile struct {
	URL      string `json:"url"`
	User     string `json:"user"`
	Password string `json:"password"`
	Token    string `json:"token"`
	Creds    string `json:"creds"`
	NKey     string `json:"nkey"`
	Cert     string `json:"cert"`
	Key      string `json:"key"`
	CA       string `json:"ca"`
	TLSFirst bool   `json:"tls_first"`

	// Known but unsupported: silently ignoring them would turn into a
	// puzzling authorization error later.
	NSC        string `json:"nsc"`
	UserJWT    string `json:"user_jwt"`
	SocksProxy string `json:"socks_proxy"`
}

// isSecretRef reports values such as env://VAR or op://vault/item, which
// newer nats CLIs resolve through secret stores; natsperf does not.
func isSecretRef(v string) bool {
	scheme, _, ok := strings.Cut(v, "://")
	if !ok || scheme == "" {
		return false
	}
	for i, r := range scheme {
		letter := (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || !strings.ContainsRune("0123456789+.-", r)) {
			return false
		}
	}
	return true
}

// validContextName mirrors the nats CLI: a name must not escape the context
// directory.
func validContextName(name string) bool {
	return name != "" && !strings.Contains(name, "..") &&
		!strings.ContainsAny(name, `/\`) && !strings.ContainsRune(name, os.PathSeparator)
}

// selectedContext returns the name stored in <config>/nats/context.txt, ""
// when there is none.
func selectedContext(configDir string) (name, file string, err error) {
	file = filepath.Join(configDir, "nats", "context.txt")
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return "", file, nil
	}
	if err != nil {
		return "", file, fmt.Errorf("read selected nats context: %w", err)
	}
	return strings.TrimSpace(string(b)), file, nil
}

// loadContext reads context name from configDir. label prefixes every error
// ("--context NAME" or where a selected context came from).
func loadContext(env Env, configDir, name, label string) (Settings, error) {
	if !validContextName(name) {
		return Settings{}, fmt.Errorf("%s: invalid context name (must not contain path separators or \"..\")", label)
	}
	if configDir == "" {
		return Settings{}, fmt.Errorf("%s: cannot locate the nats config directory (set HOME or XDG_CONFIG_HOME)", label)
	}
	file := filepath.Join(configDir, "nats", "context", name+".json")
	b, err := os.ReadFile(file)
	if errors.Is(err, fs.ErrNotExist) {
		return Settings{}, fmt.Errorf("%s: no such context (looked in %s)", label, file)
	}
	if err != nil {
		return Settings{}, fmt.Errorf("%s: %w", label, err)
	}
	var cf contextFile
	if err := json.Unmarshal(b, &cf); err != nil {
		return Settings{}, fmt.Errorf("%s: parse %s: %w", label, file, err)
	}
	if err := cf.check(); err != nil {
		return Settings{}, fmt.Errorf("%s: %s: %w", label, file, err)
	}
	return Settings{
		Servers:  cf.URL,
		Context:  name,
		User:     cf.User,
		Password: cf.Password,
		Token:    cf.Token,
		Creds:    expandPath(env, cf.Creds),
		NKey:     expandPath(env, cf.NKey),
		TLSCert:  expandPath(env, cf.Cert),
		TLSKey:   expandPath(env, cf.Key),
		TLSCA:    expandPath(env, cf.CA),
		TLSFirst: cf.TLSFirst,
	}, nil
}

// check rejects context features natsperf cannot honour. Values are never
// echoed: some are secrets.
func (cf contextFile) check() error {
	unsupported := []struct{ field, value string }{
		{"nsc", cf.NSC}, {"user_jwt", cf.UserJWT}, {"socks_proxy", cf.SocksProxy},
	}
	for _, u := range unsupported {
		if u.value != "" {
			return fmt.Errorf("field %q is not supported by natsperf", u.field)
		}
	}
	refs := []struct{ field, value string }{
		{"password", cf.Password}, {"token", cf.Token}, {"creds", cf.Creds},
		{"nkey", cf.NKey}, {"cert", cf.Cert}, {"key", cf.Key}, {"ca", cf.CA},
	}
	for _, r := range refs {
		if isSecretRef(r.value) {
			return fmt.Errorf("field %q is a secret-store reference, which natsperf does not resolve", r.field)
		}
	}
	return nil
}

// expandPath expands a leading ~ and $VARS like the nats CLI does for paths
// stored in contexts (a shell does it for flags).
func expandPath(env Env, p string) string {
	if p == "" {
		return ""
	}
	if env.Home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		p = filepath.Join(env.Home, p[1:])
	}
	return os.Expand(p, env.get)
}
