package engine

import (
	"context"
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// delayingProxy forwards TCP to upstream, holding every byte from the server to the client
// for delay (the client's bytes to the server go at once): a consumer behind it gets each
// message delay after the server sent it, its publishes reach the server undelayed.
func delayingProxy(t *testing.T, upstream string, delay time.Duration) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s, err := net.Dial("tcp", upstream)
			if err != nil {
				c.Close()
				continue
			}
			go func() { io.Copy(s, c); s.Close() }()
			go delayed(c, s, delay)
		}
	}()
	return "nats://" + ln.Addr().String()
}

// delayed copies from to to, each chunk delay after it was read, in order.
func delayed(to net.Conn, from net.Conn, delay time.Duration) {
	type chunk struct {
		at time.Time
		b  []byte
	}
	q := make(chan chunk, 4096)
	go func() {
		defer to.Close()
		for c := range q {
			time.Sleep(time.Until(c.at))
			if _, err := to.Write(c.b); err != nil {
				return
			}
		}
	}()
	defer close(q)
	for {
		b := make([]byte, 32<<10)
		n, err := from.Read(b)
		if n > 0 {
			q <- chunk{time.Now().Add(delay), b[:n]}
		}
		if err != nil {
			return
		}
	}
}

const breakdownSpec = `
version: natsperf.spec/v1
workloads:
  - kind: pubsub
    pacing: {rate: 500, duration: 2s}
    config: {subject: bd, pubs: 1, subs: 1, js: {stream: bdstream}}
`

// A JetStream consumer's latency splits at the moment the stream stored each message: the
// two parts add up to the end-to-end latency (their means, within the histograms'
// precision), and 5 ms added between the server and its clients, on the way to the clients
// only, land in stored -> delivered (its least value carries them), not in publish -> stored
// (its least value does not).
func TestBreakdownAddsUpAndPlacesTheDelay(t *testing.T) {
	const delay = 5 * time.Millisecond
	srv := natstest.Server(t, nil)
	s := parseSpec(t, breakdownSpec)
	s.Target.Servers = []string{delayingProxy(t, srv.Addr().String(), delay)}
	res, err := Execute(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var sub *result.Aggregate
	for i, g := range res.Groups {
		if g.Name == "sub" {
			sub = &res.Groups[i].Aggregate
		}
	}
	if sub == nil || sub.Breakdown == nil || sub.Latency == nil {
		t.Fatalf("no breakdown: %+v", sub)
	}
	b, e2e := sub.Breakdown, sub.Latency
	if b.PublishToStored.Count != e2e.Count || b.StoredToDelivered.Count != e2e.Count || e2e.Count < 900 {
		t.Fatalf("counts: e2e %d, publish->stored %d, stored->delivered %d", e2e.Count, b.PublishToStored.Count, b.StoredToDelivered.Count)
	}
	sum := b.PublishToStored.Mean + b.StoredToDelivered.Mean
	if d := sum - e2e.Mean; d > e2e.Mean*0.002 || d < -e2e.Mean*0.002 {
		t.Errorf("means: publish->stored %.0f + stored->delivered %.0f = %.0f, end-to-end %.0f", b.PublishToStored.Mean, b.StoredToDelivered.Mean, sum, e2e.Mean)
	}
	if m := b.StoredToDelivered.Min; m < int64(delay) {
		t.Errorf("stored -> delivered min %v, under the proxy's %v", time.Duration(m), delay)
	}
	// Had the delay leaked into publish -> stored, every message would carry it: its least
	// value is below the delay however busy the host (a P50 was 19 ms at load average 15).
	if m := b.PublishToStored.Min; m >= int64(delay) {
		t.Errorf("publish -> stored min %v: the delay leaked into it", time.Duration(m))
	}
	// A server given without a monitoring endpoint: no estimate of its clock, said so.
	if c := b.Clock; c == nil || c.Basis != result.ClockUncorrected || c.OffsetNS != 0 || c.Note == "" {
		t.Errorf("clock %+v, want uncorrected with a reason", c)
	}
}

// subBreakdown is the consumers' breakdown of a run, and checks that its parts add up to
// the end-to-end latency (their means, within the histograms' precision).
func subBreakdown(t *testing.T, res *result.Result) *result.Breakdown {
	t.Helper()
	for _, g := range res.Groups {
		if g.Name != "sub" {
			continue
		}
		b, e2e := g.Aggregate.Breakdown, g.Aggregate.Latency
		// Every message with a latency is split (how many the sync publisher got out in 2 s
		// is the machine's speed: 564 of 1,000 at load 15).
		if b == nil || e2e == nil || b.PublishToStored.Count != e2e.Count || b.StoredToDelivered.Count != e2e.Count || e2e.Count < 100 {
			t.Fatalf("breakdown %+v, latency %+v", b, e2e)
		}
		sum := b.PublishToStored.Mean + b.StoredToDelivered.Mean
		if d := sum - e2e.Mean; d > e2e.Mean*0.002 || d < -e2e.Mean*0.002 {
			t.Errorf("means: publish->stored %.0f + stored->delivered %.0f = %.0f, end-to-end %.0f", b.PublishToStored.Mean, b.StoredToDelivered.Mean, sum, e2e.Mean)
		}
		for _, c := range g.Clients {
			if c.Breakdown == nil || c.Breakdown.Clock == nil || *c.Breakdown.Clock != *b.Clock {
				t.Errorf("client %d's breakdown clock %+v, the group's %+v", c.ID, c.Breakdown, b.Clock)
			}
		}
		return b
	}
	t.Fatal("no sub group")
	return nil
}

// The breakdown says how its split was put on natsperf's clock: exact (offset 0) on the
// embedded server; through a monitoring endpoint, corrected by the server's offset estimated
// before the run, which on loopback (one clock) is 0 within its stated uncertainty; the parts
// add up to the end-to-end latency either way, and the text prints the offset.
func TestBreakdownClock(t *testing.T) {
	embeddedRun := parseSpec(t, breakdownSpec)
	embeddedRun.Target.Embedded = &spec.Embedded{}
	res, err := Execute(context.Background(), embeddedRun, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if c := subBreakdown(t, res).Clock; c == nil || *c != (result.StoredClock{Basis: result.ClockExact}) {
		t.Errorf("embedded: clock %+v, want exact", c)
	}
	if text := textOf(t, res); !strings.Contains(text, "exact, the server shares natsperf's clock") {
		t.Errorf("embedded text:\n%s", text)
	}

	srv, mon := monitoredServer(t)
	monitored := parseSpec(t, breakdownSpec)
	monitored.Target.Servers, monitored.Target.Monitor = []string{srv.ClientURL()}, []string{mon}
	res, err = Execute(context.Background(), monitored, Options{})
	if err != nil {
		t.Fatal(err)
	}
	c := subBreakdown(t, res).Clock
	if c == nil || c.Basis != result.ClockEstimated || c.Server != srv.Name() || c.UncertaintyNS <= 0 {
		t.Fatalf("monitored: clock %+v, want estimated from %s", c, srv.Name())
	}
	if c.OffsetNS < -c.UncertaintyNS || c.OffsetNS > c.UncertaintyNS {
		t.Errorf("offset %d ns ± %d ns on loopback: the bound does not contain 0", c.OffsetNS, c.UncertaintyNS)
	}
	t.Logf("loopback offset %d ns ± %d ns", c.OffsetNS, c.UncertaintyNS)
	if text := textOf(t, res); !strings.Contains(text, "put on natsperf's clock by "+srv.Name()+"'s clock offset") {
		t.Errorf("monitored text:\n%s", text)
	}
}
