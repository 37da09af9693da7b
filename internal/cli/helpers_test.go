package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/result"
)

// startServer runs an embedded nats-server for one test, configured by opts (may be nil).
func startServer(t *testing.T, configure func(*server.Options)) *server.Server {
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

// cliRun is one in-process natsperf invocation.
type cliRun struct {
	code     int
	out, err string
}

// run calls the CLI in-process with buffers and an empty environment (no NATS_URL, no
// contexts), so the developer's own settings never leak into a test.
func run(ctx context.Context, t *testing.T, env map[string]string, args ...string) cliRun {
	t.Helper()
	var out, errb syncBuffer
	home := t.TempDir()
	code := Run(ctx, args, Streams{
		Out: &out, Err: &errb,
		Env: connect.Env{Getenv: func(k string) string { return env[k] }, Home: home},
	})
	return cliRun{code: code, out: out.String(), err: errb.String()}
}

// runJSON runs with --json and decodes the Result.
func runJSON(ctx context.Context, t *testing.T, args ...string) (*result.Result, cliRun) {
	t.Helper()
	r := run(ctx, t, nil, append(args, "--json")...)
	res, err := result.Read(strings.NewReader(r.out))
	if err != nil {
		t.Fatalf("natsperf %s: exit %d, stderr %q: %v", strings.Join(args, " "), r.code, r.err, err)
	}
	return res, r
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of log lines and bars.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func group(t *testing.T, res *result.Result, name string) result.Group {
	t.Helper()
	for _, g := range res.Groups {
		if g.Name == name {
			return g
		}
	}
	t.Fatalf("no group %q in result (have %d groups)", name, len(res.Groups))
	return result.Group{}
}

func clientMsgs(g result.Group) []int64 {
	out := make([]int64, len(g.Clients))
	for i, c := range g.Clients {
		out[i] = c.Msgs
	}
	return out
}

func decodeSettings(t *testing.T, res *result.Result) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(res.Settings, &m); err != nil {
		t.Fatalf("settings: %v", err)
	}
	return m
}

func envWithHome(home string) connect.Env {
	return connect.Env{Getenv: func(string) string { return "" }, Home: home}
}
