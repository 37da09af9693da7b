package embedded

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
)

func TestSingleNode(t *testing.T) {
	t.Parallel()
	c := startT(t, testOptions(0))

	if c.Size() != 1 || c.ServerName(1) != "natsperf-n1" || c.Node(1) == nil {
		t.Fatalf("Size=%d ServerName(1)=%q Node(1)=%v", c.Size(), c.ServerName(1), c.Node(1))
	}
	if i, ok := c.NodeByName("natsperf-n1"); !ok || i != 1 {
		t.Fatalf("NodeByName = %d, %v", i, ok)
	}
	if c.Node(1).JetStreamIsClustered() {
		t.Fatal("single node must not be clustered")
	}
	urls := c.ClientURLs()
	if len(urls) != 1 || c.URL() != urls[0] || !strings.HasPrefix(urls[0], "nats://127.0.0.1:") {
		t.Fatalf("ClientURLs=%v URL=%q", urls, c.URL())
	}
	desc := c.Describe()
	for _, want := range []string{"nats-server " + server.VERSION, "JetStream, 1 node", urls[0], "store " + c.root} {
		if !strings.Contains(desc, want) {
			t.Errorf("Describe() = %q, missing %q", desc, want)
		}
	}

	js := newJS(t, connect(t, c.URL()))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "S", Subjects: []string{"s.>"}}); err != nil {
		t.Fatalf("CreateStream: %v", err)
	}
	ack, err := js.Publish(ctx, "s.1", []byte("hello"))
	if err != nil || ack.Sequence != 1 || ack.Stream != "S" {
		t.Fatalf("Publish = %+v, %v", ack, err)
	}
}

func TestShutdownCleansUp(t *testing.T) {
	// Not parallel: the goroutine count below is the whole process's, and parallel tests
	// starting their own servers beside this one made it fail on a busy machine.
	before := runtime.NumGoroutine()
	c, err := Start(context.Background(), testOptions(1))
	if err != nil {
		t.Fatal(err)
	}
	root, u := c.root, c.URL()
	if !exists(filepath.Join(root, "n1")) {
		t.Fatalf("store %s/n1 missing while running", root)
	}
	c.Shutdown()
	c.Shutdown() // idempotent

	if exists(root) {
		t.Errorf("temporary store %s survived Shutdown", root)
	}
	refused(t, u)
	if c.Node(1) != nil || len(c.ClientURLs()) != 0 {
		t.Errorf("after Shutdown: Node(1)=%v ClientURLs=%v", c.Node(1), c.ClientURLs())
	}
	if err := c.Kill(1); err == nil {
		t.Error("Kill after Shutdown succeeded")
	}
	if err := c.Restart(1); err == nil {
		t.Error("Restart after Shutdown succeeded")
	}
	// A leaked server leaves dozens of goroutines behind; a busy machine may take a while
	// to let the stopped server's goroutines finish.
	natstest.Eventually(t, 20*time.Second, 25*time.Millisecond, func() error {
		if n := runtime.NumGoroutine(); n > before+20 {
			return fmt.Errorf("%d goroutines, %d before Start", n, before)
		}
		return nil
	})
}

func TestExplicitStoreDirKept(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "store")
	opts := testOptions(1)
	opts.StoreDir = dir
	c := startT(t, opts)

	js := newJS(t, connect(t, c.URL()))
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "KEEP", Subjects: []string{"keep"}}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "keep", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.Describe(), "store "+dir) {
		t.Errorf("Describe() = %q, want store %s", c.Describe(), dir)
	}
	c.Shutdown()
	if !exists(filepath.Join(dir, "n1", "jetstream")) {
		t.Fatalf("store %s/n1/jetstream removed; an explicit StoreDir must be kept", dir)
	}
}

func TestSingleRestartSamePort(t *testing.T) {
	t.Parallel()
	c := startT(t, testOptions(1))
	before := c.URL()
	if err := c.Kill(1); err != nil {
		t.Fatal(err)
	}
	refused(t, before)
	if err := c.Restart(1); err != nil {
		t.Fatal(err)
	}
	if c.URL() != before {
		t.Fatalf("restarted on %s, want %s", c.URL(), before)
	}
	connect(t, before)
}
