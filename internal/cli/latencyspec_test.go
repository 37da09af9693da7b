package cli

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

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
	a, b := decodeSettings(t, direct), decodeSettings(t, fromSpec)
	for _, m := range []map[string]any{a, b} { // measured per run, not settings
		w, _ := m["workload"].(map[string]any)
		if w["pub_rtt_ns"] == nil || w["sub_rtt_ns"] == nil || w["last_sent_unix_ns"] == nil {
			t.Fatalf("settings lack the server round trips or the last send: %v", w)
		}
		delete(w, "pub_rtt_ns")
		delete(w, "sub_rtt_ns")
		delete(w, "last_sent_unix_ns")
	}
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("settings differ:\ncommand %s\nspec    %s", direct.Settings, fromSpec.Settings)
	}
	text := run(context.Background(), t, nil, "run", path, "--no-progress")
	if text.code != 0 || !strings.Contains(text.out, "HDR Percentiles:") || strings.Contains(text.out, "Starting") {
		t.Fatalf("run SPEC text: exit %d, want latency-tests' report without start lines:\n%s", text.code, text.out)
	}
}

// TestLatencyServerBCredentialsInURL: credentials written into --server-b's URL (as
// latency-tests users do) reach server B, and neither the printed Spec nor the Result keeps them.
func TestLatencyServerBCredentialsInURL(t *testing.T) {
	const user, pass = "bench", "s3cr3t-b"
	auth := func(o *server.Options) { o.Username, o.Password = user, pass }
	// One server as A and B: the point is the credentials in --server-b's URL.
	a := startServer(t, auth)
	b := a
	withPass := func(s *server.Server) string {
		return strings.Replace(s.ClientURL(), "nats://", "nats://"+user+":"+pass+"@", 1)
	}
	out := filepath.Join(t.TempDir(), "res.json")
	args := []string{"latency", "--rate", "200", "--duration", "500ms", "--size", "32",
		"-s", withPass(a), "--server-b", withPass(b), "--no-progress", "-o", out}
	before, _ := b.Varz(nil)
	r := run(context.Background(), t, nil, args...)
	after, _ := b.Varz(nil)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if got := after.OutMsgs - before.OutMsgs; got < 50 {
		t.Fatalf("server B delivered %d messages, want the run's (about 100)", got)
	}
	data, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sp := run(context.Background(), t, nil, append([]string{"spec"}, args...)...)
	if sp.code != 0 {
		t.Fatalf("spec: exit %d: %s", sp.code, sp.err)
	}
	for name, text := range map[string]string{"stdout": r.out, "stderr": r.err, "result": string(data), "spec": sp.out} {
		if strings.Contains(text, pass) {
			t.Errorf("%s shows the password", name)
		}
	}
}
