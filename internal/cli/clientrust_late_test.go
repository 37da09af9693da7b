package cli

import (
	"strconv"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

// TestClientRustSendLatenessAndCPU: paced senders run through natsperf-rust (its agent, the
// Result merged by natsperf's coordinator) record the generator's check as the Go engine's
// do: a send lateness per message sent (service requests counted by a responder written here
// with nats.go; JetStream publishes by the stream's state), and the CPU of natsperf-rust's
// process over the run.
func TestClientRustSendLatenessAndCPU(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	check := func(t *testing.T, res *result.Result, sent int64) {
		t.Helper()
		checkRustClients(t, res)
		g := res.Groups[0]
		if res.Stop.Reason != result.StopCompleted || g.Aggregate.Msgs != sent {
			t.Fatalf("stop %q, %d counted: want completed, %d", res.Stop.Reason, g.Aggregate.Msgs, sent)
		}
		if l := g.Aggregate.SendLateness; l == nil || l.Count != sent || l.Histogram == "" {
			t.Fatalf("send lateness %+v: want a histogram of the %d messages sent", l, sent)
		}
		for _, c := range g.Clients {
			if c.SendLateness == nil || c.SendLateness.Count != c.Msgs {
				t.Fatalf("client %d: %d sent, send lateness %+v", c.ID, c.Msgs, c.SendLateness)
			}
		}
		if c := res.CPU; c == nil || c.Seconds <= 0 || c.CoreShare <= 0 || c.Cores < 1 || c.Msgs < sent {
			t.Fatalf("cpu %+v: want natsperf-rust's seconds and share > 0 over at least the %d messages", c, sent)
		}
	}

	t.Run("service request", func(t *testing.T) {
		nc, err := nats.Connect(s.ClientURL())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		var answered atomic.Int64
		if _, err := nc.Subscribe("svc.late", func(m *nats.Msg) {
			if m.Respond(m.Data) == nil {
				answered.Add(1)
			}
		}); err != nil {
			t.Fatal(err)
		}
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
		const n = 300
		res := rustRun(t, "service", "request", "svc.late", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin,
			"--clients", "3", "--msgs", strconv.Itoa(n), "--rate", "300", "--size", "32")
		if answered.Load() != n {
			t.Fatalf("the responder answered %d requests, want %d", answered.Load(), n)
		}
		check(t, res, n)
	})
	t.Run("js pub async", func(t *testing.T) {
		const n = 400
		res := rustRun(t, "js", "pub", "async", "jsc.late", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin,
			"--stream", "RUSTLATE", "--storage", "memory", "--msgs", strconv.Itoa(n), "--clients", "2", "--batch", "20", "--rate", "400", "--size", "32")
		if held := madeStream(t, s.ClientURL(), "RUSTLATE").State.Msgs; held != n {
			t.Fatalf("the stream holds %d, want %d", held, n)
		}
		check(t, res, n)
	})
}
