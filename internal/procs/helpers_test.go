package procs

import (
	"context"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/powerfs"
)

// release is a nats-server release binary from $NATSPERF_SERVER_BINARIES (default
// ~/.cache/natsperf/nats-server), VERSION/nats-server; the test skips without it, and fails
// when $CI is set (CI builds them).
func release(t testing.TB, versions ...string) string {
	t.Helper()
	for _, v := range versions {
		if p := Cached(os.Getenv, v); p != "" {
			return p
		}
	}
	dir, _ := CacheDir(os.Getenv)
	if os.Getenv("CI") != "" {
		t.Fatalf("no nats-server %v in %s (CI builds them)", versions, dir)
	}
	t.Skipf("no nats-server %v in %s", versions, dir)
	return ""
}

func start(t testing.TB, o Options) *Cluster {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := Start(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	return c
}

// procState is a process's state letter from /proc (R, S, T, Z...), "" when it is gone.
func procState(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return ""
	}
	s := string(b)
	for i := len(s) - 1; i >= 0; i-- {
		if s[i] == ')' {
			if i+2 < len(s) {
				return s[i+2 : i+3]
			}
		}
	}
	return ""
}

func gone(pid int) bool {
	st := procState(pid)
	return st == "" || st == "Z" || st == "X"
}

// needFUSE skips a test that mounts powerfs where FUSE or root is missing, and fails it when
// $CI is set (CI runs as root with /dev/fuse).
func needFUSE(t testing.TB) {
	t.Helper()
	if err := powerfs.Check(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err)
	}
}
