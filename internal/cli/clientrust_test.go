//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/agentproto"
	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/proctest"
	"github.com/natsperf/natsperf/internal/rustbin"
	"github.com/natsperf/natsperf/result"
)

// rustBinary is natsperf-rust built in this repository (or on PATH), or the test is skipped
// with the reason.
func rustBinary(t *testing.T) string {
	t.Helper()
	p, err := rustbin.ForTests(filepath.Join("..", ".."))
	if err != nil {
		t.Skipf("--client rust needs the Rust client: %v", err)
	}
	return p
}

// rustOnPath finds natsperf-rust and puts its directory first on PATH, where a scenario's rust
// cells (which take no --client-bin) look for it.
func rustOnPath(t *testing.T) {
	t.Helper()
	bin := rustBinary(t)
	t.Setenv("PATH", filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// rustRun runs natsperf in process with --json and returns its Result.
func rustRun(t *testing.T, args ...string) *result.Result {
	t.Helper()
	res, _ := runJSON(context.Background(), t, args...)
	return res
}

func serverIn(t *testing.T, s *server.Server) int64 {
	t.Helper()
	v, err := s.Varz(nil)
	if err != nil {
		t.Fatal(err)
	}
	return v.InMsgs
}

// rustClientCounts sums the server's counts over natsperf-rust's client connections (open or
// closed): messages they published (in) and the server delivered to them (out).
func rustClientCounts(t *testing.T, s *server.Server) (in, out int64) {
	t.Helper()
	cz, err := s.Connz(&server.ConnzOptions{State: server.ConnAll, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cz.Conns {
		if strings.HasPrefix(c.Name, "natsperf-rust-") {
			in += c.InMsgs
			out += c.OutMsgs
		}
	}
	return in, out
}

// subscribers counts the server's subscriptions on subject (natsperf-rust's receivers once
// they are ready).
func subscribers(t *testing.T, s *server.Server, subject string) int {
	t.Helper()
	cz, err := s.Connz(&server.ConnzOptions{Subscriptions: true, Limit: 1000})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, c := range cz.Conns {
		for _, sub := range c.Subs {
			if sub == subject {
				n++
			}
		}
	}
	return n
}

// checkRustClients fails unless every client of every group measured through async-nats.
func checkRustClients(t *testing.T, res *result.Result) {
	t.Helper()
	if got := res.Libraries(); got != "async-nats" {
		t.Fatalf("client libraries %q, want async-nats", got)
	}
	if res.Distributed == nil || len(res.Distributed.Agents) != 1 || res.Distributed.Agents[0].Client != "rust" {
		t.Fatalf("distributed %+v: want one rust agent", res.Distributed)
	}
}

// TestClientRustPubSubCountsMatchServer: `natsperf sub --client rust` (2 subscribers) and
// `natsperf pub --client rust` (3 publishers) each start a natsperf-rust agent and run through
// it; the counts agree with the server's own per-connection counts, nothing is lost or
// duplicated, and the Results name async-nats.
func TestClientRustPubSubCountsMatchServer(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	const n = 6000
	url := s.ClientURL()
	subRes := make(chan *result.Result, 1)
	go func() {
		subRes <- rustRun(t, "sub", "x.client", "-s", url, "--client", "rust", "--client-bin", bin,
			"--clients", "2", "--msgs", strconv.Itoa(n), "--idle-timeout", "20s")
	}()
	natstest.WaitFor(t, 60*time.Second, "2 Rust subscribers", func() bool { return subscribers(t, s, "x.client") == 2 })
	pub := rustRun(t, "pub", "x.client", "-s", url, "--client", "rust", "--client-bin", bin,
		"--clients", "3", "--msgs", strconv.Itoa(n), "--size", "64")
	sub := awaitResult(t, subRes, "the Rust subscribers")
	checkRustClients(t, pub)
	checkRustClients(t, sub)
	if pub.Stop.Reason != result.StopCompleted || sub.Stop.Reason != result.StopCompleted {
		t.Fatalf("stop: pub %q, sub %q", pub.Stop.Reason, sub.Stop.Reason)
	}
	in, out := rustClientCounts(t, s)
	if got := pub.Groups[0].Aggregate.Msgs; got != n || in != n {
		t.Fatalf("pub counted %d, the server %d messages from natsperf-rust's clients, want %d", got, in, n)
	}
	if len(pub.Groups[0].Clients) != 3 {
		t.Fatalf("pub: %d clients, want 3", len(pub.Groups[0].Clients))
	}
	sg := sub.Groups[0]
	if sg.Aggregate.Msgs != 2*n || out != 2*n {
		t.Fatalf("sub counted %d, the server delivered %d to natsperf-rust's clients, want %d", sg.Aggregate.Msgs, out, 2*n)
	}
	if c := sg.Aggregate.Correctness; c == nil || c.Lost != 0 || c.Duplicated != 0 || c.Publishers != 3 || c.Received != 2*n {
		t.Fatalf("sub correctness %+v: want %d received from 3 publishers, nothing lost or duplicated", sg.Aggregate.Correctness, 2*n)
	}
}

// rustChild is the pid of the newest natsperf-rust process this test process started
// (natsperf's --client rust agent) that still runs (an earlier run's may linger as a zombie),
// 0 when there is none yet.
func rustChild(t *testing.T) int {
	t.Helper()
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	newest := 0
	for _, d := range dirs {
		stat, err := os.ReadFile(filepath.Join(d, "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...
		s := string(stat)
		end := strings.LastIndexByte(s, ')')
		if end < 0 || !strings.Contains(s[:end], "natsperf-rust") {
			continue
		}
		f := strings.Fields(s[end+1:])
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(os.Getpid()) {
			if pid, _ := strconv.Atoi(filepath.Base(d)); pid > newest {
				newest = pid
			}
		}
	}
	return newest
}

// TestClientRustLatencyStallShowsInCorrectedLatency: `natsperf latency --client rust` at a
// fixed rate, its natsperf-rust agent frozen (SIGSTOP) for 300 ms mid-run: the corrected
// latency exceeds the uncorrected one by the stall's lateness (the means-based check of
// TestRustPublisherStallShowsInCorrectedLatency, which a loaded machine cannot fake).
func TestClientRustLatencyStallShowsInCorrectedLatency(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	const rate, secs, stall = 1000, 3, 300 * time.Millisecond
	in0 := serverIn(t, s)
	done := make(chan *result.Result, 1)
	go func() {
		done <- rustRun(t, "latency", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin,
			"--rate", strconv.Itoa(rate), "--duration", strconv.Itoa(secs)+"s", "--size", "64")
	}()
	natstest.WaitFor(t, 60*time.Second, "300 latency messages", func() bool { return serverIn(t, s)-in0 >= 300 })
	pid := rustChild(t)
	if pid == 0 {
		t.Fatal("no natsperf-rust child found")
	}
	freeze(t, pid, stall)
	res := awaitResult(t, done, "latency --client rust")
	checkRustClients(t, res)
	var l *result.Latency
	for _, g := range res.Groups {
		if g.Aggregate.Latency != nil && g.Aggregate.Latency.Uncorrected != nil {
			l = g.Aggregate.Latency
		}
	}
	if l == nil {
		t.Fatalf("no corrected latency with an uncorrected part in %+v", res.Groups)
	}
	lateness := time.Duration(l.Mean - l.Uncorrected.Mean)
	want := time.Duration(rate * stall.Seconds() * float64(stall) / 2 / float64(l.Count))
	if lateness < want*2/3 {
		t.Fatalf("corrected mean %v exceeds the uncorrected %v by %v: the stall's lateness (about %v) is missing",
			time.Duration(l.Mean), time.Duration(l.Uncorrected.Mean), lateness, want)
	}
	t.Logf("%d samples, corrected P99 %v max %v, mean lateness %v (stall alone: %v)", l.Count,
		time.Duration(histo.At(l, 99)), time.Duration(l.Max), lateness, want)
}

// TestClientRustRefusals: a kind natsperf-rust does not run, a bad --client, --client-bin
// without rust or naming nothing are bad input (exit 2, one line); no binary to be found
// says how to build it.
func TestClientRustRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"pub", "foo", "--client", "java"}, 2, "--client must be go or rust"},
		{[]string{"pub", "foo", "--client-bin", "/x"}, 2, "--client-bin is for --client rust"},
		{[]string{"pub", "foo", "--client", "rust", "--client-bin", filepath.Join(t.TempDir(), "none")}, 2, "no such file"},
		{[]string{"js", "pub", "batch", "foo", "--client", "rust"}, 2, "unknown flag: --client"},
	} {
		r := run(context.Background(), t, nil, c.args...)
		code, msg := r.code, strings.TrimSpace(r.err)
		if code != c.code || !strings.Contains(msg, c.want) || strings.Count(msg, "\n") > 0 {
			t.Errorf("natsperf %s: exit %d, stderr %q; want exit %d and one line with %q", strings.Join(c.args, " "), code, msg, c.code, c.want)
		}
	}
}

// TestClientRustMissingBinary: with no natsperf-rust next to natsperf, on PATH or under
// clients/rust/target/release (the test's working directory has none), --client rust fails
// before anything runs and says how to build it.
func TestClientRustMissingBinary(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	t.Chdir(t.TempDir())
	r := run(context.Background(), t, nil, "pub", "foo", "--client", "rust", "--msgs", "10")
	if r.code != 1 || !strings.Contains(r.err, "cargo build --release") {
		t.Fatalf("exit %d, stderr %q: want exit 1 and how to build natsperf-rust", r.code, r.err)
	}
}

// TestClientRustRefusesWhatItDoesNotRun: an option natsperf-rust does not implement is
// refused by its agent before anything runs (the prepare's 400), as bad input in one line.
func TestClientRustRefusesWhatItDoesNotRun(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	r := run(context.Background(), t, nil, "pub", "foo", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin, "--sleep", "1ms", "--msgs", "10")
	if r.code != 2 || !strings.Contains(r.err, "--sleep") || !strings.Contains(r.err, "--client go") {
		t.Fatalf("exit %d, stderr %q: want exit 2 naming --sleep and --client go", r.code, r.err)
	}
	if in := serverIn(t, s); in > 200 { // control traffic only: no benchmark message was sent
		t.Fatalf("the server saw %d messages: the refused run published", in)
	}
}

// TestRustAgentSpeaksTheProtocol: a natsperf-rust agent is found by the Go coordinator's
// discovery (micro INFO) with client=rust and async-nats's version, answers micro PING and
// STATS and the clock endpoint, refuses another protocol with 426 (micro's error headers and
// the JSON body) and a part with no clients with 400, and a stop of a run it does not have is ok.
func TestRustAgentSpeaksTheProtocol(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	proctest.StartRustAgents(t, bin, s.ClientURL(), "natsperf-run=proto", 1)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	found := proctest.WaitForAgents(t, nc, 1)
	a := found[0]
	if a.Client != "rust" || a.Protocol != agentproto.Protocol || a.Labels["natsperf-run"] != "proto" || a.Labels["client"] != "rust" {
		t.Fatalf("agent %+v: want client rust, protocol %s and its labels", a, agentproto.Protocol)
	}
	for _, verb := range []string{"PING", "STATS"} {
		m, err := nc.Request("$SRV."+verb+"."+agentproto.ServiceName+"."+a.ID, nil, 5*time.Second)
		if err != nil || !strings.Contains(string(m.Data), a.ID) {
			t.Fatalf("$SRV.%s: %v %s", verb, err, m.Data)
		}
	}
	subject := func(ep string) string { return "natsperf.agent." + a.ID + "." + ep }
	before := time.Now().UnixNano()
	m, err := nc.Request(subject("clock"), []byte("{}"), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var clock agentproto.ClockReply
	if err := json.Unmarshal(m.Data, &clock); err != nil || clock.NowNS < before || clock.NowNS > time.Now().UnixNano() {
		t.Fatalf("clock %s (%v): not between the request and the reply", m.Data, err)
	}
	refused := func(body, code, want string) {
		t.Helper()
		m, err := nc.Request(subject("prepare"), []byte(body), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var e agentproto.ErrorReply
		_ = json.Unmarshal(m.Data, &e)
		if m.Header.Get("Nats-Service-Error-Code") != code || e.Code != code || !strings.Contains(e.Error, want) || m.Header.Get("Nats-Service-Error") != e.Error {
			t.Fatalf("prepare %s: headers %v, body %s; want code %s with %q", body, m.Header, m.Data, code, want)
		}
	}
	spec := `{"version":"natsperf.spec/v1","workloads":[{"kind":"pub","clients":2,"config":{"subject":"foo"}}]}`
	refused(`{"protocol":"natsperf.agent/v2","version":"x","run":"R1","spec":`+spec+`,"part":{"index":0,"count":1}}`, "426", "natsperf.agent/v1")
	refused(`{"protocol":"natsperf.agent/v1","version":"x","run":"R1","spec":`+spec+`,"part":{"index":0,"count":3}}`, "400", "no clients")
	m, err = nc.Request(subject("stop"), []byte(`{"run":"nothing"}`), 5*time.Second)
	if err != nil || string(m.Data) != `{"ok":true}` {
		t.Fatalf("stop of an unknown run: %v %s", err, m.Data)
	}
}

// madeStream is the state of the stream natsperf made for a run.
func madeStream(t *testing.T, url, name string) *jetstream.StreamInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := natstest.JetStream(t, url).Stream(ctx, name)
	if err != nil {
		t.Fatalf("the stream natsperf made for the run: %v", err)
	}
	return st.CachedInfo()
}

// TestClientRustJSPubAsync: `natsperf js pub async --client rust` makes the stream here (the
// Spec's setup), the Rust agent publishes into it, and the acknowledged count is what the
// stream holds.
func TestClientRustJSPubAsync(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	const n = 4000
	res := rustRun(t, "js", "pub", "async", "jsc.async", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin,
		"--stream", "RUSTCLIENT", "--storage", "memory", "--msgs", strconv.Itoa(n), "--clients", "2", "--batch", "100", "--size", "64")
	checkRustClients(t, res)
	info := madeStream(t, s.ClientURL(), "RUSTCLIENT")
	if g := res.Groups[0]; res.Stop.Reason != result.StopCompleted || g.Aggregate.Msgs != n || info.State.Msgs != n {
		t.Fatalf("stop %q, acked %d, stream holds %d: want %d each", res.Stop.Reason, g.Aggregate.Msgs, info.State.Msgs, n)
	}
}

// TestClientRustJSPubSync: `natsperf js pub sync --client rust` publishes one message at a time
// through async-nats, each acknowledged before the next: the stream holds exactly the acks the
// Result counts, every ack has its own publish-to-ack latency, and the group is the Go
// engine's synchronous publisher.
func TestClientRustJSPubSync(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	const n = 1500
	res := rustRun(t, "js", "pub", "sync", "jsc.sync", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin,
		"--stream", "RUSTSYNC", "--storage", "memory", "--msgs", strconv.Itoa(n), "--clients", "3", "--size", "64")
	checkRustClients(t, res)
	info := madeStream(t, s.ClientURL(), "RUSTSYNC")
	g := res.Groups[0]
	if res.Command != "js pub sync" || g.Kind != "JetStream synchronous publisher" || res.Stop.Reason != result.StopCompleted {
		t.Fatalf("command %q, group kind %q, stop %q", res.Command, g.Kind, res.Stop.Reason)
	}
	if g.Aggregate.Msgs != n || info.State.Msgs != n || g.Aggregate.Latency == nil || g.Aggregate.Latency.Count != n {
		t.Fatalf("acked %d, stream holds %d, latency %+v: want %d each", g.Aggregate.Msgs, info.State.Msgs, g.Aggregate.Latency, n)
	}
	// --batch is a window of outstanding acks: js pub sync has none, so natsperf-rust refuses it.
	out, err := exec.Command(bin, "js", "pub", "sync", "jsc.sync", "-s", s.ClientURL(), "--stream", "RUSTSYNC", "--batch", "10").CombinedOutput()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 2 || !strings.Contains(string(out), "--batch is for js pub async") {
		t.Fatalf("natsperf-rust js pub sync --batch: %v %s; want exit 2 naming js pub async", err, out)
	}
}

// TestClientRustMultiSubjectAndDedup: --multisubject through natsperf-rust publishes to
// SUBJECT.0 .. SUBJECT.(max-1) in turn, as nats.go's publisher does (a nats.go subscriber on
// SUBJECT.> counts each subject's share), and --dedup gives every stored message its own
// Nats-Msg-Id.
func TestClientRustMultiSubjectAndDedup(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var mu sync.Mutex
	per := map[string]int{}
	sub, err := nc.Subscribe("ms.>", func(m *nats.Msg) {
		mu.Lock()
		per[m.Subject]++
		mu.Unlock()
	})
	if err != nil {
		t.Fatal(err)
	}
	_ = sub.SetPendingLimits(-1, -1)
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	res := rustRun(t, "pub", "ms", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin, "--multisubject", "--multisubject-max", "7", "--msgs", "700")
	checkRustClients(t, res)
	natstest.WaitFor(t, 10*time.Second, "700 messages on ms.>", func() bool {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, c := range per {
			n += c
		}
		return n == 700
	})
	mu.Lock()
	for k := range 7 {
		if got := per["ms."+strconv.Itoa(k)]; got != 100 {
			t.Errorf("ms.%d got %d messages, want 100 (subjects %v)", k, got, per)
		}
	}
	mu.Unlock()

	const n = 50
	res = rustRun(t, "js", "pub", "sync", "dd", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin,
		"--stream", "RUSTDEDUP", "--storage", "memory", "--dedup", "--msgs", strconv.Itoa(n))
	checkRustClients(t, res)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := js.Stream(ctx, "RUSTDEDUP")
	if err != nil {
		t.Fatal(err)
	}
	ids := map[string]bool{}
	for seq := uint64(1); seq <= n; seq++ {
		m, err := st.GetMsg(ctx, seq)
		if err != nil {
			t.Fatalf("message %d: %v", seq, err)
		}
		id := m.Header.Get(jetstream.MsgIDHeader)
		if id == "" || ids[id] {
			t.Fatalf("message %d: Nats-Msg-Id %q (empty or seen before)", seq, id)
		}
		ids[id] = true
	}
}

// TestScenarioClientAxis: `client: [go, rust]` as a matrix axis, substituted into the
// workloads' --client: the go cell measures through nats.go, the rust cell through
// async-nats (a natsperf-rust agent), both count every message, and the Results name their
// library.
func TestScenarioClientAxis(t *testing.T) {
	rustOnPath(t)
	s := natstest.Server(t, nil)
	dir := t.TempDir()
	file := filepath.Join(dir, "clients.yaml")
	const n = 600
	yaml := `name: clients
matrix:
  client: [go, rust]
workloads:
  - name: sub
    command: sub axis.${client}
    flags: {client: "${client}", msgs: 600, size: 64, idle-timeout: 20s}
  - name: pub
    command: pub axis.${client}
    flags: {client: "${client}", msgs: 600, rate: 1000, size: 64}
`
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := run(context.Background(), t, nil, "run", file, "-o", out, "-s", s.ClientURL())
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	for client, lib := range map[string]string{"go": "nats.go", "rust": "async-nats"} {
		f, err := os.Open(filepath.Join(out, "00"+map[string]string{"go": "1", "rust": "2"}[client]+"-client-"+client+"-r1.json"))
		if err != nil {
			t.Fatal(err)
		}
		res, err := result.Read(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if res.Libraries() != lib || res.Stop.Reason != result.StopCompleted {
			t.Fatalf("client %s: libraries %q, stop %q; want %s, completed", client, res.Libraries(), res.Stop.Reason, lib)
		}
		for _, g := range res.Groups {
			if g.Aggregate.Msgs != n {
				t.Fatalf("client %s: group %s counted %d, want %d", client, g.Name, g.Aggregate.Msgs, n)
			}
		}
		if len(res.Groups) != 2 {
			t.Fatalf("client %s: groups %d, want sub and pub", client, len(res.Groups))
		}
	}
	if in, out := rustClientCounts(t, s); in != n || out != n {
		t.Fatalf("the server counted %d published and %d delivered by natsperf-rust's clients, want %d each", in, out, n)
	}
}

// TestAgentsChosenByClient: with a natsperf agent and a natsperf-rust agent on one control
// server, `--agents 1` runs a Go Spec on the Go agent and `--client rust --agents 1` on the
// Rust one: neither library's run lands on the other's agent (the Go agent sorts after the
// Rust one, so a run choosing by name alone would take the wrong one).
func TestAgentsChosenByClient(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	startGoAgent(t, "zz-go", s.ClientURL(), s.ClientURL())
	proctest.StartRustAgents(t, bin, s.ClientURL(), "natsperf-run=choose", 1)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	proctest.WaitForAgents(t, nc, 2)
	for _, client := range []string{"go", "rust"} {
		lib := map[string]string{"go": "nats.go", "rust": "async-nats"}[client]
		res := rustRun(t, "pub", "choose."+client, "-s", s.ClientURL(), "--client", client, "--agents", "1", "--msgs", "500", "--agents-wait", "20s")
		if res.Libraries() != lib || res.Stop.Reason != result.StopCompleted || res.Groups[0].Aggregate.Msgs != 500 {
			t.Fatalf("--client %s --agents 1: libraries %q, stop %q, %d msgs; want %s, completed, 500", client, res.Libraries(), res.Stop.Reason, res.Groups[0].Aggregate.Msgs, lib)
		}
		if a := res.Distributed.Agents[0]; a.Client != client {
			t.Fatalf("--client %s ran on agent %+v", client, a)
		}
	}
}

// TestClientRustInterrupted: Ctrl-C during `pub --client rust` stops the run with its partial
// Result (exit 130, stop interrupted, the messages sent so far counted as the server counted
// them) and leaves no natsperf-rust process behind.
func TestClientRustInterrupted(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan cliRun, 1)
	go func() {
		done <- run(ctx, t, nil, "pub", "int.rust", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin,
			"--rate", "1000", "--duration", "60s", "--size", "64", "--json")
	}()
	natstest.WaitFor(t, 60*time.Second, "200 messages", func() bool { in, _ := rustClientCounts(t, s); return in >= 200 })
	cancel()
	var r cliRun
	select {
	case r = <-done:
	case <-time.After(time.Minute):
		t.Fatal("natsperf did not end after the interrupt")
	}
	res, err := result.Read(strings.NewReader(r.out))
	if err != nil {
		t.Fatalf("exit %d, no Result: %v\n%s", r.code, err, r.err)
	}
	in, _ := rustClientCounts(t, s)
	if r.code != exitInterrupted || res.Stop.Reason != result.StopInterrupted || res.Groups[0].Aggregate.Msgs != in {
		t.Fatalf("exit %d, stop %q, %d msgs counted, the server %d: want 130, interrupted, equal counts", r.code, res.Stop.Reason, res.Groups[0].Aggregate.Msgs, in)
	}
	if pid := rustChild(t); pid != 0 {
		t.Fatalf("natsperf-rust (pid %d) still runs after the run", pid)
	}
}

// freeze stops process pid for d (SIGSTOP, then SIGCONT): an injected stall of the client.
func freeze(t *testing.T, pid int, d time.Duration) {
	t.Helper()
	if err := syscall.Kill(pid, syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(d) // the injected fault, not a synchronisation
	if err := syscall.Kill(pid, syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// awaitResult is the Result a run sends on done, failing the test when none comes within 2
// minutes.
func awaitResult(t *testing.T, done <-chan *result.Result, what string) *result.Result {
	t.Helper()
	select {
	case res := <-done:
		return res
	case <-time.After(2 * time.Minute):
		t.Fatalf("%s did not end", what)
		return nil
	}
}
