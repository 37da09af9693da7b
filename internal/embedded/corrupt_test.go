package embedded

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// TestCorruptFollower: a bit flipped in a down follower's newest block is named; once the
// follower is back, the cluster answers with every acknowledged message and the follower's own
// copy, read from it, agrees with the others again once nats-server has caught it up.
func TestCorruptFollower(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts a cluster node")
	}
	o := testOptions(3)
	o.Sync = SyncAlways
	c := startT(t, o)
	js := newJS(t, connect(t, c.URL()))
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "C", Subjects: []string{"c"}, Replicas: 3}); err != nil {
		t.Fatal(err)
	}
	const n = 300
	for i := range n {
		if _, err := js.Publish(ctx, "c", []byte("message payload of some length")); err != nil {
			t.Fatal(i, err)
		}
	}
	if _, err := c.Corrupt(1); err == nil || !strings.Contains(err.Error(), "running") {
		t.Fatalf("corrupt of a running node: %v", err)
	}
	follower := 1
	if streamLeaderNode(c, "C") == 1 {
		follower = 2
	}
	if err := c.Kill(follower); err != nil {
		t.Fatal(err)
	}
	what, err := c.Corrupt(follower)
	if err != nil || !strings.Contains(what, ".blk") {
		t.Fatalf("corrupt: %q, %v", what, err)
	}
	t.Log(what)
	if r := c.StreamReplicas("C")[follower-1]; !r.Down {
		t.Errorf("replica of the killed node %+v, want down", r)
	}
	if err := c.Restart(follower); err != nil {
		t.Fatal(err)
	}
	if got := storedAfter(ctx, t, js, "C"); got != n {
		t.Errorf("stream holds %d of %d acknowledged messages after the follower's block was corrupted", got, n)
	}
	for {
		rs := c.StreamReplicas("C")
		if r := rs[follower-1]; r.Present && r.Msgs == rs[0].Msgs && r.Msgs == rs[1].Msgs && r.Msgs == rs[2].Msgs {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("replicas never agreed: %+v", rs)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
