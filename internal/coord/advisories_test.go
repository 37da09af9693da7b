package coord

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/agent"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/spec"
)

// In a distributed run the coordinator listens for the target's JetStream advisories (it
// used to watch only the control server): the stream leader elections the test causes
// during the run (a step-down every 300 ms) are events from "advisory", each naming a node
// of the cluster.
func TestRunSeesTargetAdvisories(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	c, err := embedded.Start(ctx, embedded.Options{Nodes: 3, HTTPPort: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	js := natstest.JetStream(t, c.URL())
	natstest.CreateStream(t, js, jetstream.StreamConfig{Name: "advtest", Subjects: []string{"advtest"}, Replicas: 3})
	nc := js.Conn()
	login := connect.Settings{Servers: natstest.Server(t, nil).ClientURL()}
	startAgents(ctx, t, 1, agent.Config{Control: login, Target: connect.Settings{Servers: c.URL()}, Name: "adv", Version: "vT"})
	stepping := make(chan struct{})
	go func() {
		defer close(stepping)
		tick := time.NewTicker(300 * time.Millisecond)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
				_, _ = nc.Request("$JS.API.STREAM.LEADER.STEPDOWN.advtest", nil, 2*time.Second)
			}
		}
	}()
	s := &spec.Spec{Version: spec.Version, Target: spec.Target{Servers: []string{c.URL()}, Monitor: []string{c.MonitorURL()}},
		Workloads: []spec.Workload{{Pacing: spec.Pacing{Rate: 200, Duration: spec.Duration(3 * time.Second)}, Config: &spec.Pub{Subject: "adv.pub"}}}}
	res, err := Coordinate(ctx, s, Config{Control: login, Count: 1, Wait: 10 * time.Second, Version: "vT"})
	cancel()
	<-stepping
	if err != nil {
		t.Fatal(err)
	}
	if res.Telemetry == nil || len(res.Telemetry.Errors) > 0 {
		t.Fatalf("telemetry %+v", res.Telemetry)
	}
	var elected []string
	for _, e := range res.Events {
		if e.Kind != "leader_elected" || e.Source != "advisory" || e.Stream != "advtest" {
			continue
		}
		if _, ok := c.NodeByName(e.Server); !ok {
			t.Errorf("advisory names %q, not a node of the cluster", e.Server)
		}
		elected = append(elected, e.Server)
	}
	if len(elected) == 0 {
		t.Fatalf("no stream leader election from an advisory among the run's events %+v", res.Events)
	}
	t.Logf("%d elections seen: %v", len(elected), elected)
}

// A distributed run samples through the system account from the coordinator: the agents get
// a Spec without the system password (one holding it would be refused), and the one series
// covers all 3 servers.
func TestRunSamplesThroughTheSystemAccount(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	nodes := natstest.SysCluster(t)
	login := connect.Settings{Servers: natstest.Server(t, nil).ClientURL()}
	target := connect.Settings{Servers: nodes[0].ClientURL(), User: "app", Password: "apppw"}
	startAgents(ctx, t, 1, agent.Config{Control: login, Target: target, Name: "sys", Version: "vT"})
	s := &spec.Spec{Version: spec.Version,
		Target:    spec.Target{Servers: []string{nodes[0].ClientURL()}, User: "app", Password: "apppw", SysUser: "sys", SysPassword: "syspw"},
		Workloads: []spec.Workload{{Pacing: spec.Pacing{Msgs: 1000}, Config: &spec.Pub{Subject: "sys.pub"}}}}
	res, err := Coordinate(ctx, s, Config{Control: login, Count: 1, Wait: 10 * time.Second, Version: "vT"})
	if err != nil {
		t.Fatal(err)
	}
	tel := res.Telemetry
	if tel == nil || tel.Source != "sys" || len(tel.Servers) != 3 || len(tel.Errors) > 0 {
		t.Fatalf("telemetry %+v", tel)
	}
	if in := tel.Counters().InMsgs; in < 1000 {
		t.Errorf("the servers counted %d messages in, the agent published 1000", in)
	}
}
