package rustclient

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/natsperf/natsperf/internal/rustbin"
)

// SkipEnv, set to 1, says that skipping the tests that need natsperf-rust is meant.
const skipEnv = "NATSPERF_SKIP_RUST"

// TestNatsperfRustBuilt makes a missing natsperf-rust visible. Go prints only "ok" for a
// package whose tests skipped, so without it the cross-language tests (here and the
// --client rust tests of internal/cli) would vanish from 'go test ./...' unnoticed: this test
// fails with the command that builds it, unless NATSPERF_SKIP_RUST=1 says skipping is meant.
func TestNatsperfRustBuilt(t *testing.T) {
	if _, err := rustbin.Find(filepath.Join("..", "..")); err == nil {
		return
	}
	if os.Getenv(skipEnv) == "1" {
		t.Skipf("%s=1: natsperf-rust is not built and the cross-language tests skip", skipEnv)
	}
	t.Fatalf("natsperf-rust is not built, so the cross-language tests skip: build it (cd clients/rust && cargo build --release), or set %s=1 to skip them on purpose", skipEnv)
}
