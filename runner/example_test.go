package runner_test

import (
	"context"
	"fmt"

	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// A pub/sub benchmark on an embedded server: one publisher, two subscribers, 10,000 messages
// of 16 bytes. runner.Run returns a *result.Result: its Groups, each with its Clients and
// Aggregate (rates, Latency, Correctness), and the Stop reason (package result documents every
// field).
func Example() {
	res, err := runner.Run(context.Background(), &spec.Spec{
		Version: spec.Version,
		Target:  spec.Target{Embedded: &spec.Embedded{}},
		Workloads: []spec.Workload{{
			Pacing: spec.Pacing{Msgs: 10_000},
			Config: &spec.PubSub{Subject: "demo", Size: 16, Subs: 2},
		}},
	}, runner.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range res.Groups {
		fmt.Printf("%s: %d clients, %d messages\n", g.Name, len(g.Clients), g.Aggregate.Msgs)
	}
	sub := &res.Groups[1] // a *result.Group
	fmt.Println("sub P99 measured:", sub.Aggregate.Latency.At(99) > 0)
	fmt.Println("stop:", res.Stop.Reason, "· completed:", res.Stop.Reason == result.StopCompleted, "· lost:", res.Loss())
	// Output:
	// pub: 1 clients, 10000 messages
	// sub: 2 clients, 20000 messages
	// sub P99 measured: true
	// stop: completed · completed: true · lost: 0
}
