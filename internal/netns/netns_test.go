package netns

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// The test binary doubles as the processes that run inside the namespaces: with
// NETNS_TEST_ROLE set it is a NATS server or a publishing client instead of the tests.
func TestMain(m *testing.M) {
	switch os.Getenv("NETNS_TEST_ROLE") {
	case "":
		os.Exit(m.Run())
	case "server":
		os.Exit(runServer(os.Getenv("NETNS_TEST_ADDR")))
	case "client":
		os.Exit(runClient(os.Getenv("NETNS_TEST_ADDR")))
	default:
		fmt.Fprintln(os.Stderr, "unknown NETNS_TEST_ROLE")
		os.Exit(2)
	}
}

const (
	natsPort    = 4222
	monitorPort = 8222
	msgs        = 2000
	msgSize     = 1024
)

// runServer serves NATS and its monitoring port on addr (the node's veth address) until stdin
// closes, saying "ready" on stdout once it accepts connections.
func runServer(addr string) int {
	s, err := server.NewServer(&server.Options{Host: addr, Port: natsPort, HTTPHost: addr, HTTPPort: monitorPort, NoSigs: true, NoLog: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	go s.Start()
	if !s.ReadyForConnections(30 * time.Second) {
		fmt.Fprintln(os.Stderr, "server not ready")
		return 1
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	s.Shutdown()
	s.WaitForShutdown()
	return 0
}

// runClient publishes msgs messages of msgSize bytes to the server at addr, then prints the
// server's /varz (its own counts, the reference for what arrived).
func runClient(addr string) int {
	nc, err := nats.Connect(fmt.Sprintf("nats://%s:%d", addr, natsPort), nats.Timeout(20*time.Second))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer nc.Close()
	payload := make([]byte, msgSize)
	for range msgs {
		if err := nc.Publish("netns.test", payload); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if err := nc.FlushTimeout(30 * time.Second); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	resp, err := (&http.Client{Timeout: 30 * time.Second}).Get(fmt.Sprintf("http://%s:%d/varz", addr, monitorPort))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer resp.Body.Close()
	_, err = io.Copy(os.Stdout, resp.Body)
	if err != nil {
		return 1
	}
	return 0
}

// A NATS server in one namespace, a client in another: the client's messages reach the server
// over the veth addresses (the server's /varz counts them all), and the bytes show up on both
// nodes' links, so they crossed real interfaces rather than loopback.
func TestTrafficCrossesTheLinks(t *testing.T) {
	n := ForTest(t, "server", "client")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srvAddr := n.Addr("server")
	if srvAddr == "" || srvAddr == n.Addr("client") {
		t.Fatalf("addresses server %q client %q", srvAddr, n.Addr("client"))
	}

	srvRx0, _, err := n.Counters(ctx, "server")
	if err != nil {
		t.Fatal(err)
	}
	_, cliTx0, err := n.Counters(ctx, "client")
	if err != nil {
		t.Fatal(err)
	}

	srv := helper(ctx, n, "server", "server", srvAddr)
	stdin, err := srv.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := srv.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var srvErr strings.Builder
	srv.Stderr = &srvErr
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = stdin.Close(); _ = srv.Wait() }) // before the network's clean-up
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if strings.TrimSpace(line) != "ready" {
		t.Fatalf("server did not start: %q %v %s", line, err, srvErr.String())
	}

	out, err := helper(ctx, n, "client", "client", srvAddr).Output()
	if err != nil {
		t.Fatalf("client: %v %s", err, stderrOf(err))
	}
	var varz struct {
		InMsgs  int64 `json:"in_msgs"`
		InBytes int64 `json:"in_bytes"`
	}
	if err := json.Unmarshal(out, &varz); err != nil {
		t.Fatalf("varz: %v: %.200s", err, out)
	}
	if varz.InMsgs != msgs || varz.InBytes != msgs*msgSize {
		t.Errorf("server counted %d msgs / %d bytes, want %d / %d", varz.InMsgs, varz.InBytes, msgs, msgs*msgSize)
	}

	srvRx, _, err := n.Counters(ctx, "server")
	if err != nil {
		t.Fatal(err)
	}
	_, cliTx, err := n.Counters(ctx, "client")
	if err != nil {
		t.Fatal(err)
	}
	const payload = msgs * msgSize
	if srvRx-srvRx0 < payload || cliTx-cliTx0 < payload {
		t.Errorf("link counters: server received %d bytes, client sent %d; the payload alone is %d", srvRx-srvRx0, cliTx-cliTx0, payload)
	}
	t.Logf("server %s received %d bytes on %s for %d payload bytes", srvAddr, srvRx-srvRx0, Iface, payload)
}

func helper(ctx context.Context, n *Network, node, role, addr string) *exec.Cmd {
	cmd := n.Command(ctx, node, os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "NETNS_TEST_ROLE="+role, "NETNS_TEST_ADDR="+addr)
	return cmd
}

func stderrOf(err error) string {
	if ee, ok := err.(*exec.ExitError); ok {
		return string(ee.Stderr)
	}
	return ""
}

// A node reaches only its own /24: no default route, so nothing it sends can leave the network.
func TestNodesRouteOnlyTheirSubnet(t *testing.T) {
	n := ForTest(t, "a", "b", "c")
	for i, node := range n.Nodes() {
		if want := fmt.Sprintf("10.213.0.%d", i+1); n.Addr(node) != want {
			t.Errorf("%s: address %s, want %s", node, n.Addr(node), want)
		}
		out, err := exec.Command("ip", "-n", n.Namespace(node), "route", "show").CombinedOutput()
		if err != nil {
			t.Fatalf("%v: %s", err, out)
		}
		routes := strings.TrimSpace(string(out))
		if !strings.HasPrefix(routes, "10.213.0.0/24 dev eth0") || strings.Contains(routes, "\n") || strings.Contains(routes, "default") {
			t.Errorf("%s routes:\n%s\nwant only 10.213.0.0/24 on eth0", node, routes)
		}
	}
}

// ForTest's clean-up removes every namespace when the test ends; Close twice is harmless.
func TestCleanupRemovesEveryNamespace(t *testing.T) {
	var made []string
	t.Run("network", func(t *testing.T) {
		n := ForTest(t, "x", "y")
		made = []string{n.Namespace(hubName), n.Namespace("x"), n.Namespace("y")}
		for _, ns := range made {
			if !exists(t, ns) {
				t.Fatalf("namespace %s was not created", ns)
			}
		}
	})
	if len(made) == 0 {
		t.Skip("the subtest skipped")
	}
	for _, ns := range made {
		if exists(t, ns) {
			t.Errorf("namespace %s left after the test", ns)
		}
	}

	n := ForTest(t, "z")
	if err := n.Close(); err != nil {
		t.Fatal(err)
	}
	if exists(t, n.Namespace("z")) {
		t.Error("Close left the node's namespace")
	}
	if err := n.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// Namespaces left by a process that died are removed by the next New; those of a live process
// and those not named by this package are left alone.
func TestNewRemovesStaleNamespaces(t *testing.T) {
	if ok, why := Available(); !ok {
		t.Skip(why)
	}
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	stale := fmt.Sprintf("%s%d-1-a", prefix, dead.Process.Pid)
	live := fmt.Sprintf("%s%d-1-a", prefix, os.Getppid())
	other := fmt.Sprintf("%sleftover-by-hand", prefix)
	for _, ns := range []string{stale, live, other} {
		if err := ip(context.Background(), "netns", "add", ns); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = ip(context.Background(), "netns", "del", ns) })
	}
	ForTest(t, "a")
	if exists(t, stale) {
		t.Errorf("stale namespace %s (pid %d is gone) was kept", stale, dead.Process.Pid)
	}
	if !exists(t, live) || !exists(t, other) {
		t.Errorf("New removed a namespace of a live process (%s) or not of its own naming (%s)", live, other)
	}
}

func TestNewRefusesBadNodeNames(t *testing.T) {
	for _, names := range [][]string{nil, {"a", "a"}, {"hub"}, {"Upper"}, {"has space"}, {"much-too-long-for-it"}} {
		if _, err := New(context.Background(), names...); err == nil {
			t.Errorf("New(%q) accepted", names)
		}
	}
}

func exists(t *testing.T, ns string) bool {
	t.Helper()
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(out), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == ns {
			return true
		}
	}
	return false
}
