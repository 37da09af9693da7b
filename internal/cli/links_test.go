package cli

import (
	"context"
	"strings"
	"testing"
	"time"
)

// TestLinkR3RouteDelay: with 5ms one way on every route an R3 acknowledgement waits for a
// follower, so a synchronous publish takes at least one route round trip (10ms; 20ms from a
// follower's node). Only the lower bound is physics; the upper one is generous.
func TestLinkR3RouteDelay(t *testing.T) {
	if testing.Short() {
		t.Skip("a delayed 3-node cluster")
	}
	t.Parallel()
	res, r := runJSON(context.Background(), t, "js", "pub", "sync", "linked", "--create", "--replicas", "3", "--link-delay", "5ms", "--msgs", "60")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	nw := res.Network
	if nw == nil || !nw.Links || nw.Nodes != 3 || nw.RouteDelay != 5*time.Millisecond || nw.Topology != "cluster" {
		t.Fatalf("network %+v", nw)
	}
	p50 := res.Groups[0].Aggregate.Latency.At(50)
	if p50 < 10*time.Millisecond || p50 > 80*time.Millisecond {
		t.Fatalf("R3 P50 %s over 5ms routes, want 10ms (client on the leader's node) to 20ms and a busy host's margin", p50)
	}
}

// TestLinkClientDelay: latency crosses the client link twice (publisher to server, server to
// subscriber): P50 at least 10ms.
func TestLinkClientDelay(t *testing.T) {
	t.Parallel()
	res, r := runJSON(context.Background(), t, "latency", "--client-delay", "5ms", "--rate", "200", "--duration", "1s")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if res.Network == nil || res.Network.ClientDelay != 5*time.Millisecond {
		t.Fatalf("network %+v", res.Network)
	}
	for _, g := range res.Groups {
		if g.Aggregate.Latency == nil || g.Aggregate.Latency.Count == 0 {
			continue
		}
		if p50 := g.Aggregate.Latency.At(50); p50 < 10*time.Millisecond || p50 > 80*time.Millisecond {
			t.Fatalf("%s: latency P50 %s through 5ms client links, want 10ms and a busy host's margin", g.Name, p50)
		}
		return
	}
	t.Fatal("no latency recorded")
}

// TestLinkPartitionLeader: the stream leader cut off for 2s, then healed. No acknowledged
// message may be lost; nothing can be acknowledged while the leader is cut off (a new one needs
// a 4s election timeout), and the outage is what the client saw.
func TestLinkPartitionLeader(t *testing.T) {
	if testing.Short() {
		t.Skip("a 6s run with a partition")
	}
	t.Parallel()
	res, r := runJSON(context.Background(), t, "js", "pub", "async", "cut", "--create", "--replicas", "3", "--rate", "500",
		"--duration", "6s", "--verify", "--fault", "2s:partition", "--fault", "4s:heal")
	v, f := res.Verify, res.Faults
	if v == nil || f == nil {
		t.Fatalf("exit %d, no verify or faults; stderr %s", r.code, r.err)
	}
	if v.Error != "" || v.AckedButMissing != 0 || v.Acked == 0 || v.Stored < v.Acked {
		t.Fatalf("verify %+v: want every acknowledged message stored", *v)
	}
	if len(f.Timeline) != 2 || f.Timeline[0].Error != "" || f.Timeline[1].Error != "" || f.Timeline[0].Node == "" {
		t.Fatalf("timeline %+v", f.Timeline)
	}
	if f.Unavailable.Duration < 1500*time.Millisecond || v.Unavailable != f.Unavailable.Duration {
		t.Fatalf("unavailable %v (verify %v): want the 2s partition", f.Unavailable.Duration, v.Unavailable)
	}
	if !strings.Contains(r.err+r.out, "partition") {
		t.Fatalf("the fault is not named:\n%s", r.err)
	}
}

// TestLinkUsageErrors: the network flags are refused, in one line and exit 2, where they cannot
// be measured.
func TestLinkUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"js", "pub", "sync", "x", "--link-delay", "5ms", "-s", "nats://127.0.0.1:1"}, "what it is"},
		{[]string{"latency", "--client-delay", "5ms", "-s", "nats://127.0.0.1:1"}, "what it is"},
		{[]string{"js", "pub", "sync", "x", "--link-delay", "5ms"}, "one node"},
		{[]string{"js", "pub", "sync", "x", "--zone-delay", "1ms", "--replicas", "3"}, "--zones"},
		{[]string{"js", "pub", "sync", "x", "--link-delay", "1ms,2ms", "--replicas", "3"}, "jitter"},
		{[]string{"js", "pub", "sync", "x", "--link-bandwidth", "10", "--replicas", "3"}, "at least 1000"},
		{[]string{"js", "pub", "async", "x", "--replicas", "3", "--zones", "3", "--fault", "1s:partition:z4"}, "zone 4"},
		{[]string{"js", "pub", "async", "x", "--fault", "1s:partition:z1"}, "zone 1"},
		{[]string{"server", "--link-delay", "5ms"}, "--cluster"},
		{[]string{"run", "x.yaml", "--zones", "3"}, "target.embedded"},
	} {
		t.Run(strings.Join(tt.args, " "), func(t *testing.T) {
			r := run(context.Background(), t, nil, tt.args...)
			if r.code != exitUsage || !strings.Contains(r.err, tt.want) || strings.Count(strings.TrimSpace(r.err), "\n") > 0 {
				t.Fatalf("exit %d, stderr %q; want exit %d and one line with %q", r.code, r.err, exitUsage, tt.want)
			}
		})
	}
}

// TestLinkLeafnodes: the clients on a leaf node 5ms from the hub, JetStream on the hub (domain
// hub, set by natsperf): a synchronous publish crosses the leaf link there and back (>= 10ms).
func TestLinkLeafnodes(t *testing.T) {
	t.Parallel()
	res, r := runJSON(context.Background(), t, "js", "pub", "sync", "leafed", "--create", "--leafnodes", "1", "--link-delay", "5ms", "--msgs", "30")
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if nw := res.Network; nw == nil || nw.Topology != "leafnodes" || nw.Leafnodes != 1 || nw.RouteDelay != 5*time.Millisecond {
		t.Fatalf("network %+v", nw)
	}
	if p50 := res.Groups[0].Aggregate.Latency.At(50); p50 < 10*time.Millisecond || p50 > 80*time.Millisecond {
		t.Fatalf("P50 %s from a leaf 5ms from the hub, want 10ms and a busy host's margin", p50)
	}
}
