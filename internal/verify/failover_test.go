package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/stamp"
)

// TestReconcileThroughLeaderKills reads an R3 stream back while its leader is killed, round
// after round (killed just before the read-back, or during it), and checks every read-back
// against a per-sequence reader of the stream written here: the read-back must finish, read
// every sequence and find exactly what the stream holds, never calling a stored message missing.
func TestReconcileThroughLeaderKills(t *testing.T) {
	if testing.Short() {
		t.Skip("kills the leader of a 3-node cluster round after round: about a minute")
	}
	// No deadline on the whole: it used to be 4 minutes, and on two loaded cores (four busy
	// loops beside it) its six kill rounds and 22,000 reference reads took 212s of them. Each
	// step has its own bound (an election and catch-up within a minute, a read-back's wait of
	// 30s); the test binary's -timeout guards against a hang.
	ctx := testContext(t)
	began := time.Now()
	c, err := embedded.Start(ctx, embedded.Options{Nodes: 3, Pausable: true, StoreDir: t.TempDir(), JetStreamMaxMemory: 64 << 20, JetStreamMaxStore: 256 << 20, ReadyTimeout: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	nc, err := nats.Connect(c.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, _ := jetstream.New(nc)
	cfg := jetstream.StreamConfig{Name: "K", Subjects: []string{"k.>"}, Replicas: 3, AllowDirect: true}
	if _, err := retry(ctx, func(ctx context.Context) (jetstream.Stream, error) { return js.CreateOrUpdateStream(ctx, cfg) }); err != nil {
		t.Fatal(err)
	}

	// A run: publisher 1 sends 1..n on k.run, every 97th never acknowledged, and another
	// subject's messages interleaved.
	const n = 20000
	acks := NewAcks()
	p := acks.Publisher(1, n)
	for seq := uint64(1); seq <= n; seq++ {
		b := make([]byte, 512) // a read-back long enough to be cut by a fault
		stamp.Put(b, 1, seq, time.Now().UnixNano())
		if _, err := js.PublishAsync("k.run", b); err != nil {
			t.Fatal(err)
		}
		if seq%97 != 0 {
			p.Set(seq)
		}
		if seq%10 == 0 {
			if _, err := js.PublishAsync("k.other", b); err != nil {
				t.Fatal(err)
			}
		}
		if seq%1000 == 0 {
			select {
			case <-js.PublishAsyncComplete():
			case <-ctx.Done():
				t.Fatal("publish acks did not come")
			}
		}
	}
	select {
	case <-js.PublishAsyncComplete():
	case <-ctx.Done():
		t.Fatal("publish acks did not come")
	}

	t.Logf("published in %s", time.Since(began).Round(time.Millisecond))
	began = time.Now()
	want := referenceRead(ctx, t, nc, "K", "k.run")
	t.Logf("reference read in %s", time.Since(began).Round(time.Millisecond))
	if want.stored != n {
		t.Fatalf("reference reader found %d of %d messages", want.stored, n)
	}
	const rounds = 6
	for round := range rounds {
		leader := streamLeader(ctx, t, js, "K")
		node, ok := c.NodeByName(leader)
		if !ok {
			t.Fatalf("round %d: leader %q is not a node", round, leader)
		}
		// The read-back connects to the leader first, as the setup connection of a run often is.
		urls := c.ClientURLs()
		rc, err := nats.Connect(urls[node-1]+","+c.URL(), nats.DontRandomize(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
		if err != nil {
			t.Fatal(err)
		}
		rjs, _ := jetstream.New(rc)
		src := Source{JS: rjs, Stream: "K", Subjects: []string{"k.run"}, FromSeq: 1, Wait: 30 * time.Second}
		// Round 0, 3: the leader dies just before the read-back starts; 1, 4: it dies as soon as
		// the read-back's consumer is created, while it reads; 2, 5: it freezes then (a crash
		// nobody is told of) for a few seconds.
		created := make(chan *nats.Msg, 64)
		sub, err := nc.ChanSubscribe("$JS.EVENT.ADVISORY.CONSUMER.CREATED.K.>", created)
		if err != nil {
			t.Fatal(err)
		}
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
		// Flush says only that nc's own server has the subscription; the advisory comes from
		// whichever node leads the consumer, which learns of the interest over a route. On a
		// busy machine the read-back's consumer could be made first and its advisory missed.
		natstest.WaitFor(t, 10*time.Second, "every node to know of the advisory subscription", func() bool {
			for i := 1; i <= c.Size(); i++ {
				if srv := c.Node(i); srv != nil && !srv.GlobalAccount().SubscriptionInterest("$JS.EVENT.ADVISORY.CONSUMER.CREATED.K.probe") {
					return false
				}
			}
			return true
		})
		killed := make(chan error, 1)
		fault := func() error { return c.Kill(node) }
		if round%3 == 2 {
			fault = func() error { return c.Pause(node, 7*time.Second) }
		}
		if round%3 == 0 {
			killed <- fault()
		} else {
			go func() {
				select {
				case <-created:
					killed <- fault()
				case <-time.After(time.Minute):
					killed <- errors.New("no consumer created by the read-back")
				}
			}()
		}
		start := time.Now()
		v := Reconcile(ctx, src, acks)
		rc.Close()
		if err := <-killed; err != nil {
			t.Fatal(err)
		}
		_ = sub.Unsubscribe()
		t.Logf("round %d: fault on leader %s, read back in %s: %+v", round, leader, time.Since(start).Round(time.Millisecond), v)
		if v.Error != "" || len(v.Unreadable) != 0 {
			t.Fatalf("round %d: the read-back did not read the stream: error %q, unreadable %v", round, v.Error, v.Unreadable)
		}
		if v.Stored != want.stored || v.AckedButMissing != 0 || v.StoredNotAcked != n/97 || v.Duplicates != 0 {
			t.Fatalf("round %d: stored %d missing %d not-acked %d dups %d; the stream holds %d (all acked ones), %d never acked",
				round, v.Stored, v.AckedButMissing, v.StoredNotAcked, v.Duplicates, want.stored, n/97)
		}
		began = time.Now()
		if round%3 == 2 {
			_ = c.Resume(node)
		} else if err := c.Restart(node); err != nil {
			t.Fatalf("round %d: restart %s: %v", round, leader, err)
		}
		waitCurrent(ctx, t, js, "K")
		t.Logf("round %d: %s current again after %s", round, leader, time.Since(began).Round(time.Millisecond))
	}
}

// reference is what a per-sequence reader found of one subject.
type reference struct{ stored int64 }

// referenceRead asks the stream leader for every sequence, one request each, through the
// JetStream API (not natsperf's read-back), and counts the distinct stamps on subject.
func referenceRead(ctx context.Context, t *testing.T, nc *nats.Conn, stream, subject string) reference {
	t.Helper()
	type apiMsg struct {
		Message *struct {
			Subject string `json:"subject"`
			Data    []byte `json:"data"`
		} `json:"message"`
		Error *struct {
			Code int `json:"code"`
		} `json:"error"`
	}
	seen := NewBits(0)
	var ref reference
	for seq := uint64(1); ; seq++ {
		var resp apiMsg
		natstest.Eventually(t, 30*time.Second, 50*time.Millisecond, func() error {
			req := fmt.Sprintf(`{"seq":%d}`, seq)
			m, err := nc.RequestWithContext(ctx, "$JS.API.STREAM.MSG.GET."+stream, []byte(req))
			if err == nil {
				err = json.Unmarshal(m.Data, &resp)
			}
			if err != nil {
				return fmt.Errorf("reference read of sequence %d: %w", seq, err)
			}
			return nil
		})
		if resp.Error != nil && resp.Error.Code == 404 {
			return ref // past the last sequence: this stream has no deletes
		}
		if resp.Message == nil {
			t.Fatalf("reference read of sequence %d: %+v", seq, resp.Error)
		}
		if resp.Message.Subject != subject {
			continue
		}
		if id, s, _, ok := stamp.Get(resp.Message.Data); ok && id == 1 && !seen.Set(s) {
			ref.stored++
		}
	}
}

func streamLeader(ctx context.Context, t *testing.T, js jetstream.JetStream, name string) string {
	t.Helper()
	info, err := retry(ctx, func(ctx context.Context) (*jetstream.StreamInfo, error) {
		s, err := js.Stream(ctx, name)
		if err != nil {
			return nil, err
		}
		info := s.CachedInfo()
		if info.Cluster == nil || info.Cluster.Leader == "" {
			return nil, errors.New("no leader")
		}
		return info, nil
	})
	if err != nil {
		t.Fatalf("stream leader: %v", err)
	}
	return info.Cluster.Leader
}

// waitCurrent waits until the stream has a leader and both replicas are current.
func waitCurrent(ctx context.Context, t *testing.T, js jetstream.JetStream, name string) {
	t.Helper()
	_, err := retry(ctx, func(ctx context.Context) (*jetstream.StreamInfo, error) {
		s, err := js.Stream(ctx, name)
		if err != nil {
			return nil, err
		}
		info := s.CachedInfo()
		if info.Cluster == nil || info.Cluster.Leader == "" || len(info.Cluster.Replicas) != 2 {
			return nil, errors.New("replicas missing")
		}
		for _, r := range info.Cluster.Replicas {
			if !r.Current || r.Offline {
				return nil, fmt.Errorf("replica %s not current", r.Name)
			}
		}
		return info, nil
	})
	if err != nil {
		t.Fatalf("stream %s never current again: %v", name, err)
	}
}

// retry calls f with short deadlines until it succeeds, for a minute at most.
func retry[T any](ctx context.Context, f func(context.Context) (T, error)) (T, error) {
	deadline := time.Now().Add(time.Minute)
	for {
		cctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		v, err := f(cctx)
		cancel()
		if err == nil || ctx.Err() != nil || time.Now().After(deadline) {
			return v, err
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// testContext ends with the test, and a little before the test binary's -timeout would kill
// it, so a stuck step fails with what it was waiting for instead of a goroutine dump.
func testContext(t *testing.T) context.Context {
	ctx := t.Context()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-10*time.Second))
		t.Cleanup(cancel)
	}
	return ctx
}
