package cli

import (
	"context"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

func TestBadInput(t *testing.T) {
	s := startServer(t, nil)
	url := s.ClientURL()
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"unknown flag", []string{"pub", "foo", "--bogus"}, exitUsage, "unknown flag: --bogus"},
		{"bad size", []string{"pub", "foo", "--size", "16kq", "-s", url}, exitUsage, `invalid argument "16kq" for "--size"`},
		{"bad count", []string{"pub", "foo", "--msgs", "ten", "-s", url}, exitUsage, `"--msgs"`},
		{"no subject", []string{"pub", "-s", url}, exitUsage, "one SUBJECT"},
		{"zero clients", []string{"pub", "foo", "--clients", "0", "-s", url}, exitUsage, "--clients"},
		{"huge size", []string{"pub", "foo", "--size", "1gb", "-s", url}, exitUsage, "--size"},
		{"unknown command", []string{"frobnicate"}, exitUsage, "unknown command"},
		{"malformed URL", []string{"pub", "foo", "-s", "nats://:::"}, exitUsage, ""},
		{"missing creds file", []string{"pub", "foo", "-s", url, "--creds", "/nonexistent/x.creds"}, exitUsage, "--creds"},
		{"missing TLS CA", []string{"pub", "foo", "-s", url, "--tlsca", "/nonexistent/ca.pem"}, exitUsage, "--tlsca"},
		{"pubsub without subscribers", []string{"pubsub", "foo", "--sub", "0", "-s", url}, exitUsage, "--sub"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(context.Background(), t, nil, tt.args...)
			if r.code != tt.code {
				t.Fatalf("exit %d, want %d (stderr %q)", r.code, tt.code, r.err)
			}
			lines := strings.Split(strings.TrimSpace(r.err), "\n")
			if len(lines) != 1 || !strings.HasPrefix(lines[0], "natsperf: ") || !strings.Contains(lines[0], tt.want) {
				t.Fatalf("want one error line containing %q, got %q", tt.want, r.err)
			}
			if strings.Contains(r.err, "goroutine") || strings.Contains(r.err, "panic") {
				t.Fatalf("stack trace in output: %s", r.err)
			}
		})
	}
}

func TestUnreachableServers(t *testing.T) {
	refused := freePort(t)
	silent, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer silent.Close()
	go func() {
		for {
			c, err := silent.Accept()
			if err != nil {
				return
			}
			defer c.Close() // accept and never speak NATS
		}
	}()
	tests := []struct{ name, url, want string }{
		{"nothing listening", "nats://" + refused, "refused"},
		{"not a NATS server", "nats://" + silent.Addr().String(), "handshake"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			r := run(context.Background(), t, nil, "pub", "foo", "-s", tt.url, "--connect-timeout", "500ms")
			if r.code != exitFailed || !strings.Contains(r.err, tt.want) {
				t.Fatalf("exit %d stderr %q", r.code, r.err)
			}
			if took := time.Since(start); took > 3*time.Second {
				t.Fatalf("took %v with a 500ms connect timeout", took)
			}
		})
	}
}

func freePort(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	return addr
}

func TestIdleTimeoutReportsMissing(t *testing.T) {
	s := startServer(t, nil)
	done := make(chan *result.Result, 1)
	go func() {
		res, _ := runJSON(context.Background(), t, "sub", "idle", "-s", s.ClientURL(), "--msgs", "1000", "--idle-timeout", "300ms")
		done <- res
	}()
	waitForSubs(t, s, "idle", 1)
	if r := run(context.Background(), t, nil, "pub", "idle", "-s", s.ClientURL(), "--msgs", "600"); r.code != 0 {
		t.Fatalf("pub exit %d", r.code)
	}
	select {
	case res := <-done:
		g := group(t, res, "sub")
		// The 400 were never sent: not received, not lost.
		if c := g.Aggregate.Correctness; res.Stop.Reason != result.StopIdle || g.Aggregate.Msgs != 600 || c.Lost != 0 || c.NotReceived != 400 || c.HighestSeqMax != 600 {
			t.Fatalf("stop %+v, msgs %d, correctness %+v", res.Stop, g.Aggregate.Msgs, g.Aggregate.Correctness)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("subscriber did not end after its idle timeout")
	}
}

// TestSubThatReceivedNothingFails: a subscriber nothing was published to ends by its idle
// timeout with none of what it expected: exit 1, and a line that says so (it used to exit 0).
func TestSubThatReceivedNothingFails(t *testing.T) {
	s := startServer(t, nil)
	r := run(context.Background(), t, nil, "sub", "nobody", "-s", s.ClientURL(), "--msgs", "1000", "--idle-timeout", "300ms", "--no-progress")
	if r.code != exitFailed || !strings.Contains(r.err, "received none of the 1,000 messages it expected") {
		t.Fatalf("exit %d, stderr %q; want exit 1 saying nothing was received", r.code, r.err)
	}
}

func TestInterruptKeepsPartialResult(t *testing.T) {
	s := startServer(t, nil)
	file := filepath.Join(t.TempDir(), "partial.json")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(700*time.Millisecond, cancel) // Ctrl-C
	start := time.Now()
	r := run(ctx, t, nil, "pub", "int", "-s", s.ClientURL(), "--rate", "1000", "--msgs", "100000", "-o", file)
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("interrupt took %v to end the run", took)
	}
	if r.code != exitInterrupted || !strings.Contains(r.out, "interrupted") {
		t.Fatalf("exit %d out %q", r.code, r.out)
	}
	res, err := result.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sent := res.Groups[0].Aggregate.Msgs
	if res.Stop.Reason != result.StopInterrupted || sent < 100 || sent >= 100000 {
		t.Fatalf("stop %+v after %d msgs", res.Stop, sent)
	}
}

func TestServerDiesMidRun(t *testing.T) {
	for _, side := range []string{"publisher", "subscriber", "requester"} {
		t.Run(side, func(t *testing.T) {
			s := startServer(t, nil)
			file := filepath.Join(t.TempDir(), "died.json")
			args := []string{"pub", "die", "-s", s.ClientURL(), "--rate", "2000", "--msgs", "1000000", "--connect-timeout", "1s", "-o", file}
			if side == "requester" { // its replies come on a subscription of its own: a lost connection must still end it
				args = []string{"service", "request", "die", "-s", s.ClientURL(), "--rate", "2000", "--msgs", "1000000", "--connect-timeout", "1s", "-o", file}
				served := make(chan struct{})
				go func() {
					defer close(served)
					_ = run(context.Background(), t, nil, "service", "serve", "die", "-s", s.ClientURL(), "--connect-timeout", "1s")
				}()
				defer func() { <-served }() // it ends with the server too
				waitForSubs(t, s, "die", 1)
			}
			if side == "subscriber" {
				args = []string{"sub", "die", "-s", s.ClientURL(), "--msgs", "1000000", "--connect-timeout", "1s", "-o", file}
				go func() {
					waitForSubs(t, s, "die", 1)
					_ = run(context.Background(), t, nil, "pub", "die", "-s", s.ClientURL(), "--rate", "2000", "--duration", "10s", "--connect-timeout", "1s")
				}()
			}
			time.AfterFunc(800*time.Millisecond, s.Shutdown)
			start := time.Now()
			r := run(context.Background(), t, nil, args...)
			if took := time.Since(start); took > 6*time.Second {
				t.Fatalf("run took %v after the server died", took)
			}
			if r.code != exitFailed {
				t.Fatalf("exit %d, out %q err %q", r.code, r.out, r.err)
			}
			res, err := result.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if res.Stop.Reason != result.StopFailed || !strings.Contains(res.Stop.Error, "connection") || res.Groups[0].Aggregate.Msgs == 0 {
				t.Fatalf("stop %+v, msgs %d", res.Stop, res.Groups[0].Aggregate.Msgs)
			}
		})
	}
}

func TestEmbeddedDefault(t *testing.T) {
	r := run(context.Background(), t, nil, "pub", "emb", "--msgs", "2000", "--size", "16")
	if r.code != 0 || !strings.Contains(r.err, "No server given") || !strings.Contains(r.out, "NATS Core NATS publisher stats:") {
		t.Fatalf("exit %d\nout %s\nerr %s", r.code, r.out, r.err)
	}
}
