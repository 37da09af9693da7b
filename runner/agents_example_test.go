package runner_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// A run across three agents, each a natsperf agent (as `natsperf agent` runs one) started
// in this process with runner.StartAgent on a loopback control server (exported names only:
// TestExamplesImportNoInternalPackage): the Spec's 3 publishers and 3 subscribers are split
// across them, started at one instant, and their Results merged into one. The load goes to
// a second server, so its /varz counts the benchmark alone: the merged counts are the server's
// (in: one more, the $JS.API.INFO request the agents' process sends once per server, which
// finds no JetStream here and gets no reply).
func Example_agents() {
	control, target := loopbackServer(), loopbackServer()
	defer control.Shutdown()
	defer target.Shutdown()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, name := range []string{"a1", "a2", "a3"} {
		a, err := runner.StartAgent(ctx, runner.AgentOptions{
			Control: spec.Target{Servers: []string{control.ClientURL()}},
			Target:  spec.Target{Servers: []string{target.ClientURL()}},
			Name:    name,
		})
		if err != nil {
			fmt.Println(err)
			return
		}
		defer a.Close()
	}
	in0, out0 := varz(target)
	res, err := runner.Run(ctx, &spec.Spec{
		Version: spec.Version,
		Target:  spec.Target{Servers: []string{target.ClientURL()}},
		Workloads: []spec.Workload{{
			Pacing: spec.Pacing{Msgs: 30_000},
			Config: &spec.PubSub{Subject: "demo.agents", Size: 16, Pubs: 3, Subs: 3},
		}},
	}, runner.Options{Agents: "3", Control: control.ClientURL(), AgentsWait: 10 * time.Second})
	if err != nil {
		fmt.Println(err)
		return
	}
	in1, out1 := varz(target)
	fmt.Println("agents:", len(res.Distributed.Agents), "· stop:", res.Stop.Reason, "· lost:", res.Loss())
	var g [2]*result.Group
	for i := range res.Groups {
		g[i] = &res.Groups[i]
	}
	fmt.Printf("%s: %d clients, %d messages · server in: %d\n", g[0].Name, len(g[0].Clients), g[0].Aggregate.Msgs, in1-in0)
	fmt.Printf("%s: %d clients, %d messages · server out: %d\n", g[1].Name, len(g[1].Clients), g[1].Aggregate.Msgs, out1-out0)
	fmt.Println("sub P99 measured:", g[1].Aggregate.Latency.At(99) > 0)
	// Output:
	// agents: 3 · stop: completed · lost: 0
	// pub: 3 clients, 30000 messages · server in: 30001
	// sub: 3 clients, 90000 messages · server out: 90000
	// sub P99 measured: true
}

// loopbackServer is a nats-server on a free loopback port, with its monitoring endpoint.
func loopbackServer() *server.Server {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, HTTPHost: "127.0.0.1", HTTPPort: -1, NoLog: true, NoSigs: true})
	if err != nil {
		panic(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		panic("nats-server did not start")
	}
	return s
}

// varz is the server's message counters, as its /varz endpoint gives them.
func varz(s *server.Server) (in, out int64) {
	resp, err := http.Get("http://" + s.MonitorAddr().String() + "/varz")
	if err != nil {
		panic(err)
	}
	defer resp.Body.Close()
	var v struct {
		InMsgs  int64 `json:"in_msgs"`
		OutMsgs int64 `json:"out_msgs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		panic(err)
	}
	return v.InMsgs, v.OutMsgs
}
