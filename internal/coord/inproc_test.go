package coord

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/agent"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// A target that needs a password: the agents get it next to the Spec (which never holds
// it) and their clients log in with it.
func TestRunPasswordReachesAgents(t *testing.T) {
	srv := natstest.Server(t, func(o *server.Options) { o.Username, o.Password = "bench", "s3cret" })
	url := srv.ClientURL()
	login := connect.Settings{Servers: url, User: "bench", Password: "s3cret"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	startAgents(ctx, t, 2, agent.Config{Control: login, Target: login, Name: "p", Version: "vT"})
	s := &spec.Spec{Version: spec.Version, Target: spec.Target{Servers: []string{url}, User: "bench", Password: "s3cret"},
		Workloads: []spec.Workload{{Clients: 2, Pacing: spec.Pacing{Msgs: 2000}, Config: &spec.Pub{Subject: "pw.test"}}}}
	res, err := Coordinate(ctx, s, Config{Control: login, Count: 2, Wait: 10 * time.Second, Version: "vT"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop.Reason != result.StopCompleted || res.Groups[0].Aggregate.Msgs != 2000 {
		t.Fatalf("stop %+v, %d msgs", res.Stop, res.Groups[0].Aggregate.Msgs)
	}
}

// A known clock offset flows through: an agent that reports its clock 50 ms ahead is
// measured so (within the stated uncertainty), and a subscriber on the other agent corrects
// the latencies of its publisher by it: they grow by the 50 ms (both share one real clock).
func TestRunCorrectsLatencyByMeasuredOffset(t *testing.T) {
	srv := natstest.Server(t, nil)
	login := connect.Settings{Servers: srv.ClientURL()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	const skew = 50 * time.Millisecond
	for i, sk := range []time.Duration{0, skew} {
		a, err := agent.Start(ctx, agent.Config{Control: login, Target: login, Name: fmt.Sprintf("k%d", i+1), Version: "vT", ClockSkew: sk})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
	}
	s := &spec.Spec{Version: spec.Version, Workloads: []spec.Workload{{Pacing: spec.Pacing{Msgs: 2000},
		Config: &spec.PubSub{Subject: "skew.e2e", Size: 32, Pubs: 1, Subs: 2}}}}
	res, err := Coordinate(ctx, s, Config{Control: login, Count: 2, Wait: 10 * time.Second, Version: "vT"})
	if err != nil {
		t.Fatal(err)
	}
	k2 := res.Distributed.Agents[1]
	if k2.Name != "k2" || abs64(k2.ClockOffsetNS-int64(skew)) > k2.ClockUncertaintyNS+int64(time.Millisecond) {
		t.Fatalf("k2's offset %d ± %d, injected %d", k2.ClockOffsetNS, k2.ClockUncertaintyNS, skew)
	}
	for _, g := range res.Groups {
		if g.Name != "sub" {
			continue
		}
		for _, c := range g.Clients {
			switch c.Part {
			case "k1": // hears k2's publisher: corrected by -(0 - 50 ms)
				if c.Latency.Min < int64(skew)-k2.ClockUncertaintyNS-int64(time.Millisecond) {
					t.Fatalf("k1's subscriber: min latency %d, want 50 ms more than the real one", c.Latency.Min)
				}
			case "k2": // same agent as the publisher
				if c.Latency.Min >= int64(skew)/2 {
					t.Fatalf("k2's subscriber: min latency %d, want no correction", c.Latency.Min)
				}
			default:
				t.Fatalf("subscriber on %q", c.Part)
			}
		}
	}
}

func abs64(v int64) int64 {
	if v < 0 {
		return -v
	}
	return v
}

// A label selector that matches more agents than the Spec's clients can keep busy uses as
// many as they can (and says so), instead of refusing the run: --agents zone=a with three
// zone=a agents and a 2-client publisher runs on two of them.
func TestRunSelectorUsesTheAgentsItCanKeepBusy(t *testing.T) {
	srv := natstest.Server(t, nil)
	url := srv.ClientURL()
	conn := connect.Settings{Servers: url}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 3 {
		a, err := agent.Start(ctx, agent.Config{Control: conn, Target: conn, Name: fmt.Sprintf("z%d", i+1), Version: "vT", Labels: map[string]string{"zone": "a"}})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
	}
	// A selector takes the agents that answer; wait until all three do, so a slow start
	// on a busy machine cannot make it two.
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	natstest.WaitFor(t, 30*time.Second, "three agents answering", func() bool {
		found, err := Discover(ctx, nc, 500*time.Millisecond)
		return err == nil && len(found) == 3
	})
	s := &spec.Spec{Version: spec.Version, Target: spec.Target{Servers: []string{url}},
		Workloads: []spec.Workload{{Clients: 2, Pacing: spec.Pacing{Msgs: 2000}, Config: &spec.Pub{Subject: "sel.test"}}}}
	var log natstest.Buffer
	res, err := Coordinate(ctx, s, Config{Control: conn, Selector: map[string]string{"zone": "a"}, Wait: 3 * time.Second, Version: "vT", Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop.Reason != result.StopCompleted || res.Groups[0].Aggregate.Msgs != 2000 || len(res.Groups[0].Clients) != 2 {
		t.Fatalf("stop %+v, %d msgs, %d clients", res.Stop, res.Groups[0].Aggregate.Msgs, len(res.Groups[0].Clients))
	}
	if !strings.Contains(log.String(), "2 of the 3 agents") {
		t.Fatalf("the coordinator did not say it uses 2 of the 3 agents:\n%s", log.String())
	}
}

// A distributed run samples the servers once, from the coordinator: one series whatever
// the number of agents, and its messages in are what the agents published (the test's own
// /varz reads before and after, less the one JetStream API probe of the agents' process).
func TestRunSamplesServersOnce(t *testing.T) {
	srv := natstest.Server(t, func(o *server.Options) { o.HTTPHost, o.HTTPPort = "127.0.0.1", -1 })
	mon := fmt.Sprintf("http://%s", srv.MonitorAddr())
	// The control traffic (heartbeats, interval records) goes through a server of its own.
	login, target := connect.Settings{Servers: natstest.Server(t, nil).ClientURL()}, connect.Settings{Servers: srv.ClientURL()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	startAgents(ctx, t, 3, agent.Config{Control: login, Target: target, Name: "m", Version: "vT"})
	before, _ := srv.Varz(nil)
	beforeIn, beforeAPI := before.InMsgs, before.JetStream.Stats.API.Total
	s := &spec.Spec{Version: spec.Version, Target: spec.Target{Servers: []string{srv.ClientURL()}, Monitor: []string{mon}},
		Workloads: []spec.Workload{{Clients: 3, Pacing: spec.Pacing{Msgs: 3000}, Config: &spec.Pub{Subject: "tel.test"}}}}
	res, err := Coordinate(ctx, s, Config{Control: login, Count: 3, Wait: 10 * time.Second, Version: "vT"})
	if err != nil {
		t.Fatal(err)
	}
	after, _ := srv.Varz(nil)
	tel := res.Telemetry
	if tel == nil || tel.Source != "monitor" || len(tel.Servers) != 1 {
		t.Fatalf("telemetry %+v", tel)
	}
	api := int64(after.JetStream.Stats.API.Total - beforeAPI)
	if got, want := tel.Counters().InMsgs, after.InMsgs-beforeIn-api; got != want || got != 3000 {
		t.Fatalf("telemetry in_msgs %d, /varz before/after less %d API requests %d (published 3000)", got, api, want)
	}
}

// startAgents starts n in-process agents like cfg, named cfg.Name1, cfg.Name2, ..., closed
// when the test ends.
func startAgents(ctx context.Context, t *testing.T, n int, cfg agent.Config) {
	t.Helper()
	name := cfg.Name
	for i := range n {
		cfg.Name = fmt.Sprintf("%s%d", name, i+1)
		a, err := agent.Start(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(a.Close)
	}
}
