package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/agent"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/version"
	"github.com/natsperf/natsperf/result"
)

// startServer runs an embedded nats-server for one test, configured by configure (may be nil).
func startServer(t *testing.T, configure func(*server.Options)) *server.Server {
	return natstest.Server(t, configure)
}

// startGoAgent runs a natsperf agent in this process, as `natsperf agent` runs one: listening
// on control, its clients connecting to target, until the test ends.
func startGoAgent(t *testing.T, name, control, target string) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	a, err := agent.Start(ctx, agent.Config{
		Control: connect.Settings{Servers: control}, Target: connect.Settings{Servers: target},
		Name: name, Version: version.String(),
	})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); a.Close() })
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
	code := Main(ctx, args, Streams{
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

type syncBuffer = natstest.Buffer

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
