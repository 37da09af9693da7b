package coord

import (
	"strings"
	"testing"

	"github.com/natsperf/natsperf/spec"
)

func TestParseAgents(t *testing.T) {
	if n, sel, err := Parse("3"); n != 3 || sel != nil || err != nil {
		t.Fatalf("3: %d %v %v", n, sel, err)
	}
	if n, sel, err := Parse("zone=a,tier=x"); n != 0 || sel["zone"] != "a" || sel["tier"] != "x" || err != nil {
		t.Fatalf("selector: %d %v %v", n, sel, err)
	}
	for _, bad := range []string{"0", "-1", "zone", "=a"} {
		if _, _, err := Parse(bad); err == nil {
			t.Fatalf("%q accepted", bad)
		}
	}
}

func TestCheckSplit(t *testing.T) {
	pub := func(clients, instances int) *spec.Spec {
		return &spec.Spec{Version: spec.Version, Workloads: []spec.Workload{{Clients: clients, Instances: instances, Config: &spec.Pub{Subject: "x"}}}}
	}
	if err := Check(pub(3, 0), 3); err != nil {
		t.Fatal(err)
	}
	if err := Check(pub(2, 0), 3); err == nil || !strings.Contains(err.Error(), "cannot keep 3 agents busy") {
		t.Fatalf("2 clients on 3 agents: %v", err)
	}
	if err := Check(pub(1, 4), 3); err != nil { // instances spread whole
		t.Fatal(err)
	}
	emb := pub(3, 0)
	emb.Target.Embedded = &spec.Embedded{}
	if err := Check(emb, 3); err == nil || !strings.Contains(err.Error(), "embedded") {
		t.Fatalf("embedded target: %v", err)
	}
	flt := pub(3, 0)
	flt.Faults.Inject = []string{"1s:kill-leader"}
	if err := Check(flt, 3); err == nil || !strings.Contains(err.Error(), "--fault") {
		t.Fatalf("faults: %v", err)
	}
	lat := &spec.Spec{Version: spec.Version, Workloads: []spec.Workload{{Config: &spec.Latency{}}}}
	if err := Check(lat, 2); err == nil || !strings.Contains(err.Error(), "latency") {
		t.Fatalf("latency on 2 agents: %v", err)
	}
	if err := Check(lat, 1); err != nil { // one agent keeps one clock (--client rust)
		t.Fatalf("latency on one agent: %v", err)
	}
	ps := &spec.Spec{Version: spec.Version, Workloads: []spec.Workload{{Config: &spec.PubSub{Subject: "x", Pubs: 1, Subs: 3}}}}
	if err := Check(ps, 3); err != nil {
		t.Fatal(err)
	}
	if got := (&coordinator{}).describeSplit(ps, 3); got != "3 agents; pubsub: 1 publishers as 0+0+1, 3 subscribers as 1+1+1" {
		t.Fatalf("split described as %q", got)
	}
}
