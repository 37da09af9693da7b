package coord_test

// End-to-end tests of distributed runs with real processes: a nats-server for the benchmark
// traffic and another for the control traffic (each its own process, so the first one's
// /varz counts only the benchmark), three or more `natsperf agent` processes and a
// coordinator process (`natsperf CMD --agents ...`), all on loopback.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/live"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/proctest"
	"github.com/natsperf/natsperf/result"
)

// natsperfBin is natsperf built once for every test.
var natsperfBin string

const serverEnv = "NATSPERF_TEST_NATS_SERVER"

func TestMain(m *testing.M) {
	if os.Getenv(serverEnv) != "" {
		os.Exit(runServer())
	}
	os.Exit(proctest.RunWithNatsperf(m, "natsperf-agents-", &natsperfBin))
}

// runServer is this test binary run as a nats-server process (with monitoring for /varz): it
// prints its client and monitoring URLs and serves until stdin closes or it is killed.
func runServer() int {
	maxPayload := int32(1 << 20)
	if v, err := strconv.Atoi(os.Getenv(serverEnv)); err == nil && v > 1 {
		maxPayload = int32(v)
	}
	store, err := os.MkdirTemp("", "natsperf-agents-js-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(store)
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, HTTPHost: "127.0.0.1", HTTPPort: -1, NoSigs: true, MaxPayload: maxPayload,
		JetStream: true, StoreDir: store, JetStreamMaxMemory: 64 << 20, JetStreamMaxStore: 256 << 20})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		fmt.Fprintln(os.Stderr, "server not ready")
		return 1
	}
	fmt.Printf("ready %s http://%s\n", s.ClientURL(), s.MonitorAddr())
	_, _ = io.Copy(io.Discard, os.Stdin)
	s.Shutdown()
	return 0
}

type natsServer struct{ url, monitor string }

// startServer starts a nats-server process; maxPayload 0 is 1 MiB.
func startServer(t *testing.T, maxPayload int) natsServer {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), serverEnv+"="+strconv.Itoa(max(maxPayload, 1)))
	stdin, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		stdin.Close()
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	line := make(chan string, 1)
	go func() {
		r := bufio.NewReader(out)
		l, _ := r.ReadString('\n')
		line <- l
		_, _ = io.Copy(io.Discard, r)
	}()
	select {
	case l := <-line:
		f := strings.Fields(l)
		if len(f) != 3 || f[0] != "ready" {
			t.Fatalf("server said %q", l)
		}
		return natsServer{url: f[1], monitor: f[2]}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not start")
	}
	return natsServer{}
}

// varz is the server's in/out message counters.
func (s natsServer) varz(t *testing.T) (in, out int64) {
	t.Helper()
	resp, err := http.Get(s.monitor + "/varz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v struct {
		InMsgs  int64 `json:"in_msgs"`
		OutMsgs int64 `json:"out_msgs"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v.InMsgs, v.OutMsgs
}

type proc = proctest.Proc

func start(t *testing.T, name string, args ...string) *proc {
	t.Helper()
	cmd := exec.Command(natsperfBin, args...)
	cmd.Env = append(os.Environ(), "NATS_URL=") // only the servers named here
	return proctest.Start(t, name, cmd)
}

// cluster is a target server, a control server and agents named a1, a2, ...
type cluster struct {
	target, control natsServer
	agents          []*proc
}

func newCluster(t *testing.T, agents int, extra ...string) *cluster {
	t.Helper()
	return newClusterPayload(t, agents, 0, extra...)
}

// newClusterPayload has a control server with a small max payload (Results go in chunks).
func newClusterPayload(t *testing.T, agents, controlMaxPayload int, extra ...string) *cluster {
	t.Helper()
	c := &cluster{target: startServer(t, 0), control: startServer(t, controlMaxPayload)}
	for i := range agents {
		c.agents = append(c.agents, c.agent(t, fmt.Sprintf("a%d", i+1), extra...))
	}
	return c
}

func (c *cluster) agent(t *testing.T, name string, extra ...string) *proc {
	t.Helper()
	args := append([]string{"agent", "-s", c.target.url, "--control", c.control.url, "--name", name}, extra...)
	p := start(t, "agent "+name, args...)
	p.WaitFor(t, "waiting for runs", 20*time.Second)
	return p
}

// coordinator runs a natsperf command line across the cluster's agents.
func (c *cluster) coordinator(t *testing.T, args ...string) *proc {
	t.Helper()
	return start(t, "coordinator", append(args, "--control", c.control.url, "--no-progress")...)
}

// waitStarted waits until every agent has started its part of the run.
func (c *cluster) waitStarted(t *testing.T) {
	t.Helper()
	for _, a := range c.agents {
		a.WaitFor(t, "starting at", 30*time.Second)
	}
}

// waitReceived waits until the target server has taken in n messages more than in0 (its
// in_msgs before the run): the run's publishers are sending, whatever the machine's load.
func (c *cluster) waitReceived(t *testing.T, in0, n int64) {
	t.Helper()
	natstest.Eventually(t, 30*time.Second, 50*time.Millisecond, func() error {
		if in, _ := c.target.varz(t); in-in0 < n {
			return fmt.Errorf("the server took in %d messages of the run, waiting for %d", in-in0, n)
		}
		return nil
	})
}

// runNext runs a short run on the cluster's agents: they are free for it.
func (c *cluster) runNext(t *testing.T, subject string) {
	t.Helper()
	next := c.coordinator(t, "pub", subject, "--clients", "3", "--agents", "3", "--msgs", "3000")
	if code := next.Wait(t, 30*time.Second); code != 0 {
		t.Fatalf("the next run exit %d:\n%s", code, next.Out.String())
	}
}

// The merged counts are what the benchmark's server saw, the merged histogram is the one of
// every client's samples, and the publishers of the three agents have three distinct ids.
func TestAgentsMergedCountsMatchServer(t *testing.T) {
	c := newClusterPayload(t, 3, 4096) // the agents' Results (~17 KB each) go in chunks
	in0, out0 := c.target.varz(t)
	file := filepath.Join(t.TempDir(), "merged.json")
	const msgs = 30_000
	// Each subscriber waits for all three agents' publishers, and its own agent's finishing
	// first does not end it: only its idle timeout does (3s by default). That default assumed
	// the other agents' publishers never fell 3s behind this one's last message, which two
	// cores shared by a whole go test ./... do not promise. The counts must be exact whatever
	// the speed: a subscriber ends on its full share; the idle timeout only bounds a failure.
	co := c.coordinator(t, "pubsub", "agents.counts", "--pub", "3", "--sub", "3", "--msgs", fmt.Sprint(msgs), "--size", "64",
		"--agents", "3", "--idle-timeout", "45s", "-o", file)
	if code := co.Wait(t, 90*time.Second); code != 0 {
		t.Fatalf("coordinator exit %d:\n%s", code, co.Out.String())
	}
	in1, out1 := c.target.varz(t)
	res := proctest.ReadResult(t, file)
	if res.Stop.Reason != result.StopCompleted || res.Distributed == nil || len(res.Distributed.Agents) != 3 || len(res.Parts) != 3 {
		t.Fatalf("stop %+v, distributed %+v, %d parts", res.Stop, res.Distributed, len(res.Parts))
	}
	pub, sub := res.Groups[0], res.Groups[1]
	// Only the benchmark runs on the target server (the control traffic has its own); each of
	// the 3 agent processes also asks $JS.API.INFO once (bench/conn.go, once per process and
	// server): 3 requests in, 3 replies out.
	if pub.Aggregate.Msgs != msgs || in1-in0 != msgs+3 {
		t.Fatalf("published %d, the server received %d, want %d + 3 JetStream info requests", pub.Aggregate.Msgs, in1-in0, msgs)
	}
	if sub.Aggregate.Msgs != 3*msgs || out1-out0 != 3*msgs+3 {
		t.Fatalf("subscribers got %d, the server sent %d, want %d + 3 info replies", sub.Aggregate.Msgs, out1-out0, 3*msgs)
	}
	// One row per agent-client, each naming its agent.
	parts := map[string]bool{}
	for _, g := range res.Groups {
		for _, cl := range g.Clients {
			parts[cl.Part] = true
		}
	}
	if len(pub.Clients) != 3 || len(sub.Clients) != 3 || !parts["a1"] || !parts["a2"] || !parts["a3"] {
		t.Fatalf("%d pub rows, %d sub rows, parts %v", len(pub.Clients), len(sub.Clients), parts)
	}
	for _, a := range c.agents {
		if out := a.Out.String(); !strings.Contains(out, "Result sent in") || strings.Contains(out, "Result sent in 1 message") {
			t.Fatalf("%s did not chunk its Result:\n%s", a.Name, out)
		}
	}
	if !strings.Contains(co.Out.String(), "[1 a1]") || !strings.Contains(co.Out.String(), "start skew") {
		t.Fatalf("text output lacks the agents:\n%s", co.Out.String())
	}
	// Publisher ids: three distinct publishers, each heard in full by every subscriber.
	cor := sub.Aggregate.Correctness
	if cor == nil || cor.Publishers != 3 || cor.Lost != 0 || cor.Duplicated != 0 || cor.OutOfOrder != 0 || len(cor.PerPublisher) != 3 {
		t.Fatalf("subscribers' correctness %+v", cor)
	}
	// The merged histogram is the histogram of every subscriber's samples.
	proctest.CheckMergedHistogram(t, sub, 3*msgs)
	// Clock offsets on one machine are small and their uncertainty is stated.
	proctest.CheckClockOffsets(t, res.Distributed)
}

// longRun is a paced pub/sub run that lasts long enough to be cut short.
func longRun(file string, agents int) []string {
	return []string{"pubsub", "agents.long", "--pub", fmt.Sprint(agents), "--sub", fmt.Sprint(agents), "--rate", "600",
		"--duration", "40s", "--agents", fmt.Sprint(agents), "-o", file}
}

// An agent killed with SIGKILL mid-run is declared lost within a bound; the run stops, and the
// Result of the others is saved, partial, naming the lost agent.
func TestAgentsKilledAgentEndsRunPartial(t *testing.T) {
	if testing.Short() {
		t.Skip("kills processes mid-run")
	}
	c := newCluster(t, 3)
	file := filepath.Join(t.TempDir(), "partial.json")
	in0, _ := c.target.varz(t)
	co := c.coordinator(t, longRun(file, 3)...)
	c.waitStarted(t)
	c.waitReceived(t, in0, 900) // every agent's clients record a little first (1.5 s at 600/s)
	proctest.KillAgent(t, c.agents[1], co, file, "a2", "a1", "a3")
}

// Ctrl-C on the coordinator stops every agent and still saves the merged partial Result; the
// agents are free for the next run at once. A second coordinator meanwhile finds them busy.
func TestAgentsCoordinatorInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("interrupts a run")
	}
	c := newCluster(t, 3)
	file := filepath.Join(t.TempDir(), "interrupted.json")
	in0, _ := c.target.varz(t)
	co := c.coordinator(t, longRun(file, 3)...)
	c.waitStarted(t)
	// A run on a busy agent is refused before it starts.
	busy := c.coordinator(t, "pub", "agents.busy", "--agents", "1", "--msgs", "10")
	if code := busy.Wait(t, 30*time.Second); code != 1 || !strings.Contains(busy.Out.String(), "busy with run") {
		t.Fatalf("second coordinator exit %d:\n%s", code, busy.Out.String())
	}
	c.waitReceived(t, in0, 600) // the run has data to keep
	co.Signal(syscall.SIGINT)
	if code := co.Wait(t, 20*time.Second); code != 130 {
		t.Fatalf("coordinator exit %d after Ctrl-C, want 130:\n%s", code, co.Out.String())
	}
	res := proctest.ReadResult(t, file)
	if res.Stop.Reason != result.StopInterrupted || res.Distributed == nil || len(res.Distributed.Lost) != 0 || len(res.Parts) != 3 {
		t.Fatalf("stop %+v, distributed %+v, %d parts", res.Stop, res.Distributed, len(res.Parts))
	}
	if res.Groups[0].Aggregate.Msgs == 0 || res.Groups[1].Aggregate.Msgs == 0 {
		t.Fatal("the interrupted run kept no data")
	}
	for _, a := range c.agents {
		a.WaitFor(t, "stop asked", 10*time.Second)
	}
	c.runNext(t, "agents.next")
}

// An agent of another natsperf version is refused before anything runs, naming both versions.
func TestAgentsVersionMismatchRefused(t *testing.T) {
	c := newCluster(t, 2)
	c.agents = append(c.agents, c.agent(t, "old", "--fake-version", "v0.0.1"))
	co := c.coordinator(t, "pub", "agents.version", "--clients", "3", "--agents", "3", "--msgs", "1000")
	if code := co.Wait(t, 30*time.Second); code != 1 {
		t.Fatalf("coordinator exit %d, want 1:\n%s", code, co.Out.String())
	}
	out := co.Out.String()
	if !strings.Contains(out, "agent old") || !strings.Contains(out, "v0.0.1") || !strings.Contains(out, "refused before anything ran") {
		t.Fatalf("the refusal does not name the agent and its version:\n%s", out)
	}
	for _, a := range c.agents {
		if strings.Contains(a.Out.String(), "prepared") {
			t.Fatalf("%s prepared a run:\n%s", a.Name, a.Out.String())
		}
	}
}

// Asking for more agents than answer ends after --agents-wait, saying how many are missing.
func TestAgentsMissingAfterWait(t *testing.T) {
	c := newCluster(t, 1)
	co := c.coordinator(t, "pub", "agents.missing", "--clients", "4", "--agents", "3", "--agents-wait", "1s")
	if code := co.Wait(t, 30*time.Second); code != 1 || !strings.Contains(co.Out.String(), "2 of 3 agents missing") || !strings.Contains(co.Out.String(), "a1") {
		t.Fatalf("exit %d:\n%s", code, co.Out.String())
	}
}

// An agent that stops answering (SIGSTOP: alive, but silent, as behind a partition) is lost
// after its missed heartbeats; with --on-agent-loss continue the others run to their end and
// the Result is partial, naming it.
func TestAgentsSilentAgentContinue(t *testing.T) {
	if testing.Short() {
		t.Skip("pauses a process mid-run")
	}
	c := newCluster(t, 3)
	file := filepath.Join(t.TempDir(), "continue.json")
	co := c.coordinator(t, "pubsub", "agents.continue", "--pub", "3", "--sub", "3", "--rate", "600",
		"--duration", "8s", "--agents", "3", "--on-agent-loss", "continue", "-o", file)
	c.waitStarted(t)
	victim := c.agents[2]
	if err := victim.Cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = victim.Cmd.Process.Signal(syscall.SIGCONT) }()
	if code := co.Wait(t, 40*time.Second); code != 1 {
		t.Fatalf("coordinator exit %d, want 1:\n%s", code, co.Out.String())
	}
	res := proctest.ReadResult(t, file)
	d := res.Distributed
	if d == nil || len(d.Lost) != 1 || d.Lost[0] != "a3" || d.OnAgentLoss != "continue" {
		t.Fatalf("distributed %+v", d)
	}
	// The others ran to the end: each publisher sent its whole 8 s at 200 msgs/s.
	for _, cl := range res.Groups[0].Clients {
		if cl.Part == "a3" || cl.Msgs < 1500 {
			t.Fatalf("publisher %d (%s) sent %d", cl.ID, cl.Part, cl.Msgs)
		}
	}
	if strings.Contains(c.agents[0].Out.String(), "stop asked") {
		t.Fatal("a1 was stopped despite --on-agent-loss continue")
	}
}

// An agent interrupted on its own machine (Ctrl-C there) sends its partial Result and exits;
// the coordinator stops the others (--on-agent-loss stop) and the run fails, every agent's
// data kept.
func TestAgentsAgentInterrupted(t *testing.T) {
	if testing.Short() {
		t.Skip("interrupts an agent mid-run")
	}
	c := newCluster(t, 3)
	file := filepath.Join(t.TempDir(), "agent-int.json")
	in0, _ := c.target.varz(t)
	co := c.coordinator(t, longRun(file, 3)...)
	c.waitStarted(t)
	c.waitReceived(t, in0, 600) // the run has data to keep
	c.agents[0].Signal(syscall.SIGINT)
	if code := c.agents[0].Wait(t, 20*time.Second); code != 0 {
		t.Fatalf("agent exit %d after Ctrl-C", code)
	}
	if code := co.Wait(t, 20*time.Second); code != 1 {
		t.Fatalf("coordinator exit %d, want 1:\n%s", code, co.Out.String())
	}
	res := proctest.ReadResult(t, file)
	if res.Stop.Reason != result.StopFailed || len(res.Parts) != 3 || len(res.Distributed.Lost) != 0 {
		t.Fatalf("stop %+v, %d parts, lost %v", res.Stop, len(res.Parts), res.Distributed.Lost)
	}
	for _, a := range c.agents[1:] {
		a.WaitFor(t, "stop asked", 10*time.Second)
	}
}

// A coordinator killed mid-run leaves no agent running: each hears no coordinator heartbeat,
// stops its part and is free for the next run.
func TestAgentsCoordinatorKilled(t *testing.T) {
	if testing.Short() {
		t.Skip("kills the coordinator mid-run")
	}
	c := newCluster(t, 3)
	co := c.coordinator(t, longRun(filepath.Join(t.TempDir(), "never.json"), 3)...)
	c.waitStarted(t)
	if err := co.Cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for _, a := range c.agents {
		a.WaitFor(t, "the coordinator is silent", 15*time.Second)
		a.WaitFor(t, "ended (interrupted)", 15*time.Second)
	}
	c.runNext(t, "agents.after")
}

// A scenario across agents: each instance of a cell runs whole on one agent (pod1, pod2, pod3
// on three agents), the cell's setup stream is made once by the coordinator, and the cell's
// Result is the agents' merged one, saved in the run directory as any cell's.
func TestAgentsScenarioInstancesWhole(t *testing.T) {
	c := newCluster(t, 3)
	dir := t.TempDir()
	file := filepath.Join(dir, "sc.yaml")
	sc := `name: across
stream: always
setup:
  streams:
    - {name: "ACROSS", subjects: ["across.>"], storage: memory}
workloads:
  - name: pod
    instances: 3
    command: pubsub across.core.${instance} --pub 1 --sub 2
    flags: {msgs: 2000, size: 32}
  - name: js
    instances: 3
    command: js pub async across.js.${instance} --stream ACROSS
    flags: {msgs: 1000, size: 32}
`
	if err := os.WriteFile(file, []byte(sc), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "res")
	co := start(t, "coordinator", "run", file, "--agents", "3", "-s", c.target.url, "--control", c.control.url, "-o", out, "--no-progress")
	if code := co.Wait(t, 60*time.Second); code != 0 {
		t.Fatalf("coordinator exit %d:\n%s", code, co.Out.String())
	}
	files, _ := filepath.Glob(filepath.Join(out, "001-*.json"))
	if len(files) != 1 {
		t.Fatalf("run files %v", files)
	}
	res := proctest.ReadResult(t, files[0])
	if res.Stop.Reason != result.StopCompleted || res.Distributed == nil || len(res.Distributed.Agents) != 3 {
		t.Fatalf("stop %+v, distributed %+v", res.Stop, res.Distributed)
	}
	where := map[string]map[string]bool{} // instance -> agents its clients ran on
	for _, g := range res.Groups {
		inst, _, _ := strings.Cut(g.Name, "/")
		for _, cl := range g.Clients {
			if where[inst] == nil {
				where[inst] = map[string]bool{}
			}
			where[inst][cl.Part] = true
		}
	}
	for _, inst := range []string{"pod1", "pod2", "pod3", "js1", "js2", "js3"} {
		if len(where[inst]) != 1 {
			t.Fatalf("instance %s ran on %v: an instance never spans agents (all: %v)", inst, where[inst], where)
		}
	}
	if where["pod1"]["a1"] != true || where["pod2"]["a2"] != true || where["pod3"]["a3"] != true {
		t.Fatalf("pods on %v", where)
	}
	// The agents' intervals streamed live into the cell's series file, named after the agent.
	series, _ := filepath.Glob(filepath.Join(out, "001-*.series.jsonl"))
	if len(series) != 1 {
		t.Fatalf("series files %v", series)
	}
	lines, err := live.Read(series[0])
	if err != nil {
		t.Fatal(err)
	}
	var seriesMsgs int64
	srcs := map[string]bool{}
	for _, l := range lines {
		srcs[l.Src] = true
		if strings.HasSuffix(l.Src[:strings.LastIndexByte(l.Src, '/')], "/pub") {
			seriesMsgs += l.Msgs
		}
	}
	if !srcs["a1/pod1/pub/1"] || !srcs["a3/js3/pub/1"] || seriesMsgs != 3*2000+3*1000 {
		t.Fatalf("series: %d publisher msgs (want 9000), sources %v", seriesMsgs, srcs)
	}
	// The stream, made once, holds the js instances' 3 x 1000 acknowledged messages and the
	// pods' 3 x 2000 core messages (its across.> takes in across.core.* too): the server's count.
	if len(res.Streams) != 1 || res.Streams[0].Name != "ACROSS" || res.Streams[0].Published != 3000 || res.Streams[0].Messages != 9000 {
		t.Fatalf("streams %+v, want ACROSS with 3,000 published by js and 9,000 in all", res.Streams)
	}
}
