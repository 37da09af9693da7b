package spec_test

import (
	"fmt"
	"time"

	"github.com/natsperf/natsperf/spec"
)

// A Spec built in Go, validated and written as YAML: what `natsperf pubsub foo --pub 2 --sub 4
// --size 512 --rate 1000 --duration 10s` runs.
func ExampleSpec_YAML() {
	s := &spec.Spec{
		Version: spec.Version,
		Workloads: []spec.Workload{{
			Pacing: spec.Pacing{Rate: 1000, Duration: spec.Duration(10 * time.Second)},
			Config: &spec.PubSub{Subject: "foo", Size: 512, Pubs: 2, Subs: 4},
		}},
	}
	if err := s.Validate(); err != nil {
		fmt.Println(err)
		return
	}
	y, err := s.YAML()
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(string(y))
	// Output:
	// version: natsperf.spec/v1
	// workloads:
	//   - kind: pubsub
	//     pacing:
	//       rate: 1000
	//       duration: 10s
	//     config:
	//       subject: foo
	//       size: 512
	//       pubs: 2
	//       subs: 4
}

// Reading a spec: unknown keys are refused with their path, and Validate names the field.
func ExampleParse() {
	_, err := spec.Parse([]byte(`
version: natsperf.spec/v1
workloads:
  - kind: js pub async
    config: {subject: orders, sizee: 16kb}
`))
	fmt.Println(err)

	s, _ := spec.Parse([]byte(`
version: natsperf.spec/v1
workloads:
  - kind: js pub batch
    pacing: {rate: 100, duration: 5s}
    config: {subject: orders, size: 16kb, batch: 2000}
`))
	fmt.Println(s.Validate())
	// Output:
	// spec: workloads[0].config: unknown field "sizee"
	// workloads[0] (js pub batch).config.batch: must be 1 to 1000, got 2000
}
