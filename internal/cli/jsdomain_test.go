package cli

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
)

// TestJetStreamDomainOnLeafNode: a hub (JetStream domain "hub") and a leaf node (domain
// "leaf") joined by a leafnode connection. natsperf, connected to the leaf, publishes with
// --js-domain hub and reads back with js ordered, kv put and js get batch: the stream and the
// bucket are the hub's (the hub's own JetStream says so), none on the leaf.
func TestJetStreamDomainOnLeafNode(t *testing.T) {
	_, ps, _ := net.SplitHostPort(freePort(t))
	port, err := strconv.Atoi(ps)
	if err != nil {
		t.Fatal(err)
	}
	hub := natstest.Server(t, func(o *server.Options) {
		o.ServerName, o.JetStreamDomain = "hub", "hub"
		o.LeafNode.Host, o.LeafNode.Port = "127.0.0.1", port
	})
	remote, err := url.Parse(fmt.Sprintf("nats-leaf://127.0.0.1:%d", port))
	if err != nil {
		t.Fatal(err)
	}
	leaf := natstest.Server(t, func(o *server.Options) {
		o.ServerName, o.JetStreamDomain = "leaf", "leaf"
		o.LeafNode.Remotes = []*server.RemoteLeafOpts{{URLs: []*url.URL{remote}}}
	})
	natstest.Eventually(t, 10*time.Second, 50*time.Millisecond, func() error {
		if hub.NumLeafNodes() != 1 || leaf.NumLeafNodes() != 1 {
			return errors.New("leafnode not connected yet")
		}
		return nil
	})
	// The domain's API is reachable from the leaf before any benchmark starts.
	nc, err := nats.Connect(leaf.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	natstest.Eventually(t, 10*time.Second, 50*time.Millisecond, func() error {
		js, err := jetstream.NewWithDomain(nc, "hub")
		if err != nil {
			return err
		}
		_, err = js.AccountInfo(context.Background())
		return err
	})

	onLeaf := func(args ...string) []string {
		return append(args, "-s", leaf.ClientURL(), "--js-domain", "hub", "--maxbytes", "16MiB")
	}
	res, r := runJSON(context.Background(), t, onLeaf("js", "pub", "async", "dom.in", "--create", "--stream", "dom", "--storage", "memory", "--msgs", "500", "--verify")...)
	if r.code != exitOK {
		t.Fatalf("js pub async: exit %d: %s", r.code, r.err)
	}
	if v := res.Verify; v == nil || v.Acked != 500 || v.Stored != 500 {
		t.Fatalf("verify through the domain %+v: want 500 acked and read back", v)
	}
	res, r = runJSON(context.Background(), t, onLeaf("js", "get", "batch", "--stream", "dom", "--msgs", "500")...)
	if r.code != exitOK || res.Groups[0].Aggregate.Msgs != 500 {
		t.Fatalf("js get batch: exit %d: %s", r.code, r.err)
	}
	res, r = runJSON(context.Background(), t, onLeaf("js", "ordered", "--stream", "dom", "--msgs", "500")...)
	if r.code != exitOK || res.Groups[0].Aggregate.Msgs != 500 {
		t.Fatalf("js ordered: exit %d: %s", r.code, r.err)
	}
	if _, r = runJSON(context.Background(), t, "kv", "put", "-s", leaf.ClientURL(), "--js-domain", "hub", "--bucket", "dombucket", "--storage", "memory", "--msgs", "200"); r.code != exitOK {
		t.Fatalf("kv put: exit %d: %s", r.code, r.err)
	}

	hubJS := natstest.JetStream(t, hub.ClientURL())
	st, err := hubJS.Stream(context.Background(), "dom")
	if err != nil || st.CachedInfo().State.Msgs != 500 {
		t.Fatalf("the hub's stream dom: %v", err)
	}
	if _, err := hubJS.KeyValue(context.Background(), "dombucket"); err != nil {
		t.Fatalf("the hub's bucket dombucket: %v", err)
	}
	leafJS := natstest.JetStream(t, leaf.ClientURL())
	if _, err := leafJS.Stream(context.Background(), "dom"); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Fatalf("the leaf's own JetStream has stream dom (%v): --js-domain was not used", err)
	}
}
