package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSLOOnUnrecordedMetricRefused: a latency threshold on a run that records no latency
// (core pub: nothing answers a publish) would fail every time for no fault of the system: it
// is refused before the run with exit 2 and one line, from the flags and from a Spec file
// alike (spec.Validate). The server is never reached: the URL points nowhere.
func TestSLOOnUnrecordedMetricRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "pub.yaml")
	spec := "version: natsperf.spec/v1\nworkloads:\n  - kind: pub\n    config: {subject: foo}\n    pacing: {rate: 100, duration: 1s}\nslo: ['p99<5ms']\n"
	if err := os.WriteFile(file, []byte(spec), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"pub", "foo", "-s", "nats://127.0.0.1:1", "--slo", "p99<5ms"},
		{"pub", "foo", "-s", "nats://127.0.0.1:1", "--rate", "100", "--duration", "1s", "--slo", "loss=0", "--slo", "p50<1ms"},
		{"pubsub", "foo", "-s", "nats://127.0.0.1:1", "--no-latency", "--slo", "p99<5ms"},
		{"run", file, "-s", "nats://127.0.0.1:1"},
	} {
		r := run(context.Background(), t, nil, args...)
		lines := strings.Split(strings.TrimSpace(r.err), "\n")
		if r.code != exitUsage || len(lines) != 1 || !strings.Contains(r.err, "records no latency") {
			t.Errorf("%v: exit %d, want %d with one line naming the missing latency:\n%s", args, r.code, exitUsage, r.err)
		}
	}
	// A threshold the run can judge is not refused by it: loss on core pub.
	r := run(context.Background(), t, nil, "pub", "foo", "-s", "nats://127.0.0.1:1", "--slo", "loss=0")
	if strings.Contains(r.err, "records no latency") {
		t.Errorf("loss=0 on pub refused: %s", r.err)
	}
}
