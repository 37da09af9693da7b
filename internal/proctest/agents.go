package proctest

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/coord"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/rustbin"
)

// StartRustAgents starts n natsperf-rust agents (bin) on the server at url, labelled label
// ("k=v"), each stopped when the test ends.
func StartRustAgents(t testing.TB, bin, url, label string, n int) {
	t.Helper()
	for range n {
		a, err := rustbin.StartAgent(bin, connect.Settings{Servers: url}, label)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Stop)
	}
}

// WaitForAgents waits (30 s at most) until n agents answer discovery on nc and returns them.
func WaitForAgents(t testing.TB, nc *nats.Conn, n int) []coord.Agent {
	t.Helper()
	var found []coord.Agent
	natstest.WaitFor(t, 30*time.Second, "the agents' INFO", func() bool {
		var err error
		found, err = coord.Discover(context.Background(), nc, 300*time.Millisecond)
		return err == nil && len(found) == n
	})
	return found
}
