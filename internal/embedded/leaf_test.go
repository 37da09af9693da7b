package embedded

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/link"
)

// TestLeafnodes: a hub with two leaf nodes behind 5ms links. Clients connect to the leaves and
// use the hub's JetStream across the leaf connection: a synchronous publish crosses the link
// there and back (>= 10ms).
func TestLeafnodes(t *testing.T) {
	t.Parallel()
	opts := testOptions(1)
	opts.Leafnodes = 2
	opts.Network = &link.Network{Route: link.Conditions{Delay: 5 * time.Millisecond}}
	c := startT(t, opts)
	urls := c.ClientURLs()
	if len(urls) != 2 || c.Leafnodes() != 2 || !strings.Contains(c.Describe(), "2 leaf nodes (clients") {
		t.Fatalf("ClientURLs %v, Describe %q", urls, c.Describe())
	}
	if hub := c.Node(1).ClientURL(); strings.Contains(strings.Join(urls, ","), hub) {
		t.Fatalf("clients are given the hub %s", hub)
	}
	js, err := jetstream.NewWithDomain(connect(t, urls[1]), c.JetStreamDomain())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for {
		_, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "HUB", Subjects: []string{"hub"}, Storage: jetstream.MemoryStorage})
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatal(err)
		}
		time.Sleep(100 * time.Millisecond)
	}
	got := p50(t, js, "hub", 9)
	if got < 10*time.Millisecond || got > 60*time.Millisecond {
		t.Fatalf("publish from a leaf 5ms away: P50 %s, want 10ms and a busy host's margin", got)
	}
	if n, err := streamMsgs(c.Node(1), "HUB"); err != nil || n != 9 {
		t.Fatalf("the hub holds %d, %v", n, err)
	}
}
