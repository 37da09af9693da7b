package engine

import (
	"slices"
	"testing"

	"github.com/natsperf/natsperf/spec"
)

// needs names every workload and stream setting newer than nats-server 2.10, and nothing else.
func TestNeeds(t *testing.T) {
	s := &spec.Spec{
		Workloads: []spec.Workload{
			{Config: &spec.JSPubAsync{}}, {Config: &spec.JSPubFast{}}, {Config: &spec.JSPubBatch{}},
			{Config: &spec.JSGetSync{}}, {Config: &spec.JSGetBatch{}}, {Config: &spec.KVPut{}}, {Config: &spec.Pub{}},
		},
	}
	s.Setup.Streams = []spec.Stream{{Name: "a"}, {Name: "b", PersistAsync: true}}
	var got []string
	for _, n := range needs(s) {
		got = append(got, n.who)
	}
	if want := []string{"js pub fast", "js pub atomic", "js get batch", "--persistasync"}; !slices.Equal(got, want) {
		t.Errorf("needs %v, want %v", got, want)
	}
	if ns := needs(&spec.Spec{Workloads: []spec.Workload{{Config: &spec.JSPubSync{}}}}); len(ns) != 0 {
		t.Errorf("js pub sync needs %v, want nothing", ns)
	}
}
