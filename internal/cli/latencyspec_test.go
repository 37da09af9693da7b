package cli

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/spec"
)

// TestLatencySpecRunsAsTheCommand: 'natsperf spec latency' prints a Spec that runs to the same
// settings as the command, rate x duration messages that the server counted in and out, and
// the text report keeps latency-tests' layout with no start lines.
func TestLatencySpecRunsAsTheCommand(t *testing.T) {
	s := startServer(t, nil)
	args := []string{"latency", "--rate", "200", "--duration", "1s", "--size", "32", "--subject", "lat.spec",
		"-s", s.ClientURL(), "--server-b", s.ClientURL(), "--no-progress"}
	r := run(context.Background(), t, nil, append([]string{"spec"}, args...)...)
	if r.code != 0 {
		t.Fatalf("spec: exit %d: %s", r.code, r.err)
	}
	sp, err := spec.Parse([]byte(r.out))
	if err != nil || sp.Workloads[0].Kind() != "latency" || sp.Workloads[0].Pacing.Rate != 200 {
		t.Fatalf("printed spec: %v\n%s", err, r.out)
	}
	path := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(path, []byte(r.out), 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Varz(nil)
	fromSpec, rr := runJSON(context.Background(), t, "run", path, "--no-progress")
	after, _ := s.Varz(nil)
	if rr.code != 0 || fromSpec.Command != "latency" {
		t.Fatalf("run SPEC: exit %d, command %q: %s", rr.code, fromSpec.Command, rr.err)
	}
	pub, sub := group(t, fromSpec, "pub").Aggregate.Msgs, group(t, fromSpec, "sub").Aggregate.Msgs
	if pub != 200 || sub != 200 || after.InMsgs-before.InMsgs < 200 || after.OutMsgs-before.OutMsgs < 200 {
		t.Fatalf("pub %d sub %d, want 200 each; the server saw %d in, %d out", pub, sub, after.InMsgs-before.InMsgs, after.OutMsgs-before.OutMsgs)
	}
	direct, dr := runJSON(context.Background(), t, args...)
	if dr.code != 0 {
		t.Fatalf("command: exit %d: %s", dr.code, dr.err)
	}
	if a, b := decodeSettings(t, direct), decodeSettings(t, fromSpec); !reflect.DeepEqual(a, b) {
		t.Fatalf("settings differ:\ncommand %s\nspec    %s", direct.Settings, fromSpec.Settings)
	}
	text := run(context.Background(), t, nil, "run", path, "--no-progress")
	if text.code != 0 || !strings.Contains(text.out, "HDR Percentiles:") || strings.Contains(text.out, "Starting") {
		t.Fatalf("run SPEC text: exit %d, want latency-tests' report without start lines:\n%s", text.code, text.out)
	}
}
