package scenario

import (
	"testing"

	"github.com/natsperf/natsperf/spec"
)

// TestUpgradeExampleCells: examples/upgrade.yaml's server axis makes one cell per release, and
// each cell's Spec asks for that release's processes.
func TestUpgradeExampleCells(t *testing.T) {
	sc, err := Load("../../examples/upgrade.yaml", Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"v2.12.15", "v2.15.3"}
	if len(sc.Cells) != len(want) {
		t.Fatalf("%d cells, want %d", len(sc.Cells), len(want))
	}
	for i, c := range sc.Cells {
		s, err := c.spec(func([]string) (*spec.Spec, error) { return &spec.Spec{Workloads: []spec.Workload{{}}}, nil }, false)
		if err != nil {
			t.Fatal(err)
		}
		if e := s.Target.Embedded; e == nil || e.ServerVersion != want[i] || !e.Processes() || e.Nodes != 1 {
			t.Fatalf("cell %s: target %+v, want server_version %s", c.Name, e, want[i])
		}
	}
}
