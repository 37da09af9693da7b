package cli

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

// TestJSPubAsyncWindowStoresWhatItAcks: whatever the window (one publish at a time, an odd
// window that does not divide the share, the default), an unpaced async publisher stores
// exactly what it acknowledges and records one latency per ack; the stream and --verify's
// read-back are the reference.
func TestJSPubAsyncWindowStoresWhatItAcks(t *testing.T) {
	s := startServer(t, nil)
	js := natstest.JetStream(t, s.ClientURL())
	for _, window := range []int{1, 7, 500} {
		t.Run(strconv.Itoa(window), func(t *testing.T) {
			stream := "win" + strconv.Itoa(window)
			res, r := runJSON(context.Background(), t, at(s, "js", "pub", "async", stream+".x",
				"--stream", stream, "--create", "--storage", "memory", "--clients", "2", "--msgs", "1001",
				"--size", "64", "--batch", strconv.Itoa(window), "--verify")...)
			ackedAndStored(t, js, res, r, stream, 1001)
			v := res.Verify
			if v == nil || v.Sent != 1001 || v.Acked != 1001 || v.Stored != 1001 || v.AckedButMissing != 0 || v.Duplicates != 0 || v.Failed != 0 {
				t.Fatalf("verify %+v", v)
			}
		})
	}
}

// ackedAndStored checks that a publishing run ended well with n messages acked, n latencies
// and n messages in the stream.
func ackedAndStored(t *testing.T, js jetstream.JetStream, res *result.Result, r cliRun, stream string, n int64) {
	t.Helper()
	if r.code != 0 || !res.Complete() {
		t.Fatalf("exit %d, stop %+v, stderr %s", r.code, res.Stop, r.err)
	}
	g := group(t, res, "pub")
	if g.Aggregate.Msgs != n || g.Aggregate.Latency == nil || g.Aggregate.Latency.Count != n {
		t.Fatalf("acked %d, latency %+v, want %d of each", g.Aggregate.Msgs, g.Aggregate.Latency, n)
	}
	if got := streamMsgs(t, js, stream); got != uint64(n) {
		t.Fatalf("stream holds %d messages, want %d", got, n)
	}
}

// TestJSPubAsyncRefusedPublishesFreeTheWindow: publishes the stream refuses (full, discard
// new) settle their window slots as errors, so a small window goes on to the end; the acked
// count is what the stream holds and the refused ones are failed, never stored.
func TestJSPubAsyncRefusedPublishesFreeTheWindow(t *testing.T) {
	s := startServer(t, nil)
	js := natstest.JetStream(t, s.ClientURL())
	if _, err := js.CreateStream(context.Background(), jetstream.StreamConfig{Name: "FULL", Subjects: []string{"full.>"},
		Storage: jetstream.MemoryStorage, MaxMsgs: 300, Discard: jetstream.DiscardNew}); err != nil {
		t.Fatal(err)
	}
	res, r := runJSON(context.Background(), t, at(s, "js", "pub", "async", "full.x", "--stream", "FULL",
		"--msgs", "1000", "--size", "64", "--batch", "7", "--verify")...)
	if !res.Complete() {
		t.Fatalf("exit %d, stop %+v, stderr %s", r.code, res.Stop, r.err)
	}
	g := group(t, res, "pub")
	if g.Aggregate.Msgs != 300 || g.Aggregate.Latency == nil || g.Aggregate.Latency.Count != 300 || g.Aggregate.Events.Errors != 700 {
		t.Fatalf("acked %d, latency %+v, errors %d; want 300, 300, 700", g.Aggregate.Msgs, g.Aggregate.Latency, g.Aggregate.Events.Errors)
	}
	if got := streamMsgs(t, js, "FULL"); got != 300 {
		t.Fatalf("stream holds %d messages, want 300", got)
	}
	v := res.Verify
	if v == nil || v.Sent != 1000 || v.Acked != 300 || v.Stored != 300 || v.AckedButMissing != 0 || v.Failed != 700 {
		t.Fatalf("verify %+v", v)
	}
}

// TestJSPubAsyncWindowBound: an unpaced async publisher never has more than --batch publishes
// awaiting their acks. A watcher on the same server sees the stream's subject and the acks on
// one connection, in the server's order: an ack the publisher waited for reaches the watcher
// before the publish it let out, so publishes seen minus acks seen never exceeds the window.
func TestJSPubAsyncWindowBound(t *testing.T) {
	s := startServer(t, nil)
	const window = 5
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	// One channel for both subscriptions: the reader puts messages into it in the order the
	// server sent them (two callbacks would each run on their own goroutine).
	seen := make(chan *nats.Msg, 8192)
	for _, subject := range []string{"bound.>", "_BOUND.>"} {
		if _, err := nc.ChanSubscribe(subject, seen); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	res, r := runJSON(context.Background(), t, at(s, "js", "pub", "async", "bound.x", "--stream", "bound", "--create",
		"--storage", "memory", "--msgs", "3000", "--size", "64", "--batch", strconv.Itoa(window), "--inbox-prefix", "_BOUND")...)
	if r.code != 0 || !res.Complete() {
		t.Fatalf("exit %d, stop %+v, stderr %s", r.code, res.Stop, r.err)
	}
	var published, acked, most int
	timeout := time.After(10 * time.Second)
	for published < 3000 || acked < 3000 {
		select {
		case m := <-seen:
			switch {
			case strings.HasPrefix(m.Subject, "bound."):
				published++
			case bytes.Contains(m.Data, []byte(`"stream":"bound"`)) && bytes.Contains(m.Data, []byte(`"seq":`)):
				acked++ // a publish ack, not another reply on the inboxes
			}
			most = max(most, published-acked)
		case <-timeout:
			t.Fatalf("watcher saw %d publishes and %d acks, want 3000 of each", published, acked)
		}
	}
	if most > window || most < 1 {
		t.Fatalf("at most %d publishes awaited their acks at once, window %d", most, window)
	}
}
