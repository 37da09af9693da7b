package idle_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/core"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

// The three receivers (core subscriber, JetStream callback consumer, JetStream fetcher) end
// on the same rules: after the idle timeout once messages stopped, not while they trickle in
// below it, and never because their connection was down.

const share = 100 // more than any test sends before it wants the receiver idle

// receiver is one kind of receiver under test, with how the test feeds it.
type receiver struct {
	name string
	// setup prepares the server side and returns the client and a publish function.
	setup func(t *testing.T, nc *nats.Conn, idle time.Duration) (harness.Client, func(n int))
	// delivered is how many messages the server says reached the client (the reference).
	delivered func(t *testing.T, nc *nats.Conn) int
}

func receivers() []receiver {
	coreSub := receiver{
		name: "core sub",
		setup: func(t *testing.T, nc *nats.Conn, idle time.Duration) (harness.Client, func(int)) {
			c := core.NewSubscriber(core.SubConfig{Subject: "idle.core", IdleTimeout: idle, PendingMsgs: -1, PendingBytes: -1})
			return c, func(n int) {
				for range n {
					if err := nc.Publish("idle.core", []byte("x")); err != nil {
						t.Errorf("publish: %v", err)
					}
				}
				if err := nc.Flush(); err != nil {
					t.Errorf("flush: %v", err)
				}
			}
		},
	}
	jsKind := func(kind string) receiver {
		return receiver{
			name: "js " + kind,
			setup: func(t *testing.T, nc *nats.Conn, idle time.Duration) (harness.Client, func(int)) {
				ctx := context.Background()
				jsc, err := jetstream.New(nc)
				if err != nil {
					t.Fatal(err)
				}
				s, err := jsc.CreateStream(ctx, jetstream.StreamConfig{Name: "IDLE", Subjects: []string{"idle.js"}, Storage: jetstream.FileStorage})
				if err != nil {
					t.Fatal(err)
				}
				cs := js.ConsumerSpec{Name: "idler", Acks: "explicit", Deliver: "all"}
				if err := js.EnsureDurable(ctx, s, cs, false); err != nil {
					t.Fatal(err)
				}
				c := js.NewConsumer(js.ConsumeConfig{Kind: kind, Stream: "IDLE", Consumer: cs, Batch: 500, IdleTimeout: idle})
				return c, func(n int) {
					for range n {
						if _, err := jsc.Publish(ctx, "idle.js", []byte("x")); err != nil {
							t.Errorf("publish: %v", err)
						}
					}
				}
			},
			delivered: func(t *testing.T, nc *nats.Conn) int {
				jsc, _ := jetstream.New(nc)
				c, err := jsc.Consumer(context.Background(), "IDLE", "idler")
				if err != nil {
					return -1
				}
				return int(c.CachedInfo().AckFloor.Consumer) // acked: the client has it
			},
		}
	}
	return []receiver{coreSub, jsKind(js.Consume), jsKind(js.Fetch)}
}

func startServer(t *testing.T) *embedded.Cluster {
	t.Helper()
	c, err := embedded.Start(context.Background(), embedded.Options{JetStreamMaxMemory: 16 << 20, JetStreamMaxStore: 64 << 20})
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(c.Shutdown)
	return c
}

// started is one receiver's run, begun, with what the test needs to feed and check it.
type started struct {
	rv      receiver
	srv     *embedded.Cluster
	pr      *harness.Prepared
	nc      *nats.Conn // the test's own connection
	publish func(n int)
}

// eachReceiver runs f for every receiver kind side by side (they mostly wait), each on a server
// of its own, with its run started and expecting share messages.
func eachReceiver(t *testing.T, idle time.Duration, f func(t *testing.T, s *started)) {
	for _, rv := range receivers() {
		t.Run(rv.name, func(t *testing.T) {
			t.Parallel()
			srv := startServer(t)
			nc, err := nats.Connect(srv.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(nc.Close)
			client, publish := rv.setup(t, nc, idle)
			r := &harness.Runner{
				Dial: func(_ context.Context, name string, opts ...nats.Option) (*nats.Conn, error) {
					return nats.Connect(srv.URL(), append(opts, nats.Name(name))...)
				},
				Grace: time.Minute, // a restart is never given up in these tests
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			t.Cleanup(cancel)
			p := &harness.Plan{Command: "idle test", Groups: []*harness.Group{{
				Name: "sub", Kind: rv.name, Verb: "expecting", Clients: 1, Shares: []int64{share},
				New: func(int) harness.Client { return client },
			}}}
			pr, err := r.Prepare(ctx, p)
			if err != nil {
				t.Fatalf("prepare: %v", err)
			}
			pr.Start(time.Time{})
			f(t, &started{rv: rv, srv: srv, pr: pr, nc: nc, publish: publish})
		})
	}
}

func received(res *result.Result) int64 { return res.Groups[0].Aggregate.Msgs }

// TestReceiversEndAfterTheIdleTimeout: each receiver ends idle no sooner than the idle timeout
// after the last message and well before twice the timeout.
func TestReceiversEndAfterTheIdleTimeout(t *testing.T) {
	t.Parallel()
	const idle = 3 * time.Second
	eachReceiver(t, idle, func(t *testing.T, s *started) {
		first := time.Now()
		s.publish(10)
		last := time.Now()
		res := s.pr.Wait()
		if res.Stop.Reason != result.StopIdle || received(res) != 10 {
			t.Fatalf("stop %+v with %d messages, want idle with 10", res.Stop, received(res))
		}
		end := res.End
		t.Logf("ended %v after the last message (timeout %v)", end.Sub(last), idle)
		if quiet := end.Sub(first); quiet < idle {
			t.Errorf("ended %v after the first message, before the idle timeout %v", quiet, idle)
		}
		// Generous for a loaded machine, but a receiver that checks only every idle
		// timeout ends about 2x the timeout after the last message.
		if quiet := end.Sub(last); quiet > idle+idle/2 {
			t.Errorf("ended %v after the last message, want about the idle timeout %v", quiet, idle)
		}
	})
}

// TestReceiversWaitWhileMessagesTrickle: messages every quarter of the idle timeout, for longer
// than the timeout, keep each receiver going; it ends idle only after the last one.
func TestReceiversWaitWhileMessagesTrickle(t *testing.T) {
	t.Parallel()
	const idle = 2 * time.Second
	const n = 8 // 8 x idle/4: twice the idle timeout
	eachReceiver(t, idle, func(t *testing.T, s *started) {
		tick := time.NewTicker(idle / 4)
		defer tick.Stop()
		var last time.Time
		for i := 0; i < n; i++ {
			s.publish(1)
			last = time.Now()
			if i < n-1 {
				<-tick.C
			}
		}
		res := s.pr.Wait()
		if res.Stop.Reason != result.StopIdle || received(res) != n {
			t.Fatalf("stop %+v with %d messages, want idle with %d", res.Stop, received(res), n)
		}
		if quiet := res.End.Sub(last); quiet < idle-idle/4 {
			t.Errorf("ended %v after the last message, want at least about the idle timeout %v", quiet, idle)
		}
	})
}

// TestDroppedConnectionIsNotIdle: a receiver whose server is down for longer than the idle
// timeout does not end idle; when the server is back it receives the rest of its share.
func TestDroppedConnectionIsNotIdle(t *testing.T) {
	t.Parallel()
	const idle = time.Second
	eachReceiver(t, idle, func(t *testing.T, s *started) {
		ended := make(chan *result.Result, 1)
		go func() { ended <- s.pr.Wait() }()
		s.publish(5)
		waitDelivered(t, s, 5)
		if err := s.srv.Kill(1); err != nil {
			t.Fatal(err)
		}
		// The scenario itself: the server stays down for 3 idle timeouts.
		time.Sleep(3 * idle)
		if err := s.srv.Restart(1); err != nil {
			t.Fatal(err)
		}
		waitResubscribed(t, s, ended)
		s.publish(share - 5)
		res := <-ended
		if res.Stop.Reason != result.StopCompleted || received(res) != share {
			t.Fatalf("stop %+v with %d messages, want completed with %d", res.Stop, received(res), share)
		}
	})
}

// waitDelivered waits until the server says n messages reached the receiver.
func waitDelivered(t *testing.T, s *started, n int) {
	t.Helper()
	natstest.Eventually(t, 20*time.Second, 20*time.Millisecond, func() error {
		got := 0
		if s.rv.delivered != nil {
			got = s.rv.delivered(t, s.nc)
		} else {
			cz, err := s.srv.Node(1).Connz(&server.ConnzOptions{SubscriptionsDetail: true})
			if err != nil {
				return err
			}
			for _, c := range cz.Conns {
				for _, sd := range c.SubsDetail {
					if sd.Subject == "idle.core" {
						got += int(sd.Msgs)
					}
				}
			}
		}
		if got != n {
			return fmt.Errorf("%d delivered, want %d", got, n)
		}
		return nil
	})
}

// waitResubscribed waits until the receiver's connection is back with its interest.
func waitResubscribed(t *testing.T, s *started, ended chan *result.Result) {
	t.Helper()
	natstest.Eventually(t, 30*time.Second, 20*time.Millisecond, func() error {
		select {
		case res := <-ended:
			t.Fatalf("the run ended before its server was back: stop %+v with %d messages", res.Stop, received(res))
		default:
		}
		if !s.nc.IsConnected() {
			return fmt.Errorf("test connection not back")
		}
		cz, err := s.srv.Node(1).Connz(nil)
		if err != nil {
			return err
		}
		for _, c := range cz.Conns {
			if strings.HasPrefix(c.Name, "natsperf-sub") && (s.rv.delivered != nil || c.NumSubs > 0) {
				return nil
			}
		}
		return fmt.Errorf("receiver not reconnected")
	})
}
