package rustclient

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/compare"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/result"
)

// delivered sums what the connections whose names start with prefix published (in) and were
// delivered (out), as the server counted.
func delivered(t *testing.T, s *server.Server, prefix string) (in, out int64) {
	t.Helper()
	cz, err := s.Connz(&server.ConnzOptions{State: server.ConnAll, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cz.Conns {
		if strings.HasPrefix(c.Name, prefix) {
			in += c.InMsgs
			out += c.OutMsgs
		}
	}
	return in, out
}

// TestGoAndRustPartsMerge: one Go publisher feeds two Go subscribers (natsperf) and two Rust
// subscribers (natsperf-rust) at once; the two processes' Results merge into one whose
// counts are exactly what the server delivered, with each client row naming its library,
// the parts naming their tools, and report and compare showing nats.go beside async-nats.
func TestGoAndRustPartsMerge(t *testing.T) {
	bin := rustBin(t)
	s := natstest.Server(t, nil)
	const n = 5000
	rust := startRust(t, bin, "sub", "x.mix", "-s", s.ClientURL(), "--msgs", strconv.Itoa(n), "--clients", "2", "--idle-timeout", "20s")
	rust.waitReady(t)
	subs0 := s.NumSubscriptions()
	goSub := make(chan *result.Result, 1)
	go func() {
		goSub <- runGo(context.Background(), t, "sub", "x.mix", "-s", s.ClientURL(), "--msgs", strconv.Itoa(n), "--clients", "2", "--idle-timeout", "20s")
	}()
	natstest.WaitFor(t, 30*time.Second, "the Go subscribers", func() bool { return s.NumSubscriptions() >= subs0+2 })
	runGo(context.Background(), t, "pub", "x.mix", "-s", s.ClientURL(), "--msgs", strconv.Itoa(n), "--size", "64")
	code, rres, _ := rust.wait(t)
	var gres *result.Result
	select {
	case gres = <-goSub:
	case <-time.After(2 * time.Minute):
		t.Fatal("the Go subscribers did not end")
	}
	if code != 0 || gres.Stop.Reason != result.StopCompleted {
		t.Fatalf("Rust exit %d, Go stop %+v", code, gres.Stop)
	}
	if c := gres.Groups[0].Client; c == nil || c.Library != "nats.go" || c.Version == "" {
		t.Fatalf("Go group client %+v, want nats.go and its version", c)
	}
	m, err := result.Merge(gres, rres)
	if err != nil {
		t.Fatalf("Merge refused a Go and a Rust part of one run: %v", err)
	}
	// The server's counts: a natsperf connection makes one request when it connects (one
	// message in, its reply out); the rest is the run's subject.
	pubIn, pubOut := delivered(t, s, "natsperf-pub-")
	goIn, goOut := delivered(t, s, "natsperf-sub-")
	_, rustOut := delivered(t, s, "natsperf-rust-")
	sent, goGot := pubIn-pubOut, goOut-goIn
	g := m.Groups[0]
	if sent != n || goGot != 2*n || rustOut != 2*n || g.Aggregate.Msgs != goGot+rustOut || len(g.Clients) != 4 {
		t.Fatalf("merged %d msgs over %d clients; server: %d published, %d delivered to Go and %d to Rust; want %d, %d each", g.Aggregate.Msgs, len(g.Clients), sent, goGot, rustOut, n, 2*n)
	}
	if c := g.Aggregate.Correctness; c == nil || c.Received != 4*n || c.Lost != 0 || c.Duplicated != 0 || c.Publishers != 1 ||
		len(c.PerPublisher) != 1 || c.PerPublisher[0].Distinct != 4*n || c.PerPublisher[0].Highest != n {
		t.Fatalf("merged correctness %+v", c)
	}
	if l := g.Aggregate.Latency; l == nil || l.Count != 4*n {
		t.Fatalf("merged latency %+v, want %d samples", l, 4*n)
	}
	if g.Client != nil {
		t.Fatalf("merged group names one library %+v for two", g.Client)
	}
	libs := []string{}
	for _, c := range g.Clients {
		if c.Client == nil {
			t.Fatalf("client %d names no library", c.ID)
		}
		libs = append(libs, c.Client.Library)
	}
	if strings.Join(libs, ",") != "nats.go,nats.go,async-nats,async-nats" {
		t.Fatalf("client rows' libraries %v", libs)
	}
	if len(m.Parts) != 2 || m.Parts[0].Tool.Name != "natsperf" || m.Parts[1].Tool.Name != "natsperf-rust" || m.Libraries() != "async-nats+nats.go" {
		t.Fatalf("parts %+v, libraries %q", m.Parts, m.Libraries())
	}
	doc, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	checkSchema(t, doc)
	var text bytes.Buffer
	if err := report.Text(&text, m); err != nil {
		t.Fatal(err)
	}
	// Rows name their part (the process) and their client library.
	if !strings.Contains(text.String(), "[1 part1] nats.go ") || !strings.Contains(text.String(), "[3 part2] async-nats ") {
		t.Fatalf("the text report does not label the rows by library:\n%s", text.String())
	}

	// Different versions of one tool still do not merge.
	other := *rres
	other.Tool.Version = "0.0.1-other"
	if _, err := result.Merge(rres, &other); err == nil || !strings.Contains(err.Error(), "natsperf-rust") {
		t.Fatalf("two natsperf-rust versions merged: %v", err)
	}

	// report and compare: a Go and a Rust run side by side.
	dir := t.TempDir()
	write := func(name string, r *result.Result) string {
		b, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	gp, rp := write("go.json", gres), write("rust.json", rres)
	set, err := report.Load([]string{gp, rp})
	if err != nil {
		t.Fatal(err)
	}
	if len(set.Axes) != 1 || set.Axes[0] != report.ClientAxis || set.Cells[0].Values["client"] != "nats.go" || set.Cells[1].Values["client"] != "async-nats" {
		t.Fatalf("report axes %v, cells %+v %+v: want a client column", set.Axes, set.Cells[0].Values, set.Cells[1].Values)
	}
	oldSet, err := report.Load([]string{gp})
	if err != nil {
		t.Fatal(err)
	}
	newSet, err := report.Load([]string{rp})
	if err != nil {
		t.Fatal(err)
	}
	var cmpOut bytes.Buffer
	if err := compare.Write(&cmpOut, compare.Compare(oldSet, newSet, -1)); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(cmpOut.String(), "(nats.go vs async-nats)") {
		t.Fatalf("compare does not say it compares two libraries:\n%s", cmpOut.String())
	}
}
