package cli

import (
	"context"
	"strings"
	"testing"
	"time"
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
