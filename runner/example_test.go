package runner_test

import (
	"context"
	"fmt"

	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// A pub/sub benchmark on an embedded server: one publisher, two subscribers, 10,000 messages
// of 16 bytes.
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
	fmt.Println("stop:", res.Stop.Reason, "· lost:", res.Loss())
	// Output:
	// pub: 1 clients, 10000 messages
	// sub: 2 clients, 20000 messages
	// stop: completed · lost: 0
}
