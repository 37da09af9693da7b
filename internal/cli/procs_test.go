package cli

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/procs"
)

// releaseBin is a nats-server release from $NATSPERF_SERVER_BINARIES (default
// ~/.cache/natsperf/nats-server); skipped without one, failed when $CI is set.
func releaseBin(t *testing.T, versions ...string) (string, string) {
	t.Helper()
	for _, v := range versions {
		if p := procs.Cached(os.Getenv, v); p != "" {
			return p, v
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("no nats-server %v (CI builds them)", versions)
	}
	t.Skipf("no nats-server %v", versions)
	return "", ""
}

// storeOf is the store a "using nats-server ... processes" line names.
var storeOf = regexp.MustCompile(`processes \(JetStream.*, store (\S+)`)

// TestServerProcessesFailover is the command: R3 js pub async on three nats-server
// processes, the stream leader SIGKILLed at 2s and restarted at 4s, --verify. Nothing
// acknowledged is lost, the Result lists the three nodes with version, process and binary,
// and no process or store is left after the command.
func TestServerProcessesFailover(t *testing.T) {
	if testing.Short() {
		t.Skip("a 3-process failover run takes about 12s")
	}
	bin, version := releaseBin(t, "v2.15.3", "v2.14.10")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, r := runJSON(ctx, t, "js", "pub", "async", "procs.t", "--create", "--replicas", "3", "--server-bin", bin, "--cluster", "3",
		"--verify", "--fault", "2s:kill-leader", "--fault", "4s:restart", "--rate", "500", "--duration", "8s", "--ack-timeout", "1s")
	// 5: nothing lost, but an election on a busy host can outlast the run (4-9s after a SIGKILL)
	if r.code != 0 && r.code != exitUnrecovered {
		t.Fatalf("exit %d, stderr %s", r.code, r.err)
	}
	if len(res.Servers) != 3 {
		t.Fatalf("%d servers in the Result, want 3: %+v", len(res.Servers), res.Servers)
	}
	for _, s := range res.Servers {
		if !s.Process || s.Binary != bin || "v"+s.Version != version || !strings.HasPrefix(s.Name, "natsperf-n") || s.Options["jetstream.max_file_store"] == nil {
			t.Errorf("server %+v: want a %s process of %s with its options", s, version, bin)
		}
	}
	if res.Faults == nil || len(res.Faults.Timeline) < 2 || res.Faults.Timeline[0].Node == "" || res.Faults.Timeline[0].Error != "" {
		t.Fatalf("fault timeline %+v", res.Faults)
	}
	if v := res.Verify; v == nil || v.AckedButMissing != 0 || v.Acked == 0 || v.Stored < v.Acked {
		t.Fatalf("verify %+v: want every acknowledged message stored", v)
	}
	m := storeOf.FindStringSubmatch(r.err)
	if m == nil {
		t.Fatalf("no store named in %q", r.err)
	}
	store := strings.TrimSuffix(m[1], ",")
	if _, err := os.Stat(store); !os.IsNotExist(err) {
		t.Errorf("store %s left after the command: %v", store, err)
	}
	if pids := processesNaming(store); len(pids) > 0 {
		t.Errorf("processes %v still run from %s", pids, store)
	}
}

// processesNaming lists the processes whose command line names dir.
func processesNaming(dir string) []string {
	var out []string
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range cmdlines {
		b, err := os.ReadFile(p)
		if err == nil && strings.Contains(string(b), dir+"/") {
			out = append(out, filepath.Base(filepath.Dir(p)))
		}
	}
	return out
}

// TestServerProcessFlagsRefused: the process flags are refused where they cannot act, before
// anything starts.
func TestServerProcessFlagsRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"pub", "x", "-s", "nats://127.0.0.1:1", "--server-bin", "/bin/true"}, "a server given with -s"},
		{[]string{"pub", "x", "--server-bin", "/bin/true", "--server-version", "v2.12.15"}, "exclude each other"},
		{[]string{"pub", "x", "--server-version", "2.12"}, "release tag"},
		{[]string{"pub", "x", "--cluster", "12"}, "1..9"},
		{[]string{"pub", "x", "--server-version", "v2.12.15", "--js-encryption", "aes"}, "not yet"},
		{[]string{"js", "pub", "async", "x", "--replicas", "3", "--server-bin", "/bin/true", "--link-delay", "1ms"}, "not yet on nats-server processes"},
		{[]string{"server", "--server-bin", "/bin/true", "--cluster", "3", "--zones", "3", "--zone-delay", "1ms"}, "not yet on nats-server processes"},
	} {
		r := run(ctx, t, nil, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.err, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, r.code, r.err, exitUsage, tc.want)
		}
	}
}

// TestServerCommandProcess: natsperf server --server-bin runs that binary until Ctrl-C, and a
// client meets that release; nothing runs after it stops.
func TestServerCommandProcess(t *testing.T) {
	bin, version := releaseBin(t, "v2.12.15", "v2.15.3", "v2.14.10")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"server", "--server-bin", bin, "--port", "0", "--sync-interval", "always"}, Streams{Out: &out, Err: &errb,
			Env: connect.Env{Getenv: func(string) string { return "" }, Home: t.TempDir()}})
	}()
	connectWith := regexp.MustCompile(`Connect with: -s (\S+)`)
	natstest.WaitFor(t, time.Minute, "the server to run", func() bool { return connectWith.MatchString(out.String()) })
	nc, err := nats.Connect(connectWith.FindStringSubmatch(out.String())[1])
	if err != nil {
		t.Fatal(err)
	}
	if got := "v" + nc.ConnectedServerVersion(); got != version {
		t.Errorf("connected to %s, want %s", got, version)
	}
	nc.Close()
	// --sync-interval reached the process's config: the server's own /varz says so.
	if m := regexp.MustCompile(`Monitoring: (\S+)`).FindStringSubmatch(out.String()); m == nil {
		t.Errorf("no monitoring URL in %q", out.String())
	} else {
		var varz struct {
			JetStream struct {
				Config struct {
					SyncAlways bool `json:"sync_always"`
				} `json:"config"`
			} `json:"jetstream"`
		}
		resp, err := http.Get(m[1])
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&varz)
		resp.Body.Close()
		if err != nil || !varz.JetStream.Config.SyncAlways {
			t.Errorf("/varz: sync_always %v (err %v), want true for --sync-interval always", varz.JetStream.Config.SyncAlways, err)
		}
	}
	store := storeOf.FindStringSubmatch(out.String())
	cancel()
	select {
	case code := <-done:
		if code != 0 || !strings.Contains(out.String(), "Stopping") {
			t.Fatalf("exit %d, out %q, err %q", code, out.String(), errb.String())
		}
	case <-time.After(time.Minute):
		t.Fatal("natsperf server did not stop")
	}
	if store == nil {
		t.Fatalf("no store named in %q", out.String())
	}
	if pids := processesNaming(strings.TrimSuffix(store[1], ",")); len(pids) > 0 {
		t.Errorf("processes %v still run", pids)
	}
}
