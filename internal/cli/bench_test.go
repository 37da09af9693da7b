package cli

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/report"
)

// TestBenchOldSyntax: 'natsperf bench SUBJECT --pub N --sub M' (older nats bench) runs pubsub,
// and --csv writes nats bench's per-client CSV whose publisher rows add up to what the server
// received.
func TestBenchOldSyntax(t *testing.T) {
	s := startServer(t, nil)
	// The reference: a subscription of the test's own counts what reached the server on foo.
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var seen atomic.Int64
	if _, err := nc.Subscribe("foo", func(*nats.Msg) { seen.Add(1) }); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "bench.csv")
	res, r := runJSON(context.Background(), t, "bench", "foo", "-s", s.ClientURL(), "--pub", "2", "--sub", "1", "--msgs", "1000", "--size", "16", "--csv", file)
	if r.code != 0 || res.Command != "pubsub" || !strings.Contains(r.err, "running 'natsperf pubsub foo --pub 2 --sub 1") {
		t.Fatalf("exit %d, command %q, stderr %s", r.code, res.Command, r.err)
	}
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 4 || !slices.Equal(rows[0], report.BenchCSVHeader) {
		t.Fatalf("csv %v", rows)
	}
	var ids []string
	var published int
	for _, row := range rows[1:] {
		ids = append(ids, row[1])
		if row[0] != rows[1][0] || row[0] == "" {
			t.Errorf("run ids differ or are empty: %v", rows)
		}
		if strings.HasPrefix(row[1], "P") {
			published += atoi(t, row[2])
			if atoi(t, row[3]) != 16*atoi(t, row[2]) {
				t.Errorf("row %v: MsgBytes is not 16 x MsgCount", row)
			}
		}
	}
	natstest.Eventually(t, 10*time.Second, 10*time.Millisecond, func() error {
		if n := seen.Load(); n < int64(published) {
			return fmt.Errorf("the server delivered %d of the %d messages published", n, published)
		}
		return nil
	})
	if !slices.Equal(ids, []string{"S0", "P0", "P1"}) || int64(published) != seen.Load() || atoi(t, rows[1][2]) != int(seen.Load()) {
		t.Fatalf("client ids %v, publishers' MsgCount %d, subscriber's %s, seen on the server %d", ids, published, rows[1][2], seen.Load())
	}
}

// TestBenchOldJetStream: --js with nats bench's flag names maps onto pubsub --js; the stream
// holds what the publishers sent.
func TestBenchOldJetStream(t *testing.T) {
	s := startServer(t, func(o *server.Options) { o.JetStream = true; o.StoreDir = t.TempDir() })
	res, r := runJSON(context.Background(), t, "bench", "bar", "-s", s.ClientURL(), "--js", "--pub", "1", "--sub", "2",
		"--msgs", "500", "--size", "32", "--pubbatch", "50", "--storage", "memory", "--purge", "--jstimeout", "10s")
	if r.code != 0 || res.Command != "pubsub" {
		t.Fatalf("exit %d, command %q, stderr %s", r.code, res.Command, r.err)
	}
	if got := group(t, res, "sub").Aggregate.Msgs; got != 1000 {
		t.Fatalf("2 ordered consumers received %d, want 2 x 500", got)
	}
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	jsc, _ := jetstream.New(nc)
	st, err := jsc.Stream(context.Background(), "benchstream")
	if err != nil {
		t.Fatal(err)
	}
	if info := st.CachedInfo(); info.State.Msgs != 500 || info.Config.Storage != jetstream.MemoryStorage {
		t.Fatalf("benchstream holds %d msgs (%v), want 500 in memory", info.State.Msgs, info.Config.Storage)
	}
}

// TestBenchOldSyntaxRefusals: what cannot be mapped is one line, exit 2, saying what to do.
func TestBenchOldSyntaxRefusals(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "foo"}, "--pub 1"},
		{[]string{"bench", "foo", "--sub", "1", "--payload", "x"}, "does not apply to 'natsperf sub'"},
		{[]string{"bench", "foo", "--sub", "1", "--header", "a:b"}, "does not apply to 'natsperf sub'"},
		{[]string{"bench", "foo", "--pub", "1", "--sub", "1", "--request"}, "service serve"},
		{[]string{"bench", "foo", "--pub", "1", "--pull"}, "--js"},
		{[]string{"bench", "foo", "--pub", "1", "--history", "2"}, "does not apply to 'natsperf pub'"},
	} {
		r := run(context.Background(), t, nil, tc.args...)
		if r.code != exitUsage || strings.Count(strings.TrimSpace(r.err), "\n") != 0 || !strings.Contains(r.err, tc.want) {
			t.Errorf("natsperf %s: exit %d, stderr %q, want one line with %q", strings.Join(tc.args, " "), r.code, r.err, tc.want)
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	for _, c := range s {
		if c < '0' || c > '9' {
			t.Fatalf("%q is not a count", s)
		}
		n = n*10 + int(c-'0')
	}
	return n
}

// TestNatsBenchFlagNames: nats bench's spellings work on natsperf's own commands.
func TestNatsBenchFlagNames(t *testing.T) {
	s := startServer(t, nil)
	res, r := runJSON(context.Background(), t, "pub", "nb", "-s", s.ClientURL(), "--msgs", "100", "--multisubject", "--multisubjectmax", "7", "--pubsleep", "1us", "--progress=false")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	var set struct {
		Workload struct {
			MultiSubjectMax int `json:"multisubject_max"`
			Sleep           int64
		} `json:"workload"`
	}
	if err := json.Unmarshal(res.Settings, &set); err != nil {
		t.Fatal(err)
	}
	if set.Workload.MultiSubjectMax != 7 || set.Workload.Sleep != 1000 {
		t.Fatalf("--multisubjectmax 7 --pubsleep 1us became %+v", set.Workload)
	}
}
