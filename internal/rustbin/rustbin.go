// Package rustbin finds natsperf-rust, the async-nats client agent built from clients/rust:
// natsperf's --client rust starts its agent (StartAgent), and the cross-language tests in internal/rustclient
// run it (they import internal/cli, so the finding lives here, below both).
package rustbin

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
)

// Binary is the executable's name.
const Binary = "natsperf-rust"

// ErrNotBuilt says where natsperf-rust was looked for.
var ErrNotBuilt = errors.New("natsperf-rust not found next to natsperf, on PATH or under clients/rust/target/release (build it: cd clients/rust && cargo build --release)")

// Find returns the path of natsperf-rust: next to the running executable, on PATH, or built in
// the repository rooted at repoRoot (clients/rust/target/release; "" skips that place).
func Find(repoRoot string) (string, error) {
	if exe, err := os.Executable(); err == nil {
		if p := filepath.Join(filepath.Dir(exe), Binary); isExecutable(p) {
			return p, nil
		}
	}
	if p, err := exec.LookPath(Binary); err == nil {
		return p, nil
	}
	if repoRoot != "" {
		p := filepath.Join(repoRoot, "clients", "rust", "target", "release", Binary)
		if isExecutable(p) {
			abs, err := filepath.Abs(p)
			if err != nil {
				return "", fmt.Errorf("find %s: %w", Binary, err)
			}
			return abs, nil
		}
	}
	return "", ErrNotBuilt
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
