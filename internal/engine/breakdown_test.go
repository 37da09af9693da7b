package engine

import (
	"context"
	"io"
	"net"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/result"
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
}
