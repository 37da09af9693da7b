package procs

import (
	"context"
	"errors"
	"net"
	"os"
	"strings"
	"testing"
	"time"
)

// TestTakenPort: a node whose port is taken exits, and Start says so (naming the server's own
// words) rather than waiting out the ready timeout; with free ports picked again it starts.
func TestTakenPort(t *testing.T) {
	bin := release(t, "v2.12.15", "v2.15.3", "v2.14.10", "v2.11.17", "v2.10.27")
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// the client port given and taken: refused at once, before any server runs
	_, err = Start(ctx, Options{Binary: bin, Port: l.Addr().(*net.TCPAddr).Port})
	if err == nil || !strings.Contains(err.Error(), "unavailable") {
		t.Fatalf("Start on a taken port: %v", err)
	}
	// a server that exits because its port went: the error names the server's words
	c := &Cluster{opts: Options{Binary: bin, Nodes: 1, Host: defaultHost, ReadyTimeout: time.Minute, JetStreamMaxMemory: 1 << 20, JetStreamMaxStore: 1 << 20}, closing: make(chan struct{})}
	c.opts.StoreDir = t.TempDir()
	if err := c.makeStore(); err != nil {
		t.Fatal(err)
	}
	if err := c.makePorts(); err != nil {
		t.Fatal(err)
	}
	c.nodes[0].clientPort = l.Addr().(*net.TCPAddr).Port
	if err := os.WriteFile(c.nodes[0].confPath, []byte(c.config(c.nodes[0])), 0o600); err != nil {
		t.Fatal(err)
	}
	defer c.Shutdown()
	if err := c.startNode(c.nodes[0]); err != nil {
		t.Fatal(err)
	}
	err = c.poll(ctx, func() (string, error) { return c.listening(c.nodes[0]) })
	if !errors.Is(err, errPortTaken) {
		t.Fatalf("a server on a taken port: %v, want errPortTaken", err)
	}
}
