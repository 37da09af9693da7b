package embedded

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
)

// TestCluster shares one 3-node cluster across subtests, in order: forming
// a cluster costs seconds.
func TestCluster(t *testing.T) {
	t.Parallel()
	begin := time.Now()
	c := startT(t, testOptions(3))
	t.Logf("3-node cluster ready in %s", time.Since(begin).Round(time.Millisecond))

	nc := connect(t, c.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	js := newJS(t, nc)

	t.Run("forms", func(t *testing.T) {
		testClusterForms(t, c, js)
	})
	t.Run("kill stream leader and restart", func(t *testing.T) {
		testKillRestart(t, c, js)
	})
	t.Run("errors", func(t *testing.T) {
		if err := c.Kill(4); !errors.Is(err, ErrNoNode) {
			t.Errorf("Kill(4) = %v, want ErrNoNode", err)
		}
		if err := c.Pause(1, time.Second); !errors.Is(err, ErrNotPausable) {
			t.Errorf("Pause without Pausable = %v, want ErrNotPausable", err)
		}
		if c.Node(0) != nil || c.ServerName(4) != "" {
			t.Error("out-of-range accessors must return zero values")
		}
	})
}

func testClusterForms(t *testing.T, c *Cluster, js jetstream.JetStream) {
	urls := c.ClientURLs()
	if c.Size() != 3 || len(urls) != 3 || len(slices.Compact(slices.Sorted(slices.Values(urls)))) != 3 {
		t.Fatalf("Size=%d ClientURLs=%v", c.Size(), urls)
	}
	if d := c.Describe(); !strings.Contains(d, "3 nodes") || !strings.Contains(d, c.URL()) {
		t.Errorf("Describe() = %q", d)
	}
	leader := metaLeader(c.Node(1))
	for i := 1; i <= 3; i++ {
		s := c.Node(i)
		if s.Name() != c.ServerName(i) || !s.JetStreamIsClustered() {
			t.Errorf("node %d: name %q clustered %v", i, s.Name(), s.JetStreamIsClustered())
		}
		if got := metaLeader(s); got == "" || got != leader {
			t.Errorf("node %d sees meta leader %q, node 1 sees %q", i, got, leader)
		}
	}
	if _, ok := c.NodeByName(leader); !ok {
		t.Errorf("meta leader %q is not one of our nodes", leader)
	}

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{
		Name: "R3", Subjects: []string{"r3.>"}, Replicas: 3, Storage: jetstream.FileStorage,
	}); err != nil {
		t.Fatalf("create R3 stream: %v", err)
	}
	if _, err := js.Publish(ctx, "r3.a", []byte("1")); err != nil {
		t.Fatalf("publish: %v", err)
	}
}

func testKillRestart(t *testing.T, c *Cluster, js jetstream.JetStream) {
	victim := streamLeaderNode(c, "R3")
	if victim == 0 {
		t.Fatal("R3 has no stream leader")
	}
	url := c.ClientURLs()[victim-1]
	if err := c.Kill(victim); err != nil {
		t.Fatal(err)
	}
	if c.Node(victim) != nil || len(c.ClientURLs()) != 2 {
		t.Fatalf("after Kill: Node=%v ClientURLs=%v", c.Node(victim), c.ClientURLs())
	}
	if err := c.Kill(victim); !errors.Is(err, ErrNodeDown) {
		t.Errorf("second Kill = %v, want ErrNodeDown", err)
	}
	refused(t, url)

	// The remaining two nodes elect a new stream leader; publishing
	// resumes once they have.
	begin := time.Now()
	natstest.Eventually(t, 20*time.Second, 25*time.Millisecond, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 500*time.Millisecond)
		defer cancel()
		_, err := js.Publish(ctx, "r3.b", []byte("2"))
		return err
	})
	t.Logf("publishing resumed %s after killing the stream leader", time.Since(begin).Round(time.Millisecond))
	if l := streamLeaderNode(c, "R3"); l == 0 || l == victim {
		t.Errorf("stream leader after kill = node %d", l)
	}

	begin = time.Now()
	if err := c.Restart(victim); err != nil {
		t.Fatal(err)
	}
	t.Logf("node %d restarted in %s", victim, time.Since(begin).Round(time.Millisecond))
	if got := c.ClientURLs()[victim-1]; got != url || c.Node(victim) == nil {
		t.Fatalf("restarted node on %s, want %s", got, url)
	}
	connect(t, url)
	// It catches up with the message published while it was down.
	natstest.Eventually(t, 10*time.Second, 25*time.Millisecond, func() error {
		s := c.Node(victim)
		if !s.JetStreamIsStreamCurrent("$G", "R3") {
			return errors.New("R3 not current on the restarted node")
		}
		n, err := streamMsgs(s, "R3")
		if err == nil && n != 2 {
			err = fmt.Errorf("restarted node holds %d messages, want 2", n)
		}
		return err
	})
}

// streamLeaderNode is the 1-based node leading the stream, or 0.
func streamLeaderNode(c *Cluster, stream string) int {
	for i := 1; i <= c.Size(); i++ {
		if s := c.Node(i); s != nil && s.JetStreamIsStreamLeader("$G", stream) {
			return i
		}
	}
	return 0
}
