//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/agentproto"
	"github.com/natsperf/natsperf/internal/coord"
	"github.com/natsperf/natsperf/internal/live"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/proctest"
	"github.com/natsperf/natsperf/internal/version"
	"github.com/natsperf/natsperf/result"
)

// rustLive is what a hand-driven coordinator heard of one run of natsperf-rust agents: each
// agent's heartbeats and interval records (with when they arrived) and its Result.
type rustLive struct {
	mu        sync.Mutex
	beats     map[string][]agentproto.Heartbeat
	intervals map[string][]agentproto.Interval
	ivAt      map[string][]time.Time
	chunks    map[string][]byte
	results   map[string]*result.Result
	resultAt  map[string]time.Time
}

// startRustAgents starts n natsperf-rust agents on the server and returns them discovered, in
// the order of their ids.
func startRustAgents(t *testing.T, bin, url string, n int) []coord.Agent {
	t.Helper()
	label := fmt.Sprintf("natsperf-run=live%d", time.Now().UnixNano())
	proctest.StartRustAgents(t, bin, url, label, n)
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	return proctest.WaitForAgents(t, nc, n)
}

// runRustAgents runs spec on the agents as a coordinator would (part i on agent i, publisher
// ids from 4096, the given clock offsets, intervals asked for), hearing everything they
// publish, until every agent's Result is in.
func runRustAgents(t *testing.T, url string, agents []coord.Agent, spec string, offsets []int64) *rustLive {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	run := fmt.Sprintf("live%d", time.Now().UnixNano())
	live := &rustLive{beats: map[string][]agentproto.Heartbeat{}, intervals: map[string][]agentproto.Interval{},
		ivAt: map[string][]time.Time{}, chunks: map[string][]byte{}, results: map[string]*result.Result{}, resultAt: map[string]time.Time{}}
	sub, err := nc.Subscribe(agentproto.RunWildcard(run), func(m *nats.Msg) {
		live.mu.Lock()
		defer live.mu.Unlock()
		switch {
		case strings.HasSuffix(m.Subject, ".hb") && m.Subject != agentproto.CoordinatorBeat(run):
			var hb agentproto.Heartbeat
			if json.Unmarshal(m.Data, &hb) == nil {
				live.beats[hb.Agent] = append(live.beats[hb.Agent], hb)
			}
		case strings.HasSuffix(m.Subject, ".interval"):
			var iv agentproto.Interval
			if json.Unmarshal(m.Data, &iv) == nil {
				live.intervals[iv.Agent] = append(live.intervals[iv.Agent], iv)
				live.ivAt[iv.Agent] = append(live.ivAt[iv.Agent], time.Now())
			}
		case strings.HasSuffix(m.Subject, ".result"):
			var c agentproto.ResultChunk
			if json.Unmarshal(m.Data, &c) != nil {
				return
			}
			if c.Error != "" {
				t.Errorf("agent %s: %s", c.Agent, c.Error)
				live.results[c.Agent] = &result.Result{}
				return
			}
			live.chunks[c.Agent] = append(live.chunks[c.Agent], c.Data...)
			if c.Chunk == c.Chunks-1 {
				var r result.Result
				if err := json.Unmarshal(live.chunks[c.Agent], &r); err != nil {
					t.Errorf("agent %s: Result: %v", c.Agent, err)
				}
				live.results[c.Agent] = &r
				live.resultAt[c.Agent] = time.Now()
			}
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	done := make(chan struct{})
	defer close(done)
	go func() { // the coordinator's heartbeat, so the agents keep the run
		tick := time.NewTicker(500 * time.Millisecond)
		defer tick.Stop()
		for {
			b, _ := json.Marshal(agentproto.CoordinatorHeartbeat{Run: run, AtNS: time.Now().UnixNano()})
			_ = nc.Publish(agentproto.CoordinatorBeat(run), b)
			select {
			case <-done:
				return
			case <-tick.C:
			}
		}
	}()
	for i, a := range agents {
		p := agentproto.Prepare{Protocol: agentproto.Protocol, Version: version.Version, Run: run, Spec: json.RawMessage(spec),
			Part: agentproto.Part{Index: i, Count: len(agents)}, PublisherIDs: agentproto.PublisherIDs{Base: 4096},
			ClockOffsetsNS: offsets, Intervals: true}
		b, _ := json.Marshal(p)
		m, err := nc.Request(agentproto.Endpoint(a.ID, "prepare"), b, 30*time.Second)
		if err != nil || string(m.Data) != `{"ok":true}` {
			t.Fatalf("prepare part %d: %v %s", i, err, m.Data)
		}
	}
	at := time.Now().Add(300 * time.Millisecond).UnixNano()
	for _, a := range agents {
		b, _ := json.Marshal(agentproto.Start{Run: run, AtNS: at})
		if m, err := nc.Request(agentproto.Endpoint(a.ID, "start"), b, 10*time.Second); err != nil || string(m.Data) != `{"ok":true}` {
			t.Fatalf("start: %v", err)
		}
	}
	natstest.WaitFor(t, 90*time.Second, "every agent's Result", func() bool {
		live.mu.Lock()
		defer live.mu.Unlock()
		return len(live.results) == len(agents)
	})
	live.mu.Lock()
	defer live.mu.Unlock()
	return live
}

// TestRustAgentHeartbeatsCarryProgress: a natsperf-rust agent's heartbeats report its
// clients' messages as they go: never decreasing, at least one strictly between none and all
// (live, not only at the end), the last one the run's total, which is what the server
// counted from the agent's publishers. Before, msgs was always 0.
func TestRustAgentHeartbeatsCarryProgress(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	agents := startRustAgents(t, bin, s.ClientURL(), 1)
	// 2 publishers, 6000 messages at 2000/s: about 3 s, so several heartbeats mid-run.
	spec := `{"version":"natsperf.spec/v1","workloads":[{"kind":"pub","clients":2,"pacing":{"msgs":6000,"rate":2000},"config":{"subject":"live.hb","size":32}}]}`
	live := runRustAgents(t, s.ClientURL(), agents, spec, nil)
	id := agents[0].ID
	res, beats := live.results[id], live.beats[id]
	in, _ := rustClientCounts(t, s)
	if res.Stop.Reason != "completed" || res.Groups[0].Aggregate.Msgs != 6000 || in != 6000 {
		t.Fatalf("run %s, %d msgs, server counted %d in: want 6000 completed", res.Stop.Reason, res.Groups[0].Aggregate.Msgs, in)
	}
	var prev int64
	mid := 0
	for _, hb := range beats {
		if hb.Msgs < prev {
			t.Fatalf("heartbeats went back from %d to %d: %+v", prev, hb.Msgs, beats)
		}
		if hb.Msgs > 0 && hb.Msgs < in {
			mid++
		}
		prev = hb.Msgs
	}
	if mid == 0 || prev != in {
		t.Fatalf("heartbeats %+v: want some between 0 and %d and the last at %d", beats, in, in)
	}
}

// TestRustAgentStreamsIntervals: with prepare's intervals, a natsperf-rust agent publishes
// each client's closed intervals as they close (some before the run ended, all before its
// Result), labelled by client, adding up to the Result's counts and to the server's.
func TestRustAgentStreamsIntervals(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	agents := startRustAgents(t, bin, s.ClientURL(), 1)
	spec := `{"version":"natsperf.spec/v1","interval":"500ms","workloads":[{"kind":"pub","clients":2,"pacing":{"msgs":6000,"rate":2000},"config":{"subject":"live.iv","size":32}}]}`
	live := runRustAgents(t, s.ClientURL(), agents, spec, nil)
	id := agents[0].ID
	res := live.results[id]
	in, _ := rustClientCounts(t, s)
	var msgs, bytes int64
	srcs := map[string]int64{}
	early := 0
	for i, iv := range live.intervals[id] {
		msgs += iv.Msgs
		bytes += iv.Bytes
		srcs[iv.Src] += iv.Msgs
		if live.ivAt[id][i].Before(res.End) {
			early++
		}
		if live.ivAt[id][i].After(live.resultAt[id]) {
			t.Fatalf("interval %+v arrived after the Result", iv)
		}
	}
	agg := res.Groups[0].Aggregate
	if msgs != agg.Msgs || bytes != agg.Bytes || msgs != in || in != 6000 {
		t.Fatalf("intervals add up to %d msgs %d bytes; Result %d msgs %d bytes; server %d", msgs, bytes, agg.Msgs, agg.Bytes, in)
	}
	if len(srcs) != 2 || srcs["pub/1"] != 3000 || srcs["pub/2"] != 3000 {
		t.Fatalf("intervals by client %v: want pub/1 and pub/2 with 3000 each", srcs)
	}
	if early == 0 {
		t.Fatalf("none of %d intervals arrived before the run ended (%v)", len(live.intervals[id]), res.End)
	}
}

// TestRustAgentsCorrectLatencyByClockOffset mirrors TestPartsCorrectLatencyByClockOffset
// (internal/engine) on two natsperf-rust agents: with part 1's clock said to be 50 ms ahead
// (both share one clock here), part 0's subscriber, hearing part 1's publisher, adds 50 ms to
// every latency; part 1's own subscriber adds nothing. Before, no offset was applied.
func TestRustAgentsCorrectLatencyByClockOffset(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	agents := startRustAgents(t, bin, s.ClientURL(), 2)
	const skew = int64(50 * time.Millisecond)
	// A subscriber in each part; the one publisher (a group of 1) in the last part.
	spec := `{"version":"natsperf.spec/v1","workloads":[` +
		`{"kind":"sub","clients":2,"pacing":{"msgs":2000},"config":{"subject":"live.skew","size":32}},` +
		`{"kind":"pub","clients":1,"pacing":{"msgs":2000,"rate":2000},"config":{"subject":"live.skew","size":32}}]}`
	live := runRustAgents(t, s.ClientURL(), agents, spec, []int64{0, skew})
	mins := make([]int64, 2)
	for p, a := range agents {
		res := live.results[a.ID]
		var sub *result.Group
		for i := range res.Groups {
			if strings.HasSuffix(res.Groups[i].Name, "/sub") {
				sub = &res.Groups[i]
			}
		}
		if sub == nil || sub.Aggregate.Msgs != 2000 || sub.Aggregate.Latency == nil {
			t.Fatalf("part %d: groups %+v: want a subscriber with 2000 msgs", p, res.Groups)
		}
		mins[p] = sub.Aggregate.Latency.Min
	}
	if mins[0] < skew {
		t.Fatalf("part 0's subscriber: min latency %d ns, want at least the 50 ms offset", mins[0])
	}
	if mins[1] >= skew {
		t.Fatalf("part 1's subscriber, on the publisher's clock: min latency %d ns", mins[1])
	}
	// The same messages on one clock: the two minimums differ by the offset, give or take
	// the two subscribers' own delivery times (generous: the machine is loaded).
	if d := mins[0] - skew - mins[1]; d < -20*int64(time.Millisecond) || d > 20*int64(time.Millisecond) {
		t.Fatalf("min latencies %d and %d ns: differ by %d ns beyond the 50 ms offset", mins[0], mins[1], d)
	}
}

// TestScenarioRustSeriesFileLive: a scenario cell run with client rust and `stream: always`
// gets its series file from the natsperf-rust agent's live interval records: lines named
// after the agent and the workload's client (`rust-PID/pub1/pub/1`), the publisher's and
// the subscriber's each adding up to the server's counts. Before, a local rust cell opened
// no series file at all (and the agent sent no interval records).
func TestScenarioRustSeriesFileLive(t *testing.T) {
	rustOnPath(t)
	s := natstest.Server(t, nil)
	dir := t.TempDir()
	file := filepath.Join(dir, "rust.yaml")
	const n = 2000
	yaml := `name: rustseries
stream: always
workloads:
  - name: sub
    command: sub series.rust
    flags: {client: rust, msgs: 2000, size: 32, idle-timeout: 20s}
  - name: pub
    command: pub series.rust
    flags: {client: rust, msgs: 2000, rate: 1000, size: 32}
`
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := run(context.Background(), t, nil, "run", file, "-o", out, "-s", s.ClientURL())
	if r.code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	series, _ := filepath.Glob(filepath.Join(out, "001-*.series.jsonl"))
	if len(series) != 1 {
		all, _ := filepath.Glob(filepath.Join(out, "*"))
		t.Fatalf("series files %v (in %v)\n%s", series, all, r.err)
	}
	lines, err := live.Read(series[0])
	if err != nil {
		t.Fatal(err)
	}
	by := map[string]int64{} // by client, the agent's name (rust-PID) cut off
	for _, l := range lines {
		agent, src, _ := strings.Cut(l.Src, "/")
		if !strings.HasPrefix(agent, "rust-") {
			t.Fatalf("series line %+v: not named after the natsperf-rust agent", l)
		}
		by[src] += l.Msgs
	}
	in, delivered := rustClientCounts(t, s)
	if len(by) != 2 || by["pub1/pub/1"] != n || by["sub1/sub/1"] != n || in != n || delivered != n {
		t.Fatalf("series by source %v (want pub1/pub/1 and sub1/sub/1 with %d each); server: %d in, %d out", by, n, in, delivered)
	}
}

// TestRustAgentsRunInstancesWhole: a Spec workload with instances, on two natsperf-rust
// agents, runs each instance whole on one agent as the Go engine splits them (pod1 on part 0,
// pod2 and pod3 on part 1), each its own group with every message it sent, which is what the
// server counted. Before, the agent refused instances ("use --client go").
func TestRustAgentsRunInstancesWhole(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	agents := startRustAgents(t, bin, s.ClientURL(), 2)
	spec := `{"version":"natsperf.spec/v1","workloads":[{"kind":"pub","name":"pod","instances":3,"clients":2,"pacing":{"msgs":600},"config":{"subject":"live.pods","size":32}}]}`
	live := runRustAgents(t, s.ClientURL(), agents, spec, nil)
	want := [][]string{{"pod1/pub"}, {"pod2/pub", "pod3/pub"}}
	var total int64
	for p, a := range agents {
		res := live.results[a.ID]
		var got []string
		for _, g := range res.Groups {
			got = append(got, g.Name)
			if len(g.Clients) != 2 || g.Aggregate.Msgs != 600 {
				t.Fatalf("part %d: group %s: %d clients, %d msgs; want an instance whole: 2 clients, 600 msgs", p, g.Name, len(g.Clients), g.Aggregate.Msgs)
			}
			total += g.Aggregate.Msgs
		}
		if res.Stop.Reason != "completed" || fmt.Sprint(got) != fmt.Sprint(want[p]) {
			t.Fatalf("part %d ran %v (%s), want %v", p, got, res.Stop.Reason, want[p])
		}
	}
	if total != 1800 {
		t.Fatalf("the agents counted %d: want 1800", total)
	}
	// The server lists a connection's final counts a moment after the agent has reported
	// (connections closing, read buffers parsed): wait for them rather than read once.
	natstest.WaitFor(t, 5*time.Second, "the server to count the agents' 1800 messages", func() bool {
		in, _ := rustClientCounts(t, s)
		return in == total
	})
}
