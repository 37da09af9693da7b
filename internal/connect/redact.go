package connect

import "strings"

// redactedMark replaces every secret in printable output.
const redactedMark = "[redacted]"

// Redacted returns a copy safe to print or save: password and token become
// "[redacted]" when set, and the userinfo of every server URL (user:password@
// or token@) becomes "[redacted]@". Paths to creds, nkey and TLS files are
// not secrets and stay, so a result file still says how the run connected.
func (s Settings) Redacted() Settings {
	if s.Password != "" {
		s.Password = redactedMark
	}
	if s.Token != "" {
		s.Token = redactedMark
	}
	s.Servers = redactServers(s.Servers)
	s.SocksProxy = redactURL(s.SocksProxy)
	return s
}

// redactServers redacts each entry of a comma-separated server list, leaving
// the separators and spacing alone.
func redactServers(list string) string {
	if !strings.Contains(list, "@") {
		return list
	}
	parts := strings.Split(list, ",")
	for i, p := range parts {
		parts[i] = redactURL(p)
	}
	return strings.Join(parts, ",")
}

// RedactURL hides the userinfo of one URL: user, user:password or token alike. nats.go's
// ConnectedUrlRedacted keeps a token (a URL user without a password), so every URL a
// Result or message shows goes through this.
func RedactURL(raw string) string { return redactURL(raw) }

// redactURL hides the userinfo of one URL. It works on the raw string rather
// than url.Parse because the URLs that most need it in error messages are the
// ones that do not parse. Everything before the last '@' after the scheme is
// userinfo: NATS URLs have no path that could hold an '@', and a password
// with an unescaped '/' or '#' must still be hidden.
func redactURL(raw string) string {
	prefix, rest := "", raw
	if i := strings.Index(raw, "://"); i >= 0 {
		prefix, rest = raw[:i+3], raw[i+3:]
	}
	at := strings.LastIndex(rest, "@")
	if at < 0 {
		return raw
	}
	return prefix + redactedMark + rest[at:]
}
