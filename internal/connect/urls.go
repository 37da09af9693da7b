package connect

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"strings"
)

// defaultPort is the port nats.go assumes for a scheme; ok is false for
// schemes natsperf does not accept.
func defaultPort(scheme string) (port string, ok bool) {
	switch scheme {
	case "nats", "tls":
		return "4222", true
	case "ws":
		return "80", true
	case "wss":
		return "443", true
	}
	return "", false
}

// URLs returns the server URLs, validated and with the default port filled
// in. A URL without scheme gets nats://, like in the nats CLI. Errors name
// the bad URL with its userinfo redacted.
func (s Settings) URLs() ([]string, error) {
	var out []string
	var ws, plain bool
	for _, raw := range strings.Split(s.Servers, ",") {
		raw = strings.TrimSpace(raw)
		if raw == "" {
			continue
		}
		u, err := parseServerURL(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: invalid server URL %q: %w", flagServer, redactURL(raw), err)
		}
		if u.Scheme == "ws" || u.Scheme == "wss" {
			ws = true
		} else {
			plain = true
		}
		out = append(out, u.String())
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no server URL given", flagServer)
	}
	if ws && plain {
		// nats.go refuses the mix; say so before dialing.
		return nil, fmt.Errorf("%s: cannot mix websocket (ws, wss) and nats/tls URLs in %q", flagServer, redactServers(s.Servers))
	}
	return out, nil
}

// parseServerURL checks one URL. Its errors never quote the URL: the caller
// does, redacted.
func parseServerURL(raw string) (*url.URL, error) {
	if !strings.Contains(raw, "://") {
		raw = "nats://" + raw
	}
	u, err := url.Parse(raw)
	if err != nil {
		// url.Error repeats the whole URL, password included; keep only
		// the reason.
		var ue *url.Error
		if errors.As(err, &ue) {
			return nil, ue.Err
		}
		return nil, errors.New("malformed URL")
	}
	u.Scheme = strings.ToLower(u.Scheme)
	def, ok := defaultPort(u.Scheme)
	if !ok {
		return nil, fmt.Errorf("unsupported scheme %q (use nats, tls, ws or wss)", u.Scheme)
	}
	if u.Opaque != "" || u.Hostname() == "" {
		return nil, errors.New("missing host")
	}
	if (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" {
		return nil, errors.New("a server URL has no path, query or fragment")
	}
	u.Path = ""
	port := u.Port()
	if port == "" {
		u.Host = strings.TrimSuffix(u.Host, ":") + ":" + def
	}
	// What the dialer will do with it: "nats://:::" parses as a URL but names no address.
	if _, _, err := net.SplitHostPort(u.Host); err != nil {
		return nil, errors.New("host is not a valid address (IPv6 addresses go in brackets: [::1]:4222)")
	}
	if port == "" {
		return u, nil
	}
	if n, err := strconv.Atoi(port); err != nil || n < 1 || n > 65535 {
		return nil, fmt.Errorf("invalid port %q", port)
	}
	return u, nil
}
