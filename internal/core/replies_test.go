package core

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/stamp"
)

// TestRepliesIgnoreAStaleReply: a reply to an earlier request (one that timed out, or a
// second reply from another responder) is not taken for the answer to the current one.
func TestRepliesIgnoreAStaleReply(t *testing.T) {
	nc, err := nats.Connect(benchServer(t))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// A subscriber that never answers, so the server does not answer "no responders".
	sink, err := nc.SubscribeSync("svc.stale")
	if err != nil {
		t.Fatal(err)
	}
	defer sink.Unsubscribe()
	r, err := newReplies(nc)
	if err != nil {
		t.Fatal(err)
	}
	defer r.close()
	clk := record.NewClock()
	if err := r.send("svc.stale", []byte("a")); err != nil {
		t.Fatal(err)
	}
	first := string(r.buf) // a copy: the buffer is reused by the next send
	if m := r.wait(nil, nil, clk.Now()+int64(50*time.Millisecond), clk.Now); m != nil {
		t.Fatalf("a request nobody answered got %q", m.Data)
	}
	if err := r.send("svc.stale", []byte("b")); err != nil {
		t.Fatal(err)
	}
	if first == r.reply() {
		t.Fatalf("two requests with one reply subject %q", first)
	}
	if err := nc.Publish(first, []byte("late answer to a")); err != nil {
		t.Fatal(err)
	}
	if err := nc.Publish(r.reply(), []byte("answer to b")); err != nil {
		t.Fatal(err)
	}
	m := r.wait(nil, nil, clk.Now()+int64(5*time.Second), clk.Now)
	if m == nil || string(m.Data) != "answer to b" {
		t.Fatalf("got %v, want the answer to b", m)
	}
}

// TestRequesterCountsATimeoutAndGoesOn: a request whose reply comes after --timeout is
// counted as a timeout; its late reply is not taken for the next request's, and every other
// request is answered.
func TestRequesterCountsATimeoutAndGoesOn(t *testing.T) {
	url := benchServer(t)
	rc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer rc.Close()
	answered := 0
	sub, err := rc.Subscribe("svc.slow", func(m *nats.Msg) {
		respond := func() {
			_ = m.Respond(m.Data)
			_ = m.Respond(m.Data) // a second reply, as from a second responder
		}
		if answered++; answered == 1 {
			time.AfterFunc(300*time.Millisecond, respond) // past the requester's timeout
			return
		}
		respond()
	})
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Unsubscribe()
	if err := rc.Flush(); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	const n = 20
	env := benchEnv(t, nc, n, true)
	q := NewRequester(RequestConfig{Subject: "svc.slow", Size: 16, Timeout: 100 * time.Millisecond, IDs: stamp.NewIDs()})
	ctx := context.Background()
	if err := q.Prepare(ctx, env); err != nil {
		t.Fatal(err)
	}
	defer q.Close()
	if err := q.Run(ctx, env); err != nil {
		t.Fatal(err)
	}
	c := env.Rec.Client(1, 0, false)
	if timeouts := env.Rec.Events.Timeouts.Load(); timeouts != 1 || c.Latency.Count != n-1 {
		t.Fatalf("%d timeouts and %d answers, want 1 and %d", timeouts, c.Latency.Count, n-1)
	}
	// Each answered request waited for its own reply: none came back faster than the
	// responder's answer to it could (a stale reply taken would show a round trip of ~0).
	if c.Latency.Min < 1000 {
		t.Fatalf("a round trip of %d ns: a stale reply was taken", c.Latency.Min)
	}
}

// responder answers subject's requests with their payload on a connection of its own.
func responder(b testing.TB, url, subject string) {
	rc, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(rc.Close)
	if _, err := rc.Subscribe(subject, func(m *nats.Msg) { _ = m.Respond(m.Data) }); err != nil {
		b.Fatal(err)
	}
	if err := rc.Flush(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkRequester and BenchmarkBareRequest compare natsperf's requester (stamp, own reply
// subscription, histogram record) with nats.go's Request in a loop, as nats bench runs it;
// allocs/op include the responder's, the same in both.
func BenchmarkRequester(b *testing.B) {
	url := benchServer(b)
	responder(b, url, "bench.req")
	nc, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	env := benchEnv(b, nc, int64(b.N), true)
	q := NewRequester(RequestConfig{Subject: "bench.req", Size: 128, IDs: stamp.NewIDs()})
	if err := q.Prepare(context.Background(), env); err != nil {
		b.Fatal(err)
	}
	defer q.Close()
	b.ReportAllocs()
	b.ResetTimer()
	if err := q.Run(context.Background(), env); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if got := env.Rec.Client(1, 0, false).Latency.Count; got != int64(b.N) {
		b.Fatalf("%d answers of %d", got, b.N)
	}
}

func BenchmarkBareRequest(b *testing.B) {
	url := benchServer(b)
	responder(b, url, "bench.bare.req")
	nc, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	buf := make([]byte, 128)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := nc.Request("bench.bare.req", buf, 5*time.Second); err != nil {
			b.Fatal(err)
		}
	}
}
