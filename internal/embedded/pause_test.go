package embedded

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
)

func pausableOptions(nodes int) Options {
	o := testOptions(nodes)
	o.Pausable = true
	return o
}

func TestPauseSingle(t *testing.T) {
	t.Parallel()
	c := startT(t, pausableOptions(1))
	nc := connect(t, c.URL())
	if err := nc.FlushTimeout(time.Second); err != nil {
		t.Fatal(err)
	}

	t.Run("stalls then resumes by itself", func(t *testing.T) {
		const d = 400 * time.Millisecond
		begin := time.Now()
		if err := c.Pause(1, d); err != nil {
			t.Fatal(err)
		}
		if !c.Paused(1) {
			t.Fatal("Paused(1) = false right after Pause")
		}
		if err := nc.FlushTimeout(100 * time.Millisecond); err == nil {
			t.Fatal("flush succeeded against a paused server")
		}
		natstest.Eventually(t, 5*time.Second, 25*time.Millisecond, func() error { return nc.FlushTimeout(200 * time.Millisecond) })
		if took := time.Since(begin); took < d {
			t.Errorf("server answered after %s, paused for %s", took, d)
		}
		if c.Paused(1) || !nc.IsConnected() || nc.Stats().Reconnects != 0 {
			t.Errorf("after pause: Paused=%v connected=%v reconnects=%d; the connection must survive a pause",
				c.Paused(1), nc.IsConnected(), nc.Stats().Reconnects)
		}
	})

	t.Run("new connections hang until Resume", func(t *testing.T) {
		if err := c.Pause(1, time.Minute); err != nil {
			t.Fatal(err)
		}
		if nc2, err := nats.Connect(c.URL(), nats.Timeout(200*time.Millisecond)); err == nil {
			nc2.Close()
			t.Fatal("connected to a paused server")
		}
		if err := c.Resume(1); err != nil {
			t.Fatal(err)
		}
		connect(t, c.URL())
	})

	t.Run("kill while paused", func(t *testing.T) {
		if err := c.Pause(1, time.Minute); err != nil {
			t.Fatal(err)
		}
		u := c.URL()
		begin := time.Now()
		if err := c.Kill(1); err != nil {
			t.Fatal(err)
		}
		if took := time.Since(begin); took > 2*time.Second || c.Paused(1) {
			t.Errorf("Kill of a paused node took %s, Paused=%v", took, c.Paused(1))
		}
		refused(t, u)
		if err := c.Pause(1, time.Second); !errors.Is(err, ErrNodeDown) {
			t.Errorf("Pause of a killed node = %v, want ErrNodeDown", err)
		}
		if err := c.Restart(1); err != nil {
			t.Fatal(err)
		}
		if c.URL() != u {
			t.Errorf("restarted on %s, want %s", c.URL(), u)
		}
		connect(t, u)
	})

	if err := c.Pause(1, 0); err == nil {
		t.Error("Pause with zero duration succeeded")
	}
}

// TestPauseCluster checks that a paused node is cut off from its peers too,
// not only from its clients.
func TestPauseCluster(t *testing.T) {
	t.Parallel()
	begin := time.Now()
	c := startT(t, pausableOptions(3))
	t.Logf("pausable 3-node cluster ready in %s", time.Since(begin).Round(time.Millisecond))
	t.Cleanup(func() {
		begin := time.Now()
		c.Shutdown()
		t.Logf("shutdown took %s", time.Since(begin).Round(time.Millisecond))
	})
	if len(c.ClientURLs()) != 3 {
		t.Fatalf("ClientURLs = %v", c.ClientURLs())
	}
	nc := connect(t, c.ClientURLs()[0])
	js := newJS(t, nc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "P", Subjects: []string{"p"}, Replicas: 3}); err != nil {
		t.Fatal(err)
	}

	t.Run("no route traffic reaches a paused node", func(t *testing.T) {
		sub, err := connect(t, c.ClientURLs()[1]).SubscribeSync("ping")
		if err != nil {
			t.Fatal(err)
		}
		// Wait until node 1 knows about the subscription on node 2.
		natstest.Eventually(t, 5*time.Second, 25*time.Millisecond, func() error {
			if err := nc.Publish("ping", nil); err != nil {
				return err
			}
			_, err := sub.NextMsg(100 * time.Millisecond)
			return err
		})
		if err := c.Pause(2, time.Minute); err != nil {
			t.Fatal(err)
		}
		time.Sleep(50 * time.Millisecond) // let bytes read before the pause drain
		before := routeInMsgs(c.Node(2))
		for range 5 {
			nc.Publish("ping", nil)
		}
		if err := nc.FlushTimeout(time.Second); err != nil {
			t.Fatalf("node 1 stalled too: %v", err)
		}
		time.Sleep(250 * time.Millisecond)
		if got := routeInMsgs(c.Node(2)); got != before {
			t.Fatalf("paused node received %d route messages", got-before)
		}
		if err := c.Resume(2); err != nil {
			t.Fatal(err)
		}
		for i := range 5 {
			if _, err := sub.NextMsg(5 * time.Second); err != nil {
				t.Fatalf("message %d published during the pause: %v", i+1, err)
			}
		}
	})

	t.Run("paused stream leader stalls publishers on other nodes", func(t *testing.T) {
		leader := streamLeaderNode(c, "P")
		if leader == 0 {
			t.Fatal("no stream leader")
		}
		pub := newJS(t, connect(t, c.ClientURLs()[leader%3])) // a node that is not the leader
		if err := c.Pause(leader, time.Minute); err != nil {
			t.Fatal(err)
		}
		pctx, pcancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		_, err := pub.Publish(pctx, "p", []byte("stalled"))
		pcancel()
		if err == nil {
			t.Fatal("publish acknowledged while the stream leader was paused")
		}
		if err := c.Resume(leader); err != nil {
			t.Fatal(err)
		}
		natstest.Eventually(t, 10*time.Second, 25*time.Millisecond, func() error {
			pctx, pcancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer pcancel()
			_, err := pub.Publish(pctx, "p", []byte("after"))
			return err
		})
	})

	t.Run("restart behind the proxies", func(t *testing.T) {
		u := c.ClientURLs()[2]
		if err := c.Kill(3); err != nil {
			t.Fatal(err)
		}
		refused(t, u)
		if err := c.Restart(3); err != nil {
			t.Fatal(err)
		}
		if got := c.ClientURLs()[2]; got != u {
			t.Fatalf("node 3 back on %s, want %s", got, u)
		}
		js3 := newJS(t, connect(t, u))
		natstest.Eventually(t, 10*time.Second, 25*time.Millisecond, func() error {
			pctx, pcancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
			defer pcancel()
			_, err := js3.Publish(pctx, "p", []byte("via n3"))
			return err
		})
	})
}

// routeInMsgs is how many messages s has received over routes.
func routeInMsgs(s *server.Server) int64 {
	rz, err := s.Routez(nil)
	if err != nil {
		panic(fmt.Sprintf("Routez: %v", err))
	}
	var n int64
	for _, r := range rz.Routes {
		n += r.InMsgs
	}
	return n
}
