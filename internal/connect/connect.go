package connect

import (
	"context"
	"net"
	"strings"

	"github.com/nats-io/nats.go"
)

// Connect dials the servers of s with connection name name and the extra
// options appended last (they may override anything set here).
//
// Each server attempt, TCP dial plus TLS plus NATS handshake, gets
// ConnectTimeout (DefaultConnectTimeout when unset); with several servers
// they are tried once each, in nats.go's order. ctx cancels the attempt in
// progress. A failed initial connect is never retried in the background.
// Errors are one line, name the server and the reason, wrap the underlying
// errors and never contain secrets.
func Connect(ctx context.Context, s Settings, name string, extra ...nats.Option) (*nats.Conn, error) {
	urls, err := s.URLs()
	if err != nil {
		return nil, err
	}
	opts, err := s.Options()
	if err != nil {
		return nil, err
	}
	servers := strings.Join(urls, ",")
	shown := redactServers(servers)
	if err := ctx.Err(); err != nil {
		return nil, describe(shown, nil, err)
	}

	d := newDialer(ctx, s.timeout())
	opts = append(opts,
		nats.Name(name),
		nats.RetryOnFailedConnect(false),
		nats.SetCustomDialer(d),
		// Let our ctx-aware dialer resolve names: nats.go's own lookup
		// cannot be interrupted and is not bounded by the timeout.
		nats.SkipHostLookup(),
	)
	opts = append(opts, extra...)

	nc, err := nats.Connect(servers, opts...)
	attempts := d.finish()
	if err == nil {
		if last := lastOf(attempts); last == nil || !last.fired {
			return nc, nil
		}
		// The budget ran out just as the handshake completed and the
		// socket is already closed: report the timeout, not a dead conn.
		nc.Close()
		err = net.ErrClosed
	}
	return nil, describe(shown, attempts, err)
}

func lastOf(attempts []*attempt) *attempt {
	if len(attempts) == 0 {
		return nil
	}
	return attempts[len(attempts)-1]
}
