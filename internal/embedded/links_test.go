package embedded

import (
	"context"
	"fmt"
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/link"
)

// linkPorts is every port a link of c listens on.
func linkPorts(c *Cluster) map[int]bool {
	ports := map[int]bool{}
	for _, l := range c.links.route {
		_, p, _ := net.SplitHostPort(l.Addr())
		port, _ := strconv.Atoi(p)
		ports[port] = true
	}
	return ports
}

// checkRoutesOnLinks fails unless every route connection runs through a link. Its dialing end
// sees the link's port as the remote; its accepting end sees the link's own dial (nats-server
// may mark either end "solicited" after resolving duplicates, so that flag proves nothing).
// So between two nodes, the connections whose remote is a link must be all of them.
func checkRoutesOnLinks(t *testing.T, c *Cluster) {
	t.Helper()
	ports := linkPorts(c)
	var why string
	deadline := time.Now().Add(15 * time.Second)
	for {
		why = routesOffLinks(c, ports)
		if why == "" {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(why)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func routesOffLinks(c *Cluster, ports map[int]bool) string {
	conns := map[[2]string]int{}   // [node, peer]: route connections
	onLinks := map[[2]string]int{} // [node, peer]: of them, dialled into a link
	for i := 1; i <= c.Size(); i++ {
		rz, err := c.Node(i).Routez(&server.RoutezOptions{})
		if err != nil {
			return err.Error()
		}
		for _, r := range rz.Routes {
			k := [2]string{c.ServerName(i), r.RemoteName}
			conns[k]++
			if ports[r.Port] {
				onLinks[k]++
			}
		}
	}
	for i := 1; i <= c.Size(); i++ {
		for j := i + 1; j <= c.Size(); j++ {
			a, b := [2]string{c.ServerName(i), c.ServerName(j)}, [2]string{c.ServerName(j), c.ServerName(i)}
			if conns[a] == 0 || conns[a] != conns[b] || onLinks[a]+onLinks[b] != conns[a] {
				return fmt.Sprintf("routes %s-%s: %d and %d connections, %d through links", a[0], a[1], conns[a], conns[b], onLinks[a]+onLinks[b])
			}
		}
	}
	return ""
}

// p50 times n synchronous publishes to stream subject subj and returns their median.
func p50(t *testing.T, js jetstream.JetStream, subj string, n int) time.Duration {
	t.Helper()
	var d []time.Duration
	for range n {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		start := time.Now()
		_, err := js.Publish(ctx, subj, []byte("x"))
		cancel()
		if err != nil {
			t.Fatalf("publish: %v", err)
		}
		d = append(d, time.Since(start))
	}
	slices.Sort(d)
	return d[n/2]
}

// TestRouteDelayR3 is the physics of an R3 acknowledgement: with 5ms one way on every route,
// a publish to the leader's node waits for a follower (one round trip, >= 10ms); a publish to
// a follower's node crosses to the leader and back too (>= 20ms). Upper bounds are generous.
func TestRouteDelayR3(t *testing.T) {
	if testing.Short() {
		t.Skip("forms a delayed 3-node cluster")
	}
	t.Parallel()
	const delay = 5 * time.Millisecond
	opts := testOptions(3)
	opts.Network = &link.Network{Route: link.Conditions{Delay: delay}}
	c := startT(t, opts)
	checkRoutesOnLinks(t, c)

	nc := connect(t, c.URL())
	js := newJS(t, nc)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "R3", Subjects: []string{"r3"}, Replicas: 3, Storage: jetstream.MemoryStorage})
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(ctx)
	if err != nil || info.Cluster == nil || info.Cluster.Leader == "" {
		t.Fatalf("stream leader: %v %+v", err, info)
	}
	leader, _ := c.NodeByName(info.Cluster.Leader)
	urls := c.ClientURLs()
	for i, u := range urls {
		js := newJS(t, connect(t, u, nats.DontRandomize()))
		got := p50(t, js, "r3", 15)
		low, high := 2*delay, 2*delay+40*time.Millisecond
		if i+1 != leader {
			low, high = 4*delay, 4*delay+40*time.Millisecond
		}
		t.Logf("client on %s (leader %v): P50 %s", c.ServerName(i+1), i+1 == leader, got)
		if got < low || got > high {
			t.Errorf("client on %s (leader %v): P50 %s, want %s to %s", c.ServerName(i+1), i+1 == leader, got, low, high)
		}
	}
}

// TestPartitionHeal cuts node 1 off both ways: a publish through it gets no answer while the
// partition lasts and succeeds after Heal; routes come back through the links.
func TestPartitionHeal(t *testing.T) {
	t.Parallel()
	opts := testOptions(3)
	opts.Network = &link.Network{Zones: 3}
	c := startT(t, opts)
	if got := c.Zone(2); !slices.Equal(got, []int{2}) {
		t.Fatalf("Zone(2) = %v", got)
	}
	nc := connect(t, c.ClientURLs()[0], nats.DontRandomize())
	// A request to a responder on node 2 crosses the route 1-2.
	other := connect(t, c.ClientURLs()[1], nats.DontRandomize())
	if _, err := other.Subscribe("echo", func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
		t.Fatal(err)
	}
	_ = other.Flush()
	waitReply := func(timeout time.Duration) error {
		deadline := time.Now().Add(20 * time.Second)
		for {
			_, err := nc.Request("echo", []byte("x"), timeout)
			if err == nil || time.Now().After(deadline) {
				return err
			}
		}
	}
	if err := waitReply(time.Second); err != nil {
		t.Fatalf("before the partition: %v", err)
	}
	if err := c.Partition(c.Zone(1)); err != nil {
		t.Fatal(err)
	}
	if _, err := nc.Request("echo", []byte("x"), 300*time.Millisecond); err == nil {
		t.Fatal("a request crossed the partition")
	}
	if err := c.Heal(); err != nil {
		t.Fatal(err)
	}
	if err := waitReply(time.Second); err != nil {
		t.Fatalf("after heal: %v", err)
	}
	checkRoutesOnLinks(t, c)
	if err := c.SlowNode(2, 20*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if err := waitReply(5 * time.Second); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 40*time.Millisecond {
		t.Fatalf("a request to a node 20ms away took %s", took)
	}
}

// TestClientLink puts 5ms between a client and a single server: a request to its own
// subscription crosses the link twice each way (>= 20ms).
func TestClientLink(t *testing.T) {
	t.Parallel()
	opts := testOptions(1)
	opts.Network = &link.Network{Client: link.Conditions{Delay: 5 * time.Millisecond}}
	c := startT(t, opts)
	if port := c.publicClientPort(c.nodes[0]); port == c.nodes[0].clientPort {
		t.Fatalf("clients dial the server's own port %d", port)
	}
	nc := connect(t, c.URL())
	if _, err := nc.Subscribe("echo", func(m *nats.Msg) { _ = m.Respond(nil) }); err != nil {
		t.Fatal(err)
	}
	_ = nc.Flush()
	start := time.Now()
	if _, err := nc.Request("echo", nil, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < 20*time.Millisecond {
		t.Fatalf("request through a 5ms client link took %s", took)
	}
}
