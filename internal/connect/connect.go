package connect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync/atomic"

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
//
// At most handshakeSlots connects of the process are in progress at once; the others wait
// for a slot (bounded by ctx alone), and each one's timeout starts when it has its slot. A
// server flooded with thousands of simultaneous connects answers some of them after any
// reasonable timeout, while a few dozen at a time keep every handshake short.
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

	waiting.Add(1)
	select {
	case handshakes <- struct{}{}:
		waiting.Add(-1)
	case <-ctx.Done():
		waiting.Add(-1)
		return nil, describe(shown, nil, ctx.Err())
	}
	defer func() { <-handshakes }()

	d := newDialer(ctx, s.timeout(), s.SocksProxy)
	if s.ConnectionName != "" {
		name = s.ConnectionName // as the nats CLI names its connections
	}
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
	if queued := waiting.Load(); queued > 0 && overloadSymptom(err, attempts) {
		return nil, fmt.Errorf("%w (%d more connections of this process were waiting to connect: the server may be too busy with connects; try fewer --clients or a longer --connect-timeout)",
			describe(shown, attempts, err), queued)
	}
	return nil, describe(shown, attempts, err)
}

// overloadSymptom reports whether a failed connect looks like a server too busy to answer
// (a handshake that timed out, or was cut or garbled), rather than a wrong address or
// credentials.
func overloadSymptom(err error, attempts []*attempt) bool {
	last := lastOf(attempts)
	if last == nil || last.dialErr != nil && !isTimeout(last.dialErr) {
		return false // refused, unreachable, or not dialed at all
	}
	return last.fired || isTimeout(err) || errors.Is(err, nats.ErrNoInfoReceived) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed) ||
		(err != nil && strings.Contains(err.Error(), "expected 'PONG'"))
}

// handshakeSlots is how many connects of the process may be in progress at once. On
// loopback a handshake takes well under a millisecond, so 64 at a time opens 10,000
// connections in seconds; 10,000 at once left some waiting beyond 5s on a busy 2-core host.
const handshakeSlots = 64

var (
	handshakes = make(chan struct{}, handshakeSlots)
	waiting    atomic.Int64 // connects waiting for a slot, for the error of one that fails
)

func lastOf(attempts []*attempt) *attempt {
	if len(attempts) == 0 {
		return nil
	}
	return attempts[len(attempts)-1]
}
