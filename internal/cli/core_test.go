package cli

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

func TestPubSplitsMessagesAcrossClients(t *testing.T) {
	s := startServer(t, nil)
	tests := []struct {
		clients, msgs int
		want          []int64
	}{
		{1, 1000, []int64{1000}},
		{3, 1000, []int64{334, 333, 333}},
		{4, 2, []int64{1, 1, 0, 0}},
	}
	for _, tt := range tests {
		t.Run(fmt.Sprintf("%dx%d", tt.clients, tt.msgs), func(t *testing.T) {
			res, r := runJSON(context.Background(), t, "pub", "foo", "-s", s.ClientURL(),
				"--clients", fmt.Sprint(tt.clients), "--msgs", fmt.Sprint(tt.msgs), "--size", "32")
			if r.code != 0 || !res.Complete() {
				t.Fatalf("exit %d, stop %+v", r.code, res.Stop)
			}
			g := group(t, res, "pub")
			if got := clientMsgs(g); !slices.Equal(got, tt.want) {
				t.Fatalf("per-client msgs %v, want %v", got, tt.want)
			}
			if g.Aggregate.Msgs != int64(tt.msgs) || g.Aggregate.Bytes != int64(tt.msgs*32) {
				t.Fatalf("aggregate %d msgs %d bytes", g.Aggregate.Msgs, g.Aggregate.Bytes)
			}
		})
	}
}

// TestSubAndPubAsTwoRuns is the two-terminal workflow of the seeds: subscribers started first,
// then a publisher, both against one server.
func TestSubAndPubAsTwoRuns(t *testing.T) {
	s := startServer(t, nil)
	tests := []struct {
		name     string
		subArgs  []string
		subs     int
		pubs     int
		perSub   []int64
		wantLost int64
	}{
		{"fan-out to 2", []string{"--clients", "2"}, 2, 1, []int64{3000, 3000}, 0},
		{"2 publishers to 1", nil, 1, 2, []int64{3000}, 0},
		{"queue group of 3 shares", []string{"--clients", "3", "--queue", "q"}, 3, 1, nil, 0},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			subject := fmt.Sprintf("two.%d", i)
			subDone := make(chan *result.Result, 1)
			go func() {
				res, _ := runJSON(context.Background(), t, append([]string{"sub", subject, "-s", s.ClientURL(), "--msgs", "3000", "--idle-timeout", "2s"}, tt.subArgs...)...)
				subDone <- res
			}()
			waitForSubs(t, s, subject, tt.subs)
			_, r := runJSON(context.Background(), t, "pub", subject, "-s", s.ClientURL(), "--msgs", "3000", "--clients", fmt.Sprint(tt.pubs), "--size", "64")
			if r.code != 0 {
				t.Fatalf("pub exit %d: %s", r.code, r.err)
			}
			res := <-subDone
			g := group(t, res, "sub")
			if tt.perSub != nil && !slices.Equal(clientMsgs(g), tt.perSub) {
				t.Fatalf("per-subscriber msgs %v, want %v", clientMsgs(g), tt.perSub)
			}
			if g.Aggregate.Msgs != 3000*int64(max(1, len(tt.perSub))) {
				t.Fatalf("subscribers received %d in all", g.Aggregate.Msgs)
			}
			c := g.Aggregate.Correctness
			if c == nil || c.Lost != tt.wantLost || c.Duplicated != 0 || c.Publishers != tt.pubs {
				t.Fatalf("correctness %+v", c)
			}
			if g.Aggregate.Latency == nil || g.Aggregate.Latency.Count != g.Aggregate.Msgs {
				t.Fatalf("latency not recorded for every message: %+v", g.Aggregate.Latency)
			}
			if !res.Complete() {
				t.Fatalf("stop %+v", res.Stop)
			}
		})
	}
}

// waitForSubs waits until n subscriptions on subject are known to the server, so a publisher
// started next loses nothing. (Counting all subscriptions raced with subscribers that were
// faster than the count's baseline.)
func waitForSubs(t *testing.T, s *server.Server, subject string, n int) {
	t.Helper()
	natstest.Eventually(t, 10*time.Second, 5*time.Millisecond, func() error {
		if got := s.GlobalAccount().Interest(subject); got < n {
			return fmt.Errorf("%d subscribers on %s never appeared (%d did)", n, subject, got)
		}
		return nil
	})
}

func TestPubSubInOneProcess(t *testing.T) {
	s := startServer(t, nil)
	res, r := runJSON(context.Background(), t, "pubsub", "ps", "-s", s.ClientURL(), "--pub", "2", "--sub", "3", "--msgs", "4000", "--size", "16")
	if r.code != 0 || !res.Complete() {
		t.Fatalf("exit %d stop %+v stderr %s", r.code, res.Stop, r.err)
	}
	pub, sub := group(t, res, "pub"), group(t, res, "sub")
	if !slices.Equal(clientMsgs(pub), []int64{2000, 2000}) {
		t.Fatalf("publishers sent %v", clientMsgs(pub))
	}
	if !slices.Equal(clientMsgs(sub), []int64{4000, 4000, 4000}) {
		t.Fatalf("subscribers got %v", clientMsgs(sub))
	}
	if c := sub.Aggregate.Correctness; c.Lost != 0 || c.Publishers != 2 || c.Received != 12000 {
		t.Fatalf("correctness %+v", c)
	}
	text := run(context.Background(), t, nil, "pubsub", "ps", "-s", s.ClientURL(), "--pub", "1", "--sub", "2", "--msgs", "1000")
	for _, want := range []string{"NATS Pub/Sub stats:", " Pub stats:", " Sub stats:", "P99:", "lost 0"} {
		if !strings.Contains(text.out, want) {
			t.Errorf("text output lacks %q:\n%s", want, text.out)
		}
	}
}

func TestServiceQueueGroup(t *testing.T) {
	s := startServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan *result.Result, 1)
	go func() {
		res, _ := runJSON(ctx, t, "service", "serve", "svc", "-s", s.ClientURL(), "--clients", "2", "--msgs", "1000000")
		served <- res
	}()
	waitForSubs(t, s, "svc", 2)
	res, r := runJSON(context.Background(), t, "service", "request", "svc", "-s", s.ClientURL(), "--clients", "4", "--msgs", "2000", "--size", "16")
	if r.code != 0 || !res.Complete() {
		t.Fatalf("request exit %d stop %+v", r.code, res.Stop)
	}
	req := group(t, res, "request")
	if req.Aggregate.Msgs != 2000 || !slices.Equal(clientMsgs(req), []int64{500, 500, 500, 500}) {
		t.Fatalf("requests %v", clientMsgs(req))
	}
	if l := req.Aggregate.Latency; l == nil || l.Count != 2000 || l.Min <= 0 {
		t.Fatalf("round-trip latency %+v", l)
	}
	cancel() // Ctrl-C ends serve, which then reports what it served
	sres := <-served
	serve := group(t, sres, "serve")
	if serve.Aggregate.Msgs != 2000 {
		t.Fatalf("responders served %d, want 2000", serve.Aggregate.Msgs)
	}
	for _, c := range serve.Clients {
		if c.Msgs == 0 {
			t.Fatalf("queue group did not balance: %v", clientMsgs(serve))
		}
	}
	if sres.Stop.Reason != result.StopInterrupted {
		t.Fatalf("serve stop %+v", sres.Stop)
	}
}

func TestServiceRequestWithoutResponders(t *testing.T) {
	s := startServer(t, nil)
	r := run(context.Background(), t, nil, "service", "request", "nobody", "-s", s.ClientURL(), "--msgs", "10")
	if r.code != 1 || !strings.Contains(r.out+r.err, "no responders") {
		t.Fatalf("exit %d, out %q err %q", r.code, r.out, r.err)
	}
}
