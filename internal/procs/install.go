package procs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
)

// CacheEnv names the directory of nats-server releases natsperf builds (default
// ~/.cache/natsperf/nats-server); each version sits in VERSION/nats-server.
const CacheEnv = "NATSPERF_SERVER_BINARIES"

var versionRE = regexp.MustCompile(`^v[0-9]+\.[0-9]+\.[0-9]+(-[0-9A-Za-z.-]+)?$`)

// CheckVersion refuses a version that is not a release tag (v2.12.15).
func CheckVersion(v string) error {
	if !versionRE.MatchString(v) {
		return fmt.Errorf("server version %q: want a nats-server release tag such as v2.12.15", v)
	}
	return nil
}

// CacheDir is where releases are kept: $NATSPERF_SERVER_BINARIES, else
// ~/.cache/natsperf/nats-server (the user cache dir).
func CacheDir(getenv func(string) string) (string, error) {
	if getenv != nil {
		if d := getenv(CacheEnv); d != "" {
			return d, nil
		}
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("no cache directory for nats-server releases (set $%s): %w", CacheEnv, err)
	}
	return filepath.Join(d, "natsperf", "nats-server"), nil
}

// Cached is version's binary in the cache, "" when it is not there.
func Cached(getenv func(string) string, version string) string {
	dir, err := CacheDir(getenv)
	if err != nil {
		return ""
	}
	p := filepath.Join(dir, version, "nats-server")
	if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
		return p
	}
	return ""
}

// Install returns version's nats-server binary, building it first when the cache does not
// hold it: go install github.com/nats-io/nats-server/v2@VERSION into CACHE/VERSION (a minute
// or two on a cold module cache; log hears one line). It needs the Go toolchain.
func Install(ctx context.Context, getenv func(string) string, version string, log io.Writer) (string, error) {
	if err := CheckVersion(version); err != nil {
		return "", err
	}
	if p := Cached(getenv, version); p != "" {
		return p, nil
	}
	dir, err := CacheDir(getenv)
	if err != nil {
		return "", err
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		return "", fmt.Errorf("nats-server %s is not in %s and there is no Go toolchain to build it: install Go, or get the release from https://github.com/nats-io/nats-server/releases/tag/%s and pass --server-bin", version, dir, version)
	}
	// Build into a temporary directory and rename, so that an interrupted build leaves no
	// half-written binary in the cache.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("nats-server cache: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, ".build-"+version+"-")
	if err != nil {
		return "", fmt.Errorf("nats-server cache: %w", err)
	}
	defer os.RemoveAll(tmp)
	if log != nil {
		fmt.Fprintf(log, "Building nats-server %s with go install into %s (once)\n", version, filepath.Join(dir, version))
	}
	cmd := exec.CommandContext(ctx, goBin, "install", "github.com/nats-io/nats-server/v2@"+version)
	cmd.Env = append(os.Environ(), "GOBIN="+tmp, "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("go install nats-server %s: %w: %s", version, err, lastLine(out))
	}
	final := filepath.Join(dir, version)
	if err := os.MkdirAll(final, 0o755); err != nil {
		return "", fmt.Errorf("nats-server cache: %w", err)
	}
	p := filepath.Join(final, "nats-server")
	if err := os.Rename(filepath.Join(tmp, "nats-server"), p); err != nil && !errors.Is(err, os.ErrExist) {
		return "", fmt.Errorf("nats-server cache: %w", err)
	}
	return p, nil
}

func lastLine(b []byte) string {
	re := regexp.MustCompile(`[^\n]+\n?$`)
	return string(re.Find(b))
}
