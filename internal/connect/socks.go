package connect

import (
	"context"
	"fmt"
	"net"
	"net/url"

	"golang.org/x/net/proxy"
)

// checkSocks refuses a --socks-proxy that is not a SOCKS5 URL, naming the flag (never the
// URL's password).
func (s Settings) checkSocks() error {
	if s.SocksProxy == "" {
		return nil
	}
	u, err := url.Parse(s.SocksProxy)
	if err != nil || (u.Scheme != "socks5" && u.Scheme != "socks5h") || u.Host == "" {
		return fmt.Errorf("%s %s: want socks5://[user:password@]host:port", flagSocks, redactURL(s.SocksProxy))
	}
	return nil
}

// dialVia connects through the SOCKS5 proxy (golang.org/x/net/proxy, as the nats CLI does),
// bounded by ctx like a direct dial; with no proxy it dials directly.
func dialVia(ctx context.Context, socks, network, addr string) (net.Conn, error) {
	direct := &net.Dialer{}
	if socks == "" {
		return direct.DialContext(ctx, network, addr)
	}
	u, err := url.Parse(socks)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flagSocks, err)
	}
	d, err := proxy.FromURL(u, direct)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", flagSocks, err)
	}
	if cd, ok := d.(proxy.ContextDialer); ok {
		return cd.DialContext(ctx, network, addr)
	}
	return d.Dial(network, addr)
}
