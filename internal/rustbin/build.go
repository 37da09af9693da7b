package rustbin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// SkipEnv, set to 1, says that the tests needing natsperf-rust skip on purpose.
const SkipEnv = "NATSPERF_SKIP_RUST"

// ErrNoCargo says natsperf-rust is not built and cannot be here: no cargo on PATH.
var ErrNoCargo = errors.New("natsperf-rust is not built and cargo is not on PATH (install Rust to run the cross-language tests, or set " + SkipEnv + "=1)")

var built struct {
	once sync.Once
	path string
	err  error
}

// ForTests returns natsperf-rust for the cross-language tests, building it first (cargo
// build --release in repoRoot/clients/rust) when it is missing and cargo is there. Go prints
// only "ok" for a package whose tests skipped, so a test suite that skipped them for want of a
// build nobody asked for would read as passed: where the machine can build it, it is built.
// Cargo's lock on its target directory keeps packages tested in parallel from building twice.
// With NATSPERF_SKIP_RUST=1 it builds nothing and says so.
func ForTests(repoRoot string) (string, error) {
	built.once.Do(func() { built.path, built.err = forTests(repoRoot) })
	return built.path, built.err
}

func forTests(repoRoot string) (string, error) {
	if p, err := Find(repoRoot); err == nil {
		return p, nil
	}
	if os.Getenv(SkipEnv) == "1" {
		return "", fmt.Errorf("%s=1: natsperf-rust is not built and the tests that need it skip", SkipEnv)
	}
	cargo, err := exec.LookPath("cargo")
	if err != nil {
		return "", ErrNoCargo
	}
	cmd := exec.Command(cargo, "build", "--release", "--locked")
	cmd.Dir = filepath.Join(repoRoot, "clients", "rust")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("building natsperf-rust (cd clients/rust && cargo build --release --locked): %w: %s", err, lastLines(string(out), 5))
	}
	return Find(repoRoot)
}

func lastLines(s string, n int) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " | ")
}
