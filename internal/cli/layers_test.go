package cli

import (
	"go/build"
	"slices"
	"testing"
)

// TestCLIGoesThroughRunner: the command line reaches the engine and the coordinator only
// through runner (flags -> Spec -> runner.Run -> render), so where a run goes is decided in
// one place.
func TestCLIGoesThroughRunner(t *testing.T) {
	p, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range []string{"github.com/natsperf/natsperf/internal/engine", "github.com/natsperf/natsperf/internal/coord"} {
		if slices.Contains(p.Imports, pkg) {
			t.Errorf("internal/cli imports %s: runs go through runner", pkg)
		}
	}
	if !slices.Contains(p.Imports, "github.com/natsperf/natsperf/runner") {
		t.Errorf("internal/cli does not import runner: %v", p.Imports)
	}
}
