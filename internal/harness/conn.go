package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/result"
)

// Dialer opens a raw connection to the servers under test with the given extra options.
type Dialer func(ctx context.Context, name string, opts ...nats.Option) (*nats.Conn, error)

// Conn is a client's connection. A connection that drops and is not back within the grace
// period is given up: Lost is closed and Err says why, so no client waits on a dead server.
type Conn struct {
	*nats.Conn
	// JS opens JetStream the way the target says (domain, API prefix, timeout).
	JS       connect.JS
	lost     chan struct{}
	lostOnce sync.Once
	mu       sync.Mutex
	err      error
	timer    *time.Timer
	info     result.Server // as the server described itself when we connected
	closing  atomic.Bool   // set when we close it: what follows is not an event
}

// Lost is closed when the connection is gone for good.
func (c *Conn) Lost() <-chan struct{} { return c.lost }

// Err is why the connection was lost, nil while it is fine.
func (c *Conn) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *Conn) giveUp(err error) {
	c.mu.Lock()
	if c.err == nil {
		c.err = err
	}
	c.mu.Unlock()
	c.lostOnce.Do(func() { close(c.lost) })
}

// dial connects with handlers that count connection events into ev and give up after grace.
// note logs the connection's disconnects and reconnects with their time (connLog).
func dial(ctx context.Context, d Dialer, name string, grace time.Duration, ev *record.Events, note func(kind string)) (*Conn, error) {
	c := &Conn{lost: make(chan struct{})}
	opts := []nats.Option{
		nats.ReconnectWait(100 * time.Millisecond),
		nats.MaxReconnects(-1), // bounded by grace below, not by a count
		nats.DisconnectErrHandler(func(nc *nats.Conn, err error) {
			if c.closing.Load() {
				return
			}
			ev.Disconnects.Add(1)
			note("disconnect")
			if err == nil {
				err = errors.New("disconnected")
			}
			c.mu.Lock()
			if c.timer != nil {
				c.timer.Stop()
			}
			c.timer = time.AfterFunc(grace, func() {
				if !nc.IsConnected() {
					c.giveUp(fmt.Errorf("connection lost (%v) and not back within %v", err, grace))
					nc.Close()
				}
			})
			c.mu.Unlock()
		}),
		nats.ReconnectHandler(func(*nats.Conn) {
			ev.Reconnects.Add(1)
			note("reconnect")
			c.mu.Lock()
			if c.timer != nil {
				c.timer.Stop()
			}
			c.mu.Unlock()
		}),
		nats.ClosedHandler(func(*nats.Conn) {
			c.giveUp(errors.New("connection closed"))
		}),
		nats.ErrorHandler(func(nc *nats.Conn, _ *nats.Subscription, err error) {
			if errors.Is(err, nats.ErrSlowConsumer) {
				ev.SlowConsumers.Add(1)
				return
			}
			if connectionsOwn(nc, err) {
				return // counted as the disconnect it belongs to, not as an operation's error
			}
			ev.Errors.Add(1)
		}),
	}
	nc, err := d(ctx, name, opts...)
	if err != nil {
		return nil, err
	}
	c.Conn = nc
	c.info = serverInfo(nc)
	return c, nil
}

// connectionsOwn reports whether an asynchronous error is the connection's own failure rather
// than an operation's: a reconnect attempt's socket error (nats.go reports "connection reset by
// peer" from a node being killed while reconnecting to it) or any socket error. The disconnect
// that goes with it is counted; counting it among the errors too made a client's errors exceed
// the operations that failed.
func connectionsOwn(nc *nats.Conn, err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || errors.Is(err, io.EOF) || errors.Is(err, syscall.ECONNRESET) ||
		errors.Is(err, syscall.EPIPE) || nc != nil && nc.IsReconnecting()
}

// close closes the connection without reporting it as lost.
func (c *Conn) close() {
	c.closing.Store(true)
	c.mu.Lock()
	if c.err == nil {
		c.err = errClosedByUs
	}
	if c.timer != nil {
		c.timer.Stop()
	}
	c.mu.Unlock()
	c.Conn.Close()
}

var errClosedByUs = errors.New("closed at the end of the run")

// serverInfo reads what the server said about itself, and whether it answers JetStream API
// requests (INFO does not tell a client that).
func serverInfo(nc *nats.Conn) result.Server {
	info := result.Server{
		Name:    nc.ConnectedServerName(),
		ID:      nc.ConnectedServerId(),
		Version: nc.ConnectedServerVersion(),
		Cluster: nc.ConnectedClusterName(),
		URL:     connect.RedactURL(nc.ConnectedUrl()),
	}
	info.JetStream = answersJetStream(nc)
	return info
}

// jsProbes holds, per server id, whether that server answers JetStream API requests: asked
// once per process, not once per connection (a run of 1,000 clients would otherwise make 1,000
// round trips while connecting, and add 1,000 messages each way to the server's counters).
var jsProbes sync.Map // server id -> *jsProbe

type jsProbe struct {
	once sync.Once
	ok   bool
}

func answersJetStream(nc *nats.Conn) bool {
	v, _ := jsProbes.LoadOrStore(nc.ConnectedServerId(), &jsProbe{})
	p := v.(*jsProbe)
	p.once.Do(func() {
		if m, err := nc.Request("$JS.API.INFO", nil, time.Second); err == nil {
			p.ok = !strings.Contains(string(m.Data), `"error"`)
		}
	})
	return p.ok
}

// Explain words an operation's error, preferring why the connection was lost.
func (c *Conn) Explain(op string, err error) error {
	if lost := c.Err(); lost != nil && !errors.Is(lost, errClosedByUs) {
		return fmt.Errorf("%s: %w", op, lost)
	}
	if errors.Is(err, nats.ErrReconnectBufExceeded) {
		return fmt.Errorf("%s: connection lost and the reconnect buffer is full: %w", op, err)
	}
	return fmt.Errorf("%s: %w", op, err)
}
