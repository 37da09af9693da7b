package e2e

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/netns"
	"github.com/natsperf/natsperf/internal/proctest"
	"github.com/natsperf/natsperf/result"
)

// natsperfBin is natsperf built once, where namespaces can be made.
var natsperfBin string

// varzEnv makes the test binary fetch the /varz at its URL and print it: run inside a
// namespace, it reads the server's counters over the namespace network (the host's namespace
// has no route there).
const varzEnv = "NATSPERF_E2E_VARZ"

func TestMain(m *testing.M) {
	if u := os.Getenv(varzEnv); u != "" {
		os.Exit(printVarz(u))
	}
	if ok, _ := netns.Available(); !ok {
		os.Exit(m.Run()) // every test skips, saying why; no need to build natsperf
	}
	os.Exit(proctest.RunWithNatsperf(m, "natsperf-e2e-", &natsperfBin))
}

func printVarz(url string) int {
	resp, err := (&http.Client{Timeout: 20 * time.Second}).Get(url)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer resp.Body.Close()
	var v json.RawMessage
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	_, _ = os.Stdout.Write(v)
	return 0
}

// requireEnv, set (CI sets it when it runs as root with ip), makes a missing namespace
// support a failure instead of a skip, so CI cannot lose these tests unnoticed.
const requireEnv = "NATSPERF_NETNS_REQUIRED"

const (
	natsPort    = 4222 // the benchmark's server
	controlPort = 4223 // the control server: its own process, so /varz above counts only the benchmark
	monitorPort = 8222
)

// testNet is the network of the test: the servers' node, the coordinator's node and one node
// per agent, every one its own namespace on one bridge.
type testNet struct {
	*netns.Network
	target, control, monitor string // URLs on the server node's address
	home                     string
}

// varz reads the benchmark server's in/out message counters from the coordinator's node, over
// the veth links.
func (n *testNet) varz(t *testing.T) (in, out int64) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := n.Command(ctx, "coord", os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), varzEnv+"="+n.monitor+"/varz")
	b, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		t.Fatalf("/varz from the coordinator's namespace: %v %s", err, stderr)
	}
	var v struct {
		InMsgs  int64 `json:"in_msgs"`
		OutMsgs int64 `json:"out_msgs"`
	}
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("/varz: %v: %.200s", err, b)
	}
	return v.InMsgs, v.OutMsgs
}

// link is a node's link counters (bytes received, sent).
type link struct{ rx, tx uint64 }

func (n *testNet) links(t *testing.T, nodes ...string) map[string]link {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	m := map[string]link{}
	for _, node := range nodes {
		rx, tx, err := n.Counters(ctx, node)
		if err != nil {
			t.Fatal(err)
		}
		m[node] = link{rx, tx}
	}
	return m
}

type proc = proctest.Proc

// start runs natsperf in node's namespace. Its clean-up (Ctrl-C, then SIGKILL) is registered
// after the network's, so it runs first: a namespace with a process inside outlives its Close.
func (n *testNet) start(t *testing.T, node, name string, args ...string) *proc {
	t.Helper()
	cmd := n.Command(context.Background(), node, append([]string{natsperfBin}, args...)...)
	// Only the servers named here (no NATS_URL, no nats context in HOME); the servers' stores in
	// the test's directory, removed after the processes end, killed or not.
	cmd.Env = append(os.Environ(), "NATS_URL=", "HOME="+n.home, "TMPDIR="+n.home)
	// `ip netns exec` execs natsperf in place, so this reaches natsperf itself: should the test
	// binary die without its clean-up, the kernel kills what it started.
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	return proctest.Start(t, name, cmd)
}

var agentNames = []string{"a1", "a2", "a3"}

// newTestNet builds the network and starts the two servers and the three agents.
func newTestNet(t *testing.T) (*testNet, []*proc) {
	t.Helper()
	if ok, why := netns.Available(); !ok && os.Getenv(requireEnv) != "" {
		t.Fatalf("%s is set but network namespaces cannot be made here: %s", requireEnv, why)
	}
	n := &testNet{Network: netns.ForTest(t, append([]string{"server", "coord"}, agentNames...)...), home: t.TempDir()}
	addr := n.Addr("server")
	n.target = fmt.Sprintf("nats://%s:%d", addr, natsPort)
	n.control = fmt.Sprintf("nats://%s:%d", addr, controlPort)
	n.monitor = fmt.Sprintf("http://%s:%d", addr, monitorPort)
	target := n.start(t, "server", "target server", "server", "--addr", addr, "--port", fmt.Sprint(natsPort), "--http-port", fmt.Sprint(monitorPort))
	control := n.start(t, "server", "control server", "server", "--addr", addr, "--port", fmt.Sprint(controlPort))
	target.WaitFor(t, "Connect with: -s "+n.target, 30*time.Second)
	control.WaitFor(t, "Connect with: -s "+n.control, 30*time.Second)
	var agents []*proc
	for _, name := range agentNames {
		agents = append(agents, n.start(t, name, "agent "+name, "agent", "-s", n.target, "--control", n.control, "--name", name))
	}
	for _, a := range agents {
		a.WaitFor(t, "waiting for runs", 30*time.Second)
	}
	return n, agents
}

// coordinator runs a natsperf command across the agents from the coordinator's node.
func (n *testNet) coordinator(t *testing.T, args ...string) *proc {
	t.Helper()
	return n.start(t, "coord", "coordinator", append(args, "--control", n.control, "--no-progress")...)
}

// A natsperf server, three agents and a coordinator, each in a network namespace of its own:
// the merged counts are what the server counted, each agent's link carried at least its own
// clients' bytes, the Result names the three agents with their clock offsets, the publishers of
// the three agents never share an id, an agent cut off by its link going down is lost while
// the others finish, and an agent killed mid-run ends the run, partial and naming it, within a
// bound.
func TestAgentsAcrossNamespaces(t *testing.T) {
	if testing.Short() {
		t.Skip("five namespaces and six processes")
	}
	n, agents := newTestNet(t)
	t.Run("counts", func(t *testing.T) { testCounts(t, n) })
	t.Run("partition", func(t *testing.T) { testPartitioned(t, n, agents) })
	t.Run("kill -9", func(t *testing.T) { testKilled(t, n, agents) })
}

func testCounts(t *testing.T, n *testNet) {
	const (
		msgs = 30_000
		pubs = 6 // two per agent
		subs = 3
		size = 128
	)
	nodes := append([]string{"server", "coord"}, agentNames...)
	links0 := n.links(t, nodes...)
	in0, out0 := n.varz(t)
	file := filepath.Join(t.TempDir(), "merged.json")
	co := n.coordinator(t, "pubsub", "netns.counts", "--pub", fmt.Sprint(pubs), "--sub", fmt.Sprint(subs),
		"--msgs", fmt.Sprint(msgs), "--size", fmt.Sprint(size), "--agents", "3", "-o", file)
	if code := co.Wait(t, 60*time.Second); code != 0 {
		t.Fatalf("coordinator exit %d:\n%s", code, co.Out.String())
	}
	in1, out1 := n.varz(t)
	links1 := n.links(t, nodes...)
	res := proctest.ReadResult(t, file)
	d := res.Distributed
	if res.Stop.Reason != result.StopCompleted || d == nil || len(d.Agents) != 3 || len(res.Parts) != 3 || len(res.Groups) != 2 {
		t.Fatalf("stop %+v, distributed %+v, %d parts, %d groups", res.Stop, d, len(res.Parts), len(res.Groups))
	}

	// The server's own counters: every published message in, every delivery out, plus the one
	// $JS.API.INFO request (in) and its reply (out) each agent process makes when its first
	// client connects (internal/harness/conn.go, once per process and server). The control
	// traffic has a server of its own.
	pub, sub := res.Groups[0], res.Groups[1]
	conns := int64(len(agentNames))
	if pub.Aggregate.Msgs != msgs || in1-in0 != pub.Aggregate.Msgs+conns {
		t.Errorf("published %d (want %d); the server received %d, want that + %d JetStream info requests", pub.Aggregate.Msgs, msgs, in1-in0, conns)
	}
	if sub.Aggregate.Msgs != subs*msgs || out1-out0 != sub.Aggregate.Msgs+conns {
		t.Errorf("subscribers got %d (want %d); the server sent %d, want that + %d info replies", sub.Aggregate.Msgs, subs*msgs, out1-out0, conns)
	}

	// Each agent's link carried at least its own clients' payload: its publishers' bytes out,
	// its subscribers' bytes in. So the traffic crossed the veth links, not a loopback.
	var benchBytes int64
	for _, name := range agentNames {
		var sent, got int64
		for _, cl := range pub.Clients {
			if cl.Part == name {
				sent += cl.Bytes
			}
		}
		for _, cl := range sub.Clients {
			if cl.Part == name {
				got += cl.Bytes
			}
		}
		tx, rx := links1[name].tx-links0[name].tx, links1[name].rx-links0[name].rx
		if sent == 0 || got == 0 || tx < uint64(sent) || rx < uint64(got) {
			t.Errorf("agent %s: its clients sent %d and received %d payload bytes; its link sent %d and received %d", name, sent, got, tx, rx)
		}
		t.Logf("agent %s: clients sent %d / received %d payload bytes; %s sent %d / received %d", name, sent, got, netns.Iface, tx, rx)
		benchBytes += sent + got
	}
	srvRx, srvTx := links1["server"].rx-links0["server"].rx, links1["server"].tx-links0["server"].tx
	if srvRx < uint64(pub.Aggregate.Bytes) || srvTx < uint64(sub.Aggregate.Bytes) {
		t.Errorf("server link received %d, sent %d; the payload published %d, delivered %d", srvRx, srvTx, pub.Aggregate.Bytes, sub.Aggregate.Bytes)
	}
	// The coordinator moves control messages and the agents' Results, never benchmark data.
	coordBytes := links1["coord"].rx - links0["coord"].rx + links1["coord"].tx - links0["coord"].tx
	if coordBytes == 0 || coordBytes > uint64(benchBytes)/10 {
		t.Errorf("the coordinator's link moved %d bytes for %d benchmark payload bytes", coordBytes, benchBytes)
	}
	t.Logf("coordinator's link: %d bytes (%.2f%% of the agents' payload bytes)", coordBytes, 100*float64(coordBytes)/float64(benchBytes))

	// Three agents, each with a clock offset and its uncertainty. One kernel's clock serves every
	// namespace, so the offset is within its uncertainty (plus slack for a loaded machine).
	proctest.CheckClockOffsets(t, d)
	seen := map[string]bool{}
	for _, a := range d.Agents {
		seen[a.Name] = true
		if a.Lost || a.Error != "" {
			t.Errorf("agent %s: lost %v, error %q", a.Name, a.Lost, a.Error)
		}
	}
	for _, name := range agentNames {
		if !seen[name] {
			t.Errorf("the Result names agents %v, not %s", d.Agents, name)
		}
	}
	if text := co.Out.String(); !strings.Contains(text, "start skew") || !strings.Contains(text, "a1]") {
		t.Errorf("text output lacks the agents:\n%s", text)
	}

	// The merged histogram is the histogram of every subscriber's samples, from three agents.
	proctest.CheckMergedHistogram(t, sub, subs*msgs)
	t.Logf("start skew across the agents %v", time.Duration(d.StartSkewNS))

	// Publisher ids: two publishers on each agent, six distinct ids, each heard in full by every
	// subscriber. Two publishers sharing an id (ranges of two agents overlapping) would show as
	// fewer publishers, with duplicates and sequences out of order.
	perAgent := map[string]int{}
	for _, cl := range pub.Clients {
		perAgent[cl.Part]++
	}
	for _, name := range agentNames {
		if perAgent[name] != pubs/3 {
			t.Errorf("publishers by agent %v, want %d each", perAgent, pubs/3)
		}
	}
	cor := sub.Aggregate.Correctness
	if cor == nil || cor.Publishers != pubs || len(cor.PerPublisher) != pubs || cor.Lost != 0 || cor.Duplicated != 0 || cor.OutOfOrder != 0 {
		t.Fatalf("subscribers' correctness %+v", cor)
	}
	ids := map[uint32]bool{}
	for _, p := range cor.PerPublisher {
		ids[p.ID] = true
		if p.Highest != msgs/pubs || p.Distinct != subs*msgs/pubs {
			t.Errorf("publisher id %d: highest sequence %d, %d distinct over the subscribers; want %d and %d", p.ID, p.Highest, p.Distinct, msgs/pubs, subs*msgs/pubs)
		}
	}
	if len(ids) != pubs {
		t.Errorf("publisher ids %v", cor.PerPublisher)
	}
}

// waitSending waits until every agent's link has sent at least bytes since links0.
func (n *testNet) waitSending(t *testing.T, links0 map[string]link, bytes uint64) {
	t.Helper()
	natstest.Eventually(t, 20*time.Second, 100*time.Millisecond, func() error {
		now := n.links(t, agentNames...)
		for _, name := range agentNames {
			if sent := now[name].tx - links0[name].tx; sent < bytes {
				return fmt.Errorf("agent %s has sent %d bytes", name, sent)
			}
		}
		return nil
	})
}

// setLink takes a node's link down (a network partition: the process lives on, its packets go
// nowhere) or back up.
func (n *testNet) setLink(t *testing.T, node, state string) {
	t.Helper()
	if out, err := exec.Command("ip", "-n", n.Namespace(node), "link", "set", netns.Iface, state).CombinedOutput(); err != nil {
		t.Fatalf("link %s of %s: %v %s", state, node, err, out)
	}
}

// An agent cut off by a real partition (its link down mid-run) is lost after its missed
// heartbeats; with --on-agent-loss continue the others run to their end and the Result is
// partial, naming it. Once the link is back, the agent, which stopped its part when the
// coordinator went silent, is free for the next run.
func testPartitioned(t *testing.T, n *testNet, agents []*proc) {
	marks := marksOf(agents) // each agent says the lines below once per run
	const size = 128
	file := filepath.Join(t.TempDir(), "partition.json")
	links0 := n.links(t, agentNames...)
	co := n.coordinator(t, "pubsub", "netns.partition", "--pub", "3", "--sub", "3", "--rate", "600", "--size", fmt.Sprint(size),
		"--duration", "8s", "--agents", "3", "--on-agent-loss", "continue", "-o", file)
	for i, a := range agents {
		a.WaitForAfter(t, marks[i], "starting at", 30*time.Second)
	}
	n.waitSending(t, links0, 50*size)
	n.setLink(t, "a3", "down")
	healed := false
	heal := func() {
		if !healed {
			healed = true
			n.setLink(t, "a3", "up")
		}
	}
	defer heal()
	if code := co.Wait(t, 40*time.Second); code != 1 {
		t.Fatalf("coordinator exit %d, want 1:\n%s", code, co.Out.String())
	}
	heal()
	res := proctest.ReadResult(t, file)
	d := res.Distributed
	if d == nil || len(d.Lost) != 1 || d.Lost[0] != "a3" || d.OnAgentLoss != "continue" {
		t.Fatalf("distributed %+v", d)
	}
	// The others ran to the end: each publisher sent its whole 8 s at 200 msgs/s.
	for _, cl := range res.Groups[0].Clients {
		if cl.Part == "a3" || cl.Msgs < 1500 {
			t.Errorf("publisher %d (%s) sent %d", cl.ID, cl.Part, cl.Msgs)
		}
	}
	agents[2].WaitForAfter(t, marks[2], "the coordinator is silent", 30*time.Second)
	agents[2].WaitForAfter(t, marks[2], "ended (", 30*time.Second)
}

// marksOf marks where each agent's output stands now.
func marksOf(agents []*proc) []int {
	m := make([]int, len(agents))
	for i, a := range agents {
		m[i] = a.Mark()
	}
	return m
}

func testKilled(t *testing.T, n *testNet, agents []*proc) {
	marks := marksOf(agents)
	const size = 128
	file := filepath.Join(t.TempDir(), "partial.json")
	links0 := n.links(t, agentNames...)
	co := n.coordinator(t, "pubsub", "netns.long", "--pub", "3", "--sub", "3", "--rate", "600", "--size", fmt.Sprint(size),
		"--duration", "40s", "--agents", "3", "-o", file)
	for i, a := range agents {
		a.WaitForAfter(t, marks[i], "starting at", 30*time.Second)
	}
	// Every agent has sent some of its messages over its link before one is killed.
	n.waitSending(t, links0, 50*size)
	proctest.KillAgent(t, agents[1], co, file, "a2", "a1", "a3")
}
