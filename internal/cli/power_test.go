package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/powerfs"
)

// TestPowerFailRefusedWithoutFUSE: without a FUSE device a power failure is refused before
// the run, in one line saying what is missing; a bad --sync-interval too.
func TestPowerFailRefusedWithoutFUSE(t *testing.T) {
	t.Setenv(powerfs.DeviceEnv, "/nonexistent/fuse")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"js", "pub", "async", "x", "--replicas", "3", "--fault", "1s:power-fail:all"}, "/nonexistent/fuse does not exist"},
		{[]string{"js", "pub", "async", "x", "--replicas", "3", "--server-bin", "/bin/true", "--fault", "1s:power-fail:all"}, "/nonexistent/fuse does not exist"},
		{[]string{"js", "pub", "async", "x", "--sync-interval", "sometimes"}, "--sync-interval"},
		{[]string{"js", "pub", "async", "x", "--fault", "1s:power-fail:most"}, "all, leader or minority"},
		{[]string{"server", "--sync-interval", "never"}, "--sync-interval"},
		{[]string{"js", "pub", "async", "x", "-s", "nats://127.0.0.1:1", "--sync-interval", "always"}, "fsyncs as its own configuration says"},
	} {
		r := run(context.Background(), t, nil, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.err, tc.want) || strings.Count(strings.TrimSpace(r.err), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and one line with %q", tc.args, r.code, r.err, exitUsage, tc.want)
		}
	}
}
