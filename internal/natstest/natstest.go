// Package natstest is what natsperf's tests share: a real embedded nats-server per test, the
// way nats-server's own tests start one, and a buffer safe for a CLI's concurrent writers.
// Only _test.go files import it.
package natstest

import (
	"bytes"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// Server runs a nats-server with JetStream (small limits, its own store) on a free loopback
// port for one test; configure may change the options first. Shut down at the test's end.
func Server(t testing.TB, configure func(*server.Options)) *server.Server {
	t.Helper()
	opts := &server.Options{
		Host: "127.0.0.1", Port: -1, NoSigs: true, NoLog: true,
		JetStream: true, StoreDir: t.TempDir(),
		JetStreamMaxMemory: 64 << 20, JetStreamMaxStore: 256 << 20,
	}
	if configure != nil {
		configure(opts)
	}
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatalf("new server: %v", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s
}

// Buffer is a bytes.Buffer safe for concurrent writes (log lines, progress, results).
type Buffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *Buffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *Buffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
