//go:build unix

package cli

import (
	"context"
	"io"
	"net"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// delayRelay forwards 127.0.0.1 connections to target and hands every chunk the server sends
// to the client delay after it arrived (in order, without slowing the stream): a server whose
// round trip is known to be at least delay.
func delayRelay(t *testing.T, target string, delay time.Duration) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", target)
			if err != nil {
				c.Close()
				continue
			}
			go func() { _, _ = io.Copy(s, c); s.Close() }()
			type chunk struct {
				due time.Time
				b   []byte
			}
			q := make(chan chunk, 1024)
			go func() {
				defer close(q)
				for {
					b := make([]byte, 32<<10)
					n, err := s.Read(b)
					if n > 0 {
						q <- chunk{time.Now().Add(delay), b[:n]}
					}
					if err != nil {
						return
					}
				}
			}()
			go func() {
				defer c.Close()
				for ch := range q {
					time.Sleep(time.Until(ch.due))
					if _, err := c.Write(ch.b); err != nil {
						return
					}
				}
			}()
		}
	}()
	return l.Addr().String()
}

// TestRustLatencyReport: latency --client rust prints latency's own report, line for line in
// the shape the Go client's run prints (checkShape), not nats bench's stats; and its server
// round trips are true: through a relay that holds back every server write 20 ms, each is at
// least 20 ms (async-nats' flush, which natsperf-rust timed before, waits for no PONG and
// read a few µs).
func TestRustLatencyReport(t *testing.T) {
	bin := rustBinary(t)
	s := startServer(t, nil)
	const delay = 20 * time.Millisecond
	url := "nats://" + delayRelay(t, s.Addr().String(), delay)
	code, out, errs := latRun(context.Background(), "latency", "-s", url, "--client", "rust", "--client-bin", bin,
		"--rate", "500", "--duration", "1s", "--size", "24")
	if code != 0 {
		t.Fatalf("exit %d: %s\n%s", code, errs, out)
	}
	checkShape(t, out)
	for _, m := range regexp.MustCompile(`(?m)^(Pub|Sub) Server RTT : (\S+)$`).FindAllStringSubmatch(out, -1) {
		if d, err := time.ParseDuration(m[2]); err != nil || d < delay {
			t.Errorf("%s server RTT %s, want at least the relay's %v", m[1], m[2], delay)
		}
	}
}

// TestRustSizeAboveMaxPayloadRefusedUpFront: --client rust refuses a --size the server will
// not take before it starts natsperf-rust, as the Go client does.
func TestRustSizeAboveMaxPayloadRefusedUpFront(t *testing.T) {
	bin := rustBinary(t)
	s := startServer(t, func(o *server.Options) { o.MaxPayload = 4096 })
	r := run(context.Background(), t, nil, "pub", "big", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin, "--size", "8KB", "--msgs", "10")
	if r.code != exitUsage || !strings.Contains(r.err, "larger than the server's max_payload (4.0 KiB)") || strings.Contains(r.out, "Starting") {
		t.Fatalf("exit %d, stdout %q, stderr %q; want exit 2 naming max_payload before any start", r.code, r.out, r.err)
	}
}
