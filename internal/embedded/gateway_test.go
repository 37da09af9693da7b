package embedded

import (
	"context"
	"net"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/link"
)

// requestRTTs times n requests from nc to a responder on subject subj (sorted), after a first
// one that may wait for the gateways' interest to settle.
func requestRTTs(t *testing.T, nc *nats.Conn, subj string, n int) []time.Duration {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if _, err := nc.Request(subj, []byte("warm"), 2*time.Second); err == nil {
			break
		} else if time.Now().After(deadline) {
			t.Fatalf("no reply across the gateway: %v", err)
		}
	}
	rtts := make([]time.Duration, 0, n)
	for range n {
		start := time.Now()
		if _, err := nc.Request(subj, []byte("x"), 10*time.Second); err != nil {
			t.Fatalf("request: %v", err)
		}
		rtts = append(rtts, time.Since(start))
	}
	slices.Sort(rtts)
	return rtts
}

// respond answers every request on subj from a client of node s.
func respond(t *testing.T, s *server.Server, subj string) {
	t.Helper()
	nc := connect(t, s.ClientURL())
	if _, err := nc.Subscribe(subj, func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
}

// outboundPort is the remote port of node s's outbound gateway to cluster name, 0 without one.
func outboundPort(t *testing.T, s *server.Server, name string) int {
	t.Helper()
	gz, err := s.Gatewayz(&server.GatewayzOptions{})
	if err != nil {
		t.Fatal(err)
	}
	og := gz.OutboundGateways[name]
	if og == nil || og.Connection == nil {
		return 0
	}
	return og.Connection.Port
}

func linkPort(t *testing.T, l *link.Link) int {
	t.Helper()
	_, p, err := net.SplitHostPort(l.Addr())
	if err != nil {
		t.Fatal(err)
	}
	port, _ := strconv.Atoi(p)
	return port
}

// TestSuperclusterGatewayDelay: two clusters of two nodes, 5ms one way on the gateways only.
// Every node's outbound gateway (/gatewayz) dials one of its own links to the other cluster; a
// request from a client on cluster 2 to a responder on cluster 1 crosses a gateway there and
// back (>= 10ms); a stream created from cluster 1 lives there, and a publish from cluster 2
// waits for its acknowledgement across the gateway (>= 10ms). Upper bounds are generous.
func TestSuperclusterGatewayDelay(t *testing.T) {
	t.Parallel()
	const delay = 5 * time.Millisecond
	opts := testOptions(2)
	opts.Gateways = 2
	opts.Network = &link.Network{Gateway: link.Conditions{Delay: delay}}
	c := startT(t, opts)
	if c.Size() != 4 || len(c.ClientURLs()) != 2 || c.ClusterOf(2) != "natsperf-c1" || c.ClusterOf(3) != "natsperf-c2" {
		t.Fatalf("Size %d, ClientURLs %v, clusters %q %q", c.Size(), c.ClientURLs(), c.ClusterOf(2), c.ClusterOf(3))
	}
	if d := c.Describe(); !strings.Contains(d, "2 clusters of 2 nodes") || !strings.Contains(d, "gateways +5ms") {
		t.Fatalf("Describe %q", d)
	}
	for i := 1; i <= 4; i++ {
		other := 3 - c.clusterOf(i)
		var links []int
		for j := 1; j <= 4; j++ {
			if c.clusterOf(j) == other {
				links = append(links, linkPort(t, c.links.route[[2]int{i, j}]))
			}
		}
		got := outboundPort(t, c.Node(i), GatewayClusterName(other))
		if !slices.Contains(links, got) {
			t.Fatalf("node %d's outbound gateway to cluster %d dials port %d, not one of its links %v", i, other, got, links)
		}
	}

	respond(t, c.Node(1), "svc")
	rtts := requestRTTs(t, connect(t, c.Node(3).ClientURL()), "svc", 15)
	t.Logf("request cluster 2 -> 1 over %s gateways: min %s P50 %s", delay, rtts[0], rtts[len(rtts)/2])
	if rtts[0] < 2*delay || rtts[len(rtts)/2] > 200*time.Millisecond {
		t.Fatalf("round trip across a %s gateway: min %s P50 %s, want >= %s and a busy host's margin", delay, rtts[0], rtts[len(rtts)/2], 2*delay)
	}

	js1 := newJS(t, connect(t, c.ClientURLs()[0]))
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	var st jetstream.Stream
	for {
		var err error
		st, err = js1.CreateStream(ctx, jetstream.StreamConfig{Name: "SC", Subjects: []string{"sc"}, Storage: jetstream.MemoryStorage})
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if cl := st.CachedInfo().Cluster; cl == nil || cl.Name != "natsperf-c1" {
		t.Fatalf("stream created from cluster 1 placed in %+v", cl)
	}
	js2 := newJS(t, connect(t, c.Node(4).ClientURL()))
	got := p50(t, js2, "sc", 9)
	if got < 2*delay || got > 200*time.Millisecond {
		t.Fatalf("publish from cluster 2 to a stream in cluster 1: P50 %s, want >= %s and a busy host's margin", got, 2*delay)
	}
	// Its replicas are cluster 1's nodes only: the other cluster holds no copy by design.
	rs := c.StreamReplicas("SC")
	held := 0
	for _, r := range rs {
		if r.Present && r.Msgs == 9 {
			held++
		}
	}
	if len(rs) != 2 || held != 1 || (rs[0].Node != "natsperf-n1" && rs[0].Node != "natsperf-n2") {
		t.Fatalf("replicas %+v: want cluster 1's two nodes, one holding the 9 messages", rs)
	}

	// A partition of node 1 cuts its gateways too, and Heal restores their delay.
	if err := c.Partition([]int{1}); err != nil {
		t.Fatal(err)
	}
	if gw := c.links.route[[2]int{1, 3}]; !gw.IsCut() || c.links.route[[2]int{3, 4}].IsCut() {
		t.Fatal("partition of node 1 did not cut exactly its links")
	}
	if err := c.Heal(); err != nil {
		t.Fatal(err)
	}
	if gw := c.links.route[[2]int{1, 3}]; gw.IsCut() || gw.Conditions().Delay != delay {
		t.Fatalf("after Heal the gateway link is cut %v with %s", gw.IsCut(), gw.Conditions())
	}
}

// TestSuperclusterDirect: two clusters of one node each, gateways without links: each node's
// outbound gateway dials the other's gateway port, and a request across it takes well under
// the 10ms a 5ms gateway would add (its fastest of 15).
func TestSuperclusterDirect(t *testing.T) {
	t.Parallel()
	opts := testOptions(1)
	opts.Gateways = 2
	c := startT(t, opts)
	if c.Size() != 2 || len(c.ClientURLs()) != 1 || c.Network() != nil {
		t.Fatalf("Size %d, ClientURLs %v, Network %v", c.Size(), c.ClientURLs(), c.Network())
	}
	if got, want := outboundPort(t, c.Node(2), "natsperf-c1"), c.nodes[0].gatewayPort; got != want {
		t.Fatalf("node 2's outbound gateway dials port %d, want node 1's gateway port %d", got, want)
	}
	respond(t, c.Node(1), "svc")
	rtts := requestRTTs(t, connect(t, c.Node(2).ClientURL()), "svc", 15)
	t.Logf("request cluster 2 -> 1, direct gateway: min %s P50 %s", rtts[0], rtts[len(rtts)/2])
	if rtts[0] >= 10*time.Millisecond {
		t.Fatalf("fastest round trip across a direct gateway %s, want well under 10ms", rtts[0])
	}
}

func TestSuperclusterRefused(t *testing.T) {
	for _, o := range []Options{
		{Gateways: 1},
		{Gateways: 10},
		{Gateways: 2, Leafnodes: 1},
		{Gateways: 2, Pausable: true},
		{Gateways: 2, Nodes: 3, Network: &link.Network{Zones: 3}},
		{Gateways: 9, Nodes: 9},
	} {
		if _, err := o.withDefaults(); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}
