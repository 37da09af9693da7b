package cli

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
)

// TestGatewaysLatency: latency on a supercluster publishes on the first cluster and receives on
// the second, a gateway 5ms away: every message crosses it once (P50 >= 5ms). The Result names
// the topology, its clusters and the gateways' delay.
func TestGatewaysLatency(t *testing.T) {
	t.Parallel()
	res, r := runJSON(context.Background(), t, "latency", "--gateways", "2", "--gateway-delay", "5ms", "--rate", "200", "--duration", "1s")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	nw := res.Network
	if nw == nil || nw.Topology != "supercluster" || nw.Clusters != 2 || nw.Nodes != 2 || nw.GatewayDelay != 5*time.Millisecond ||
		!strings.Contains(nw.Conditions(), "gateways +5ms") {
		t.Fatalf("network %+v", nw)
	}
	for _, g := range res.Groups {
		if g.Aggregate.Latency == nil || g.Aggregate.Latency.Count == 0 {
			continue
		}
		if p50 := g.Aggregate.Latency.At(50); p50 < 5*time.Millisecond || p50 > 80*time.Millisecond {
			t.Fatalf("%s: latency P50 %s across a 5ms gateway, want 5ms and a busy host's margin", g.Name, p50)
		}
		return
	}
	t.Fatal("no latency recorded")
}

// TestGatewaysUsageErrors: what a supercluster cannot measure is refused in one line, exit 2.
func TestGatewaysUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"js", "pub", "sync", "x", "--gateways", "2", "-s", "nats://127.0.0.1:1"}, "what it is"},
		{[]string{"js", "pub", "sync", "x", "--gateways", "1"}, "2..9"},
		{[]string{"js", "pub", "sync", "x", "--gateway-delay", "5ms"}, "--gateways"},
		{[]string{"js", "pub", "sync", "x", "--gateways", "2", "--leafnodes", "1"}, "--leafnodes"},
		{[]string{"js", "pub", "sync", "x", "--gateways", "2", "--zones", "2"}, "--gateway-delay"},
		{[]string{"js", "pub", "async", "x", "--gateways", "2", "--fault", "1s:pause:1s"}, "supercluster"},
		{[]string{"js", "pub", "sync", "x", "--gateways", "2", "--server-bin", "/bin/true"}, "processes"},
		{[]string{"server", "--gateways", "2", "--server-bin", "/bin/true"}, "processes"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(context.Background(), t, nil, tt.args...)
			if r.code != exitUsage || !strings.Contains(r.err, tt.want) || strings.Count(strings.TrimSpace(r.err), "\n") > 0 {
				t.Fatalf("exit %d, stderr %q; want exit %d and one line with %q", r.code, r.err, exitUsage, tt.want)
			}
		})
	}
}

// TestServerGateways: 'server --gateways 2 --gateway-delay 5ms' prints both clusters' URLs; a
// stream created from the first cluster lives there, and a synchronous publish from the second
// waits for its acknowledgement across the gateway and back (P50 >= 10ms).
func TestServerGateways(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"server", "--port", "0", "--gateways", "2", "--gateway-delay", "5ms"}, Streams{Out: &out, Err: &errb, Env: envWithHome(t.TempDir())})
	}()
	c1Line, c2Line := regexp.MustCompile(`Connect with: -s (\S+)`), regexp.MustCompile(`Cluster natsperf-c2: -s (\S+)`)
	var c1, c2 string
	natstest.Eventually(t, 60*time.Second, 20*time.Millisecond, func() error {
		m1, m2 := c1Line.FindStringSubmatch(out.String()), c2Line.FindStringSubmatch(out.String())
		if m1 == nil || m2 == nil {
			return fmt.Errorf("no URLs printed: %q %q", out.String(), errb.String())
		}
		c1, c2 = m1[1], m2[1]
		return nil
	})
	if c1 == c2 || !strings.Contains(out.String(), "supercluster: 2 clusters of 1 node") {
		t.Fatalf("output %q", out.String())
	}
	nc1, err := nats.Connect(c1)
	if err != nil {
		t.Fatal(err)
	}
	defer nc1.Close()
	js1, _ := jetstream.New(nc1)
	sctx, scancel := context.WithTimeout(ctx, 20*time.Second)
	defer scancel()
	st, err := js1.CreateStream(sctx, jetstream.StreamConfig{Name: "FAR", Subjects: []string{"far"}, Storage: jetstream.MemoryStorage, MaxBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	if cl := st.CachedInfo().Cluster; cl == nil || cl.Name != "natsperf-c1" {
		t.Fatalf("stream created from cluster 1 placed in %+v", cl)
	}
	nc2, err := nats.Connect(c2)
	if err != nil {
		t.Fatal(err)
	}
	defer nc2.Close()
	js2, _ := jetstream.New(nc2)
	var rtts []time.Duration
	for range 9 {
		start := time.Now()
		if _, err := js2.Publish(sctx, "far", []byte("x")); err != nil {
			t.Fatal(err)
		}
		rtts = append(rtts, time.Since(start))
	}
	slices.Sort(rtts)
	if p50 := rtts[4]; p50 < 10*time.Millisecond || p50 > 200*time.Millisecond {
		t.Fatalf("publish from cluster 2 to a stream in cluster 1 over 5ms gateways: P50 %s, want >= 10ms and a busy host's margin", p50)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop")
	}
}
