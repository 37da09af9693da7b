package runner_test

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/rustbin"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// rustBin is natsperf-rust, or the test is skipped saying why.
func rustBin(t *testing.T) string {
	t.Helper()
	bin, err := rustbin.ForTests("..")
	if err != nil {
		t.Skipf("the natsperf-rust path is not tested: %v", err)
	}
	return bin
}

// A Spec whose workload says client rust runs through a natsperf-rust agent that Run starts
// and stops: the same call and the same Result as a run in this process. Its count is what a
// subscriber of this test received, its library async-nats, and the child is gone after.
func TestRunThroughNatsperfRust(t *testing.T) {
	bin := rustBin(t)
	s := natstest.Server(t, nil)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var got atomic.Int64
	sub, err := nc.Subscribe("runner.rust", func(*nats.Msg) { got.Add(1) })
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	const msgs = 5000
	res, err := runner.Run(context.Background(), &spec.Spec{
		Version: spec.Version, Target: spec.Target{Servers: []string{s.ClientURL()}},
		Workloads: []spec.Workload{{Client: "rust", Clients: 2, Pacing: spec.Pacing{Msgs: msgs}, Config: &spec.Pub{Subject: "runner.rust", Size: 32}}},
	}, runner.Options{RustBin: bin})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop.Reason != result.StopCompleted || res.Libraries() != "async-nats" {
		t.Fatalf("stop %+v, libraries %q: want completed on async-nats", res.Stop, res.Libraries())
	}
	natstest.WaitFor(t, 10*time.Second, "the subscriber's messages", func() bool { return got.Load() >= msgs })
	if pub := res.Groups[0].Aggregate.Msgs; pub != msgs || got.Load() != msgs {
		t.Fatalf("the Result says %d published, a subscriber of the server got %d, want %d", pub, got.Load(), msgs)
	}
	if res.Distributed == nil || len(res.Distributed.Agents) != 1 {
		t.Fatalf("distributed %+v: want the one natsperf-rust agent started for the run", res.Distributed)
	}
	// The agent Run started is stopped: it no longer answers on the server.
	natstest.WaitFor(t, 15*time.Second, "the natsperf-rust agent to unregister", func() bool {
		_, err := nc.Request("$SRV.PING.natsperf-agent", nil, 300*time.Millisecond)
		return errors.Is(err, nats.ErrNoResponders)
	})
}

// The Spec's setup is made once, here, before the natsperf-rust agent runs: the stream is
// recreated (a message left in it from before is gone) and holds exactly what was published.
func TestRunThroughNatsperfRustSetsUpOnce(t *testing.T) {
	bin := rustBin(t)
	s := natstest.Server(t, nil)
	const msgs = 500
	limit := spec.Size(8 << 20) // within the test server's JetStream memory
	sp := &spec.Spec{
		Version: spec.Version, Target: spec.Target{Servers: []string{s.ClientURL()}},
		Setup: spec.Setup{Streams: []spec.Stream{{Name: "RUNNERRUST", Subjects: []string{"runner.js.>"}, Storage: "memory", MaxBytes: &limit, Create: true, Recreate: true}}},
		Workloads: []spec.Workload{{Client: "rust", Pacing: spec.Pacing{Msgs: msgs},
			Config: &spec.JSPubSync{JSPublish: spec.JSPublish{Stream: "RUNNERRUST", Subject: "runner.js.a"}}}},
	}
	for round := range 2 {
		res, err := runner.Run(context.Background(), sp, runner.Options{RustBin: bin})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stop.Reason != result.StopCompleted {
			t.Fatalf("round %d: stop %+v", round, res.Stop)
		}
		js := natstest.JetStream(t, s.ClientURL())
		st, err := js.Stream(context.Background(), "RUNNERRUST")
		if err != nil {
			t.Fatal(err)
		}
		if n := st.CachedInfo().State.Msgs; n != msgs {
			t.Fatalf("round %d: the stream holds %d messages, want %d (recreated empty, then the run's)", round, n, msgs)
		}
	}
}

// Options.Series receives every client's intervals while the run goes: their messages add up
// to the Result's.
func TestRunSeries(t *testing.T) {
	series := make(chan result.Slice, 1024)
	res, err := runner.Run(context.Background(), &spec.Spec{
		Version: spec.Version, Target: spec.Target{Embedded: &spec.Embedded{}}, Interval: spec.Duration(50 * time.Millisecond),
		Workloads: []spec.Workload{{Pacing: spec.Pacing{Rate: 2000, Duration: spec.Duration(400 * time.Millisecond)},
			Config: &spec.Pub{Subject: "runner.series"}}},
	}, runner.Options{Series: series})
	if err != nil {
		t.Fatal(err)
	}
	close(series)
	var n, slices int64
	for sl := range series {
		if !strings.HasPrefix(sl.Src, "pub") {
			t.Fatalf("a slice from %q, want the publisher's", sl.Src)
		}
		n += sl.Msgs
		slices++
	}
	if want := res.Groups[0].Aggregate.Msgs; n != want || want == 0 || slices < 2 {
		t.Fatalf("the series carried %d messages in %d slices, the Result %d", n, slices, want)
	}
}

// Bad Options are an InputError before anything connects.
func TestRunRefusesBadOptions(t *testing.T) {
	s := &spec.Spec{Version: spec.Version, Workloads: []spec.Workload{{Config: &spec.Pub{Subject: "x"}}}}
	for _, o := range []runner.Options{
		{Agents: "zone"},
		{Agents: "2", OnAgentLoss: "maybe", Control: "nats://127.0.0.1:1"},
	} {
		_, err := runner.Run(context.Background(), s, o)
		var in runner.InputError
		if !errors.As(err, &in) {
			t.Fatalf("%+v: got %v, want an InputError", o, err)
		}
	}
	rs := &spec.Spec{Version: spec.Version, Workloads: []spec.Workload{{Client: "rust", Config: &spec.JSFetch{}}}}
	if _, err := runner.Run(context.Background(), rs, runner.Options{}); !errors.As(err, new(runner.InputError)) || !strings.Contains(err.Error(), "not js fetch") {
		t.Fatalf("js fetch through natsperf-rust: got %v, want an InputError naming it", err)
	}
}

// Targets keeps one embedded server for run after run: the second run finds the server the
// first started (same id), and after Close a run gets a new one.
func TestTargetsKeepOneServer(t *testing.T) {
	s := &spec.Spec{Version: spec.Version, Target: spec.Target{Embedded: &spec.Embedded{}},
		Workloads: []spec.Workload{{Pacing: spec.Pacing{Msgs: 100}, Config: &spec.Pub{Subject: "runner.targets"}}}}
	ts := &runner.Targets{}
	defer ts.Close()
	server := func() string {
		t.Helper()
		res, err := runner.Run(context.Background(), s, runner.Options{Targets: ts})
		if err != nil {
			t.Fatal(err)
		}
		if res.Stop.Reason != result.StopCompleted || len(res.Servers) != 1 || res.Servers[0].ID == "" {
			t.Fatalf("stop %+v, servers %+v", res.Stop, res.Servers)
		}
		return res.Servers[0].ID
	}
	first := server()
	if again := server(); again != first {
		t.Fatalf("the second run connected to server %s, want the first run's %s", again, first)
	}
	ts.Close()
	if fresh := server(); fresh == first {
		t.Fatalf("after Close the run still found server %s", first)
	}
}
