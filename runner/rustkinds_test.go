package runner_test

import (
	"slices"
	"testing"

	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// TestRustKindsFromTheSharedFile: the kinds natsperf-rust runs come from runner/rust-kinds.json,
// which the crate compiles in too (its spec tests decode Go's golden Spec of each listed kind);
// every one is a kind the Spec knows, listed once.
func TestRustKindsFromTheSharedFile(t *testing.T) {
	kinds := runner.RustKinds()
	if len(kinds) < 2 {
		t.Fatalf("RustKinds = %q: the shared file was not read", kinds)
	}
	for i, k := range kinds {
		if !slices.Contains(spec.Kinds(), k) {
			t.Errorf("%q is not a Spec kind (%v)", k, spec.Kinds())
		}
		if slices.Index(kinds, k) != i {
			t.Errorf("%q is listed twice", k)
		}
	}
	kinds[0] = "changed"
	if runner.RustKinds()[0] == "changed" {
		t.Error("RustKinds hands out its own slice")
	}
}
