package result_test

import (
	"fmt"
	"strings"

	"github.com/natsperf/natsperf/result"
)

// Reading a Result (natsperf pubsub --json, -o FILE, or runner.Run's) and the figures a
// program usually wants: each group's rate, the subscribers' P99 and the delivery verdict.
// result.ReadFile reads a file the same way.
func Example() {
	doc := `{
	  "schema": "natsperf.result/v2", "command": "pubsub", "tool": {"name": "natsperf", "version": "devel", "go": "go1.26"},
	  "host": {"os": "linux", "arch": "amd64", "cpus": 2, "go": "go1.26"},
	  "start": "2026-12-01T10:00:00Z", "end": "2026-12-01T10:00:02Z", "stop": {"reason": "completed"},
	  "groups": [
	    {"name": "pub", "kind": "Core NATS publisher", "expected": 1000, "clients": [],
	     "aggregate": {"msgs": 1000, "bytes": 16000, "msgs_per_sec": 500, "bytes_per_sec": 8000, "rates": {}, "time_per_msg": {}}},
	    {"name": "sub", "kind": "Core NATS subscriber", "expected": 1000, "clients": [],
	     "aggregate": {"msgs": 1000, "bytes": 16000, "msgs_per_sec": 500, "bytes_per_sec": 8000, "rates": {}, "time_per_msg": {},
	       "latency": {"count": 1000, "min_ns": 20000, "mean_ns": 41000, "max_ns": 900000, "stddev_ns": 30000,
	         "percentiles": [{"p": 50, "ns": 35000}, {"p": 99, "ns": 250000}, {"p": 100, "ns": 900000}]},
	       "correctness": {"received": 1000, "unstamped": 0, "publishers": 1, "lost": 0, "duplicated": 0, "out_of_order": 0}}}
	  ]
	}`
	res, err := result.Read(strings.NewReader(doc))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, g := range res.Groups {
		fmt.Printf("%s: %.0f msgs/s, P99 %v\n", g.Name, g.Aggregate.MsgsPerSec, g.Aggregate.Latency.At(99))
	}
	fmt.Println("complete:", res.Complete(), "· lost:", res.Loss())
	// Output:
	// pub: 500 msgs/s, P99 0s
	// sub: 500 msgs/s, P99 250µs
	// complete: true · lost: 0
}
