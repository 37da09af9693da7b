package connect

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"
)

// silent accepts and never writes, like a firewall that completes the TCP
// handshake or a service waiting for the client to speak first.
func silent(c net.Conn) {}

// httpServer answers like a web server would to a stray client.
func httpServer(c net.Conn) {
	_, _ = c.Write([]byte("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"))
}

// closer hangs up at once, like a proxy with no backend.
func closer(c net.Conn) { c.Close() }

func TestConnectFailuresAreBounded(t *testing.T) {
	const budget = 500 * time.Millisecond
	refused := refusedAddr(t)
	quiet := listener(t, silent)
	web := listener(t, httpServer)
	hangup := listener(t, closer)

	hole := blackhole(t)

	tests := []struct {
		name    string
		servers string
		has     []string
		minTime time.Duration // proves the budget, not an instant error, ended it
	}{
		{"dial that hangs", "nats://" + hole, []string{hole, "timed out after 500ms opening the TCP connection"}, budget - 50*time.Millisecond},
		{"refused port", "nats://" + refused, []string{refused, "connection refused"}, 0},
		{"silent port", "nats://" + quiet, []string{quiet, "no NATS handshake within 500ms", "not a NATS server"}, budget - 50*time.Millisecond},
		{"HTTP port", "nats://" + web, []string{web, "not a NATS server: the port answered"}, 0},
		{"port that hangs up", "nats://" + hangup, []string{hangup, "connection closed by the server"}, 0},
		// TEST-NET-1 is never routed: either the dial times out or the
		// sandbox says unreachable at once. Both must be bounded.
		{"unreachable host", "nats://192.0.2.1:4222", []string{"nats://192.0.2.1:4222"}, 0},
		{"every server is reported", "nats://" + refused + ",nats://" + quiet,
			[]string{refused + ": connection refused", quiet + ": no NATS handshake within 500ms"}, budget - 50*time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			nc, err := Connect(context.Background(), Settings{Servers: tt.servers, ConnectTimeout: budget}, "t")
			elapsed := time.Since(start)
			if err == nil {
				nc.Close()
				t.Fatal("connected to something that is not a NATS server")
			}
			if elapsed > 3*time.Second || elapsed < tt.minTime {
				t.Errorf("took %v, want between %v and 3s", elapsed, tt.minTime)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "connect to ") || strings.Contains(msg, "\n") {
				t.Errorf("error %q is not one line starting with \"connect to \"", msg)
			}
			for _, h := range tt.has {
				if !strings.Contains(msg, h) {
					t.Errorf("error %q lacks %q", msg, h)
				}
			}
		})
	}
}

func TestConnectTimeoutUnwraps(t *testing.T) {
	quiet := listener(t, silent)
	_, err := Connect(context.Background(), Settings{Servers: quiet, ConnectTimeout: 200 * time.Millisecond}, "t")
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("timeout error %v does not unwrap to context.DeadlineExceeded", err)
	}
	var ne net.Error
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("timeout error %v is not a net.Error with Timeout()", err)
	}
}

func TestConnectHonoursCtx(t *testing.T) {
	quiet := listener(t, silent)
	s := Settings{Servers: quiet, ConnectTimeout: 10 * time.Second}

	t.Run("cancelled while waiting for the handshake", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		_, err := Connect(ctx, s, "t")
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("cancel took %v to take effect", elapsed)
		}
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "canceled") {
			t.Errorf("want a cancellation error, got %v", err)
		}
	})
	t.Run("cancelled while dialing", func(t *testing.T) {
		hole := blackhole(t)
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(100*time.Millisecond, cancel)
		start := time.Now()
		_, err := Connect(ctx, Settings{Servers: hole, ConnectTimeout: 10 * time.Second}, "t")
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("cancel took %v to take effect", elapsed)
		}
		if !errors.Is(err, context.Canceled) || !strings.HasSuffix(err.Error(), hole+": canceled") {
			t.Errorf("want a cancellation error, got %v", err)
		}
	})
	t.Run("already cancelled", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, err := Connect(ctx, s, "t")
		if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), quiet) {
			t.Errorf("want a cancellation error naming the server, got %v", err)
		}
	})
	t.Run("caller deadline shorter than the budget", func(t *testing.T) {
		ctx, cancel := context.WithTimeout(context.Background(), 150*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := Connect(ctx, s, "t")
		if elapsed := time.Since(start); elapsed > 2*time.Second {
			t.Errorf("deadline took %v to take effect", elapsed)
		}
		if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "caller's deadline") {
			t.Errorf("want the caller's deadline error, got %v", err)
		}
	})
}
