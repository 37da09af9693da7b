package js_test

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/stamp"
)

func connectJS(t *testing.T) jetstream.JetStream {
	t.Helper()
	return natstest.JetStream(t, natstest.Server(t, nil).ClientURL())
}

func streamState(t *testing.T, jsc jetstream.JetStream, name string) jetstream.StreamState {
	t.Helper()
	s, err := jsc.Stream(context.Background(), name)
	if err != nil {
		t.Fatal(err)
	}
	return s.CachedInfo().State
}

// TestFillHoldsWhatWasAsked: a fill over several windows leaves exactly n messages of the size
// asked, stamped 1..n, and as many bytes as the same messages published one at a time.
func TestFillHoldsWhatWasAsked(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	jsc := connectJS(t)
	const n, size = 2345, 64 // not a whole number of windows
	for _, name := range []string{"FILLED", "REFREF"} {
		if _, err := jsc.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{name + ".x"}, Storage: jetstream.MemoryStorage}); err != nil {
			t.Fatal(err)
		}
	}
	if err := js.Fill(ctx, jsc, "FILLED.x", n, size, stamp.FillText); err != nil {
		t.Fatal(err)
	}
	// The reference: the same number of messages of the same size, each acked before the next.
	body := make([]byte, size)
	for range n {
		if _, err := jsc.Publish(ctx, "REFREF.x", body); err != nil {
			t.Fatal(err)
		}
	}
	got, want := streamState(t, jsc, "FILLED"), streamState(t, jsc, "REFREF")
	if got.Msgs != n || got.Bytes != want.Bytes || got.FirstSeq != 1 || got.LastSeq != n {
		t.Fatalf("filled stream: %d msgs, %d bytes, seq %d..%d; want %d msgs, %d bytes (reference), seq 1..%d",
			got.Msgs, got.Bytes, got.FirstSeq, got.LastSeq, n, want.Bytes, n)
	}
	s, _ := jsc.Stream(ctx, "FILLED")
	for _, seq := range []uint64{1, n} {
		m, err := s.GetMsg(ctx, seq)
		if err != nil {
			t.Fatal(err)
		}
		pub, stampSeq, _, ok := stamp.Get(m.Data)
		if len(m.Data) != size || !ok || pub != stamp.MaxPublisher || stampSeq != seq {
			t.Fatalf("message %d: %d bytes, stamp %v publisher %d seq %d", seq, len(m.Data), ok, pub, stampSeq)
		}
	}
}

// TestFillBucketHoldsEveryKey: a bucket fill puts every key once, with values of the size
// asked: as many messages and bytes as the same keys put one at a time.
func TestFillBucketHoldsEveryKey(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	jsc := connectJS(t)
	const n, size = 1500, 100
	keys := js.Keys(n)
	for _, b := range []string{"filled", "reffed"} {
		if _, err := jsc.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: b, Storage: jetstream.MemoryStorage}); err != nil {
			t.Fatal(err)
		}
	}
	if err := js.FillBucket(ctx, jsc, "filled", keys, size, stamp.FillText); err != nil {
		t.Fatal(err)
	}
	ref, err := jsc.KeyValue(ctx, "reffed") // same name length: the same subject lengths
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range keys {
		if _, err := ref.Put(ctx, k, make([]byte, size)); err != nil {
			t.Fatal(err)
		}
	}
	got, want := streamState(t, jsc, "KV_filled"), streamState(t, jsc, "KV_reffed")
	if got.Msgs != n || got.Bytes != want.Bytes {
		t.Fatalf("filled bucket: %d msgs, %d bytes; want %d msgs, %d bytes (reference)", got.Msgs, got.Bytes, n, want.Bytes)
	}
	kv, _ := jsc.KeyValue(ctx, "filled")
	for _, k := range []string{keys[0], keys[n-1]} {
		e, err := kv.Get(ctx, k)
		if err != nil {
			t.Fatalf("key %s: %v", k, err)
		}
		if len(e.Value()) != size {
			t.Fatalf("key %s: %d bytes, want %d", k, len(e.Value()), size)
		}
	}
}
