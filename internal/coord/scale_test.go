package coord

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/agent"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/spec"
)

// BenchmarkRun100Agents is a whole distributed run over 100 goroutine-agents (each its own
// control connection and micro service) on one server: discovery, clock exchange, prepare,
// start and merge of a tiny workload (one publisher per agent). It reports the start skew.
//
//	go test ./internal/coord -run '^$' -bench Run100Agents -benchtime 3x
func BenchmarkRun100Agents(b *testing.B) {
	const n = 100
	srv := natstest.Server(b, nil)
	login := connect.Settings{Servers: srv.ClientURL()}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range n {
		a, err := agent.Start(ctx, agent.Config{Control: login, Target: login, Name: fmt.Sprintf("g%03d", i), Version: "vB"})
		if err != nil {
			b.Fatal(err)
		}
		defer a.Close()
	}
	s := &spec.Spec{Version: spec.Version, NoLatency: true, Workloads: []spec.Workload{{Clients: n, Pacing: spec.Pacing{Msgs: 100 * n},
		Config: &spec.Pub{Subject: "scale.test", Size: 16}}}}
	var skew time.Duration
	b.ResetTimer()
	for range b.N {
		res, err := Coordinate(ctx, s, Config{Control: login, Count: n, Wait: 30 * time.Second, Version: "vB"})
		if err != nil {
			b.Fatal(err)
		}
		if res.Groups[0].Aggregate.Msgs != 100*n || len(res.Distributed.Agents) != n {
			b.Fatalf("%d msgs from %d agents", res.Groups[0].Aggregate.Msgs, len(res.Distributed.Agents))
		}
		skew += time.Duration(res.Distributed.StartSkewNS)
	}
	b.ReportMetric(float64(skew.Milliseconds())/float64(b.N), "skew-ms/run")
}
