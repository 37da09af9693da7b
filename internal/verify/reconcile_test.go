package verify

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/result"
)

func startJS(t *testing.T) (*nats.Conn, jetstream.JetStream) {
	t.Helper()
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoSigs: true, NoLog: true,
		JetStream: true, StoreDir: t.TempDir(), JetStreamMaxMemory: 16 << 20, JetStreamMaxStore: 64 << 20})
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("server not ready")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	return nc, js
}

// TestReconcile stores a publisher's messages with one missing, one stored twice and one never
// acknowledged, plus another subject's and an unknown publisher's, and checks each is counted.
func TestReconcile(t *testing.T) {
	_, js := startJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "V", Subjects: []string{"v.>"}, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	pub := func(subj string, id uint32, seq uint64) {
		b := make([]byte, 32)
		stamp.Put(b, id, seq, time.Now().UnixNano())
		if _, err := js.Publish(ctx, subj, b); err != nil {
			t.Fatal(err)
		}
	}
	pub("v.before", 5, 1) // before the run: out of range
	acks := NewAcks()
	p := acks.Publisher(5, 10)
	for seq := uint64(1); seq <= 10; seq++ {
		p.Set(seq)
	}
	for seq := uint64(1); seq <= 11; seq++ {
		if seq == 4 {
			continue // acked but missing
		}
		pub("v.run", 5, seq) // 11: stored, never acked
	}
	pub("v.run", 5, 7)   // stored twice
	pub("v.run", 99, 1)  // another process's publisher
	pub("v.other", 5, 4) // another subject: not this run's
	v := Reconcile(ctx, Source{JS: js, Stream: "V", Subjects: []string{"v.run"}, FromSeq: 2}, acks)
	if v.Error != "" {
		t.Fatal(v.Error)
	}
	if v.Acked != 10 || v.Stored != 10 || v.AckedButMissing != 1 || v.Duplicates != 1 || v.StoredNotAcked != 1 {
		t.Fatalf("got %+v, want acked 10, stored 10, missing 1, duplicates 1, stored-not-acked 1", v)
	}
	if len(v.Publishers) != 1 || v.Publishers[0].ID != 5 {
		t.Fatalf("publishers %+v", v.Publishers)
	}
}

// TestReconcileStreamMissing: a stream gone after acknowledgements (a power failure can take
// its metadata) has lost every acknowledged message; without acknowledgements it is unknown.
func TestReconcileStreamMissing(t *testing.T) {
	_, js := startJS(t)
	acks := NewAcks()
	acks.Publisher(1, 1).Set(1)
	v := Reconcile(context.Background(), Source{JS: js, Stream: "NOPE", Wait: time.Second}, acks)
	if v.Error != "" || v.Acked != 1 || v.AckedButMissing != 1 || !strings.Contains(v.Note, "no longer exists") {
		t.Fatalf("want the acknowledged message lost, got %+v", v)
	}
	v = Reconcile(context.Background(), Source{JS: js, Stream: "NOPE", Wait: time.Second}, NewAcks())
	if v.Error == "" || v.AckedButMissing != 0 {
		t.Fatalf("no acknowledgements: want an error and no figures, got %+v", v)
	}
}

func TestReconcileNothingStored(t *testing.T) {
	_, js := startJS(t)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "E", Subjects: []string{"e"}, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	acks := NewAcks()
	acks.Publisher(1, 4).Set(3)
	v := Reconcile(ctx, Source{JS: js, Stream: "E", FromSeq: 1}, acks)
	if v.Error != "" || v.AckedButMissing != 1 || v.Stored != 0 {
		t.Fatalf("got %+v, want the acked message missing", v)
	}
}

func TestReconcileOtherSubjectsOnly(t *testing.T) {
	_, js := startJS(t)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "O", Subjects: []string{"o.>"}, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "o.other", make([]byte, 32)); err != nil {
		t.Fatal(err)
	}
	acks := NewAcks()
	acks.Publisher(1, 4).Set(1)
	start := time.Now()
	v := Reconcile(ctx, Source{JS: js, Stream: "O", Subjects: []string{"o.run"}, FromSeq: 1}, acks)
	if v.Error != "" || v.AckedButMissing != 1 {
		t.Fatalf("got %+v, want the acked message missing", v)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Fatalf("took %s: an empty filter must not wait for the idle timeout", d)
	}
}

// TestReconcileStreamLimits: a stream whose own limits dropped the run's first messages says so,
// so the missing ones are not read as lost by a failure.
func TestReconcileStreamLimits(t *testing.T) {
	_, js := startJS(t)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "L", Subjects: []string{"l"}, Storage: jetstream.MemoryStorage, MaxMsgs: 3}); err != nil {
		t.Fatal(err)
	}
	acks := NewAcks()
	p := acks.Publisher(7, 5)
	for seq := uint64(1); seq <= 5; seq++ {
		b := make([]byte, 32)
		stamp.Put(b, 7, seq, time.Now().UnixNano())
		if _, err := js.Publish(ctx, "l", b); err != nil {
			t.Fatal(err)
		}
		p.Set(seq)
	}
	v := Reconcile(ctx, Source{JS: js, Stream: "L", FromSeq: 1}, acks)
	if v.Error != "" || v.Stored != 3 || v.AckedButMissing != 2 {
		t.Fatalf("got %+v, want 3 stored and 2 missing", v)
	}
	if !strings.Contains(v.Note, "limits") {
		t.Fatalf("no note about the stream's limits: %+v", v)
	}
}

// TestReconcileUnreadable: a reader that may ask for the stream's state but read none of its
// messages must report exactly which sequences it could not read, and call none missing.
func TestReconcileUnreadable(t *testing.T) {
	s := natstest.Server(t, func(o *server.Options) {
		o.Users = []*server.User{
			{Username: "admin", Password: "a"},
			{Username: "reader", Password: "r", Permissions: &server.Permissions{
				Publish:   &server.SubjectPermission{Allow: []string{"$JS.API.INFO", "$JS.API.STREAM.INFO.>"}},
				Subscribe: &server.SubjectPermission{Allow: []string{"_INBOX.>"}},
			}},
		}
	})
	ctx := context.Background()
	admin, err := nats.Connect(s.ClientURL(), nats.UserInfo("admin", "a"))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	js, _ := jetstream.New(admin)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "U", Subjects: []string{"u"}, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	acks := NewAcks()
	p := acks.Publisher(3, 5)
	for seq := uint64(1); seq <= 5; seq++ {
		b := make([]byte, 32)
		stamp.Put(b, 3, seq, time.Now().UnixNano())
		if _, err := js.Publish(ctx, "u", b); err != nil {
			t.Fatal(err)
		}
		p.Set(seq)
	}
	reader, err := nats.Connect(s.ClientURL(), nats.UserInfo("reader", "r"), nats.ErrorHandler(func(*nats.Conn, *nats.Subscription, error) {}))
	if err != nil {
		t.Fatal(err)
	}
	defer reader.Close()
	rjs, _ := jetstream.New(reader)
	v := Reconcile(ctx, Source{JS: rjs, Stream: "U", FromSeq: 2, Wait: time.Second}, acks)
	if v.Error != "" || len(v.Unreadable) != 1 || v.Unreadable[0] != (result.SeqRange{First: 2, Last: 5}) {
		t.Fatalf("got %+v: want sequences 2-5 unreadable", v)
	}
	if v.AckedButMissing != 0 || v.AckedNotRead != 5 || v.Stored != 0 {
		t.Fatalf("got %+v: want the 5 acked messages not read, none called missing", v)
	}
}
