package rustclient

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/natsperf/natsperf/internal/rustbin"
)

// TestNatsperfRustBuilt: the cross-language tests run wherever they can. Go prints only "ok"
// for a package whose tests skipped, so natsperf-rust is built when missing and cargo is on
// PATH (rustbin.ForTests), and a build that fails fails here. Only a machine without cargo, or
// NATSPERF_SKIP_RUST=1, skips them, saying why.
func TestNatsperfRustBuilt(t *testing.T) {
	_, err := rustbin.ForTests(filepath.Join("..", ".."))
	switch {
	case err == nil:
	case errors.Is(err, rustbin.ErrNoCargo):
		t.Skip(err)
	case os.Getenv(rustbin.SkipEnv) == "1":
		t.Skip(err)
	default:
		t.Fatal(err)
	}
}
