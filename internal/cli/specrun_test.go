package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/spec"
)

// TestSpecRunsAsTheCommand: 'natsperf spec CMDLINE' prints the Spec the command line builds,
// and 'natsperf run FILE' runs it to the same settings and to what the server counted.
func TestSpecRunsAsTheCommand(t *testing.T) {
	s := startServer(t, nil)
	args := []string{"pubsub", "spec.test", "--pub", "2", "--sub", "3", "--msgs", "3000", "--size", "32", "-s", s.ClientURL()}
	r := run(context.Background(), t, nil, append([]string{"spec"}, args...)...)
	if r.code != 0 {
		t.Fatalf("spec: exit %d: %s", r.code, r.err)
	}
	sp, err := spec.Parse([]byte(r.out))
	if err != nil {
		t.Fatalf("printed spec does not parse: %v\n%s", err, r.out)
	}
	cfg, ok := sp.Workloads[0].Config.(*spec.PubSub)
	if !ok || cfg.Pubs != 2 || cfg.Subs != 3 || cfg.Size != 32 || sp.Workloads[0].Pacing.Msgs != 3000 || sp.Target.Servers[0] != s.ClientURL() {
		t.Fatalf("spec does not hold the command line:\n%s", r.out)
	}
	if n := s.NumClients(); n != 0 {
		t.Fatalf("natsperf spec connected %d clients: it must run nothing", n)
	}
	path := filepath.Join(t.TempDir(), "run.yaml")
	if err := os.WriteFile(path, []byte(r.out), 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Varz(nil)
	fromSpec, rr := runJSON(context.Background(), t, "run", path, "--no-progress")
	after, _ := s.Varz(nil)
	if rr.code != 0 || fromSpec.Command != "pubsub" {
		t.Fatalf("run SPEC: exit %d, command %q: %s", rr.code, fromSpec.Command, rr.err)
	}
	pub, sub := group(t, fromSpec, "pub").Aggregate, group(t, fromSpec, "sub").Aggregate
	if pub.Msgs != 3000 || sub.Msgs != 9000 || after.InMsgs-before.InMsgs < 3000 || after.OutMsgs-before.OutMsgs < 9000 {
		t.Fatalf("pub %d sub %d; the server saw %d in, %d out", pub.Msgs, sub.Msgs, after.InMsgs-before.InMsgs, after.OutMsgs-before.OutMsgs)
	}
	direct, dr := runJSON(context.Background(), t, append(args, "--no-progress")...)
	if dr.code != 0 {
		t.Fatalf("command: exit %d: %s", dr.code, dr.err)
	}
	if !bytes.Equal(direct.Settings, fromSpec.Settings) {
		t.Fatalf("settings differ:\ncommand %s\nspec    %s", direct.Settings, fromSpec.Settings)
	}
}

// TestSpecJSONAndRefusals: --json prints JSON; commands that build no Spec yet and bad Spec
// files are refused with exit 2 before anything is created.
func TestSpecJSONAndRefusals(t *testing.T) {
	s := startServer(t, nil)
	r := run(context.Background(), t, nil, "spec", "pub", "foo", "--json", "--password", "hush", "-s", s.ClientURL())
	var m map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.out), &m) != nil || strings.Contains(r.out, "hush") || !strings.Contains(r.out, spec.Redacted) {
		t.Fatalf("spec --json: exit %d, want JSON with the password redacted:\n%s", r.code, r.out)
	}
	r = run(context.Background(), t, nil, "spec", "pub", "foo", "-s", "nats://u:hush@127.0.0.1:4222")
	if r.code != 0 || strings.Contains(r.out, "hush") || !strings.Contains(r.out, "user: u") || !strings.Contains(r.out, "- nats://127.0.0.1:4222") {
		t.Fatalf("spec with credentials in the URL: exit %d, want them moved out and redacted:\n%s%s", r.code, r.out, r.err)
	}
	r = run(context.Background(), t, nil, "spec", "service", "request", "foo", "--ack-timeout", "2s")
	if r.code != 0 || !strings.Contains(r.out, "timeout: 2s") {
		t.Fatalf("service request --ack-timeout (the --timeout alias) is not in the Spec: exit %d\n%s%s", r.code, r.out, r.err)
	}
	r = run(context.Background(), t, nil, "spec", "server", "-s", s.ClientURL())
	if r.code != exitUsage || !strings.Contains(r.err, "builds no Spec") || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
		t.Fatalf("spec server: exit %d, stderr %q", r.code, r.err)
	}
	if jsz, err := s.Jsz(nil); err != nil || jsz.Streams != 0 {
		t.Fatalf("a refused spec created streams: %+v %v", jsz, err)
	}
	dir := t.TempDir()
	for name, body := range map[string]string{
		"unknown field": "version: natsperf.spec/v1\nworkloads:\n  - kind: pub\n    config: {subject: foo, sizee: 1}\n",
		"secret":        "version: natsperf.spec/v1\ntarget: {password: x}\nworkloads:\n  - kind: pub\n    config: {subject: foo}\n",
		"wrong version": "version: natsperf.spec/v9\nworkloads: []\n",
		"bad js kind":   "version: natsperf.spec/v1\ntarget: {servers: [" + s.ClientURL() + "]}\nworkloads:\n  - kind: pubsub\n    config: {subject: foo, js: {consumer_kind: x}}\n",
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".yaml")
		if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		r := run(context.Background(), t, nil, "run", path)
		if r.code != exitUsage || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
			t.Errorf("%s: exit %d, stderr %q; want one line and exit 2", name, r.code, r.err)
		}
	}
}

// TestSpecServerFlagWins: 'natsperf run SPEC -s URL' runs against URL, as a scenario's -s wins
// over its file's target; it used to be ignored silently, and the run went to the Spec's
// servers (here one nothing listens on) or its embedded server.
func TestSpecServerFlagWins(t *testing.T) {
	s := startServer(t, nil)
	path := filepath.Join(t.TempDir(), "run.yaml")
	body := "version: natsperf.spec/v1\ntarget: {servers: [nats://127.0.0.1:1], connect_timeout: 1s}\nworkloads:\n  - kind: pub\n    config: {subject: spec.flag}\n    pacing: {msgs: 500}\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	before, _ := s.Varz(nil)
	res, r := runJSON(context.Background(), t, "run", path, "-s", s.ClientURL(), "--no-progress")
	after := varzAtLeast(t, s, before.InMsgs+500)
	if r.code != 0 || group(t, res, "pub").Aggregate.Msgs != 500 || after.InMsgs-before.InMsgs < 500 {
		t.Fatalf("run SPEC -s: exit %d, server saw %d in: %s", r.code, after.InMsgs-before.InMsgs, r.err)
	}
	embedded := "version: natsperf.spec/v1\ntarget: {embedded: {nodes: 1}}\nworkloads:\n  - kind: pub\n    config: {subject: spec.flag}\n    pacing: {msgs: 300}\n"
	if err := os.WriteFile(path, []byte(embedded), 0o600); err != nil {
		t.Fatal(err)
	}
	before = after
	res, r = runJSON(context.Background(), t, "run", path, "-s", s.ClientURL(), "--no-progress")
	after = varzAtLeast(t, s, before.InMsgs+300)
	if r.code != 0 || group(t, res, "pub").Aggregate.Msgs != 300 || after.InMsgs-before.InMsgs < 300 {
		t.Fatalf("run SPEC (embedded target) -s: exit %d, server saw %d in: %s", r.code, after.InMsgs-before.InMsgs, r.err)
	}
}

// varzAtLeast waits until /varz counts want messages in, then returns it: the server adds a
// connection's counts to its own after parsing the read buffer, so the publisher's flush (PONG)
// can reach the client a moment before /varz shows the messages in front of it.
func varzAtLeast(t *testing.T, s *server.Server, want int64) *server.Varz {
	t.Helper()
	var v *server.Varz
	natstest.WaitFor(t, 5*time.Second, "/varz in_msgs to reach the published count", func() bool {
		v, _ = s.Varz(nil)
		return v.InMsgs >= want
	})
	return v
}
