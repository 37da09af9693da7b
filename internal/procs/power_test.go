package procs

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/corrupt"
	"github.com/natsperf/natsperf/internal/natstest"
)

// TestCorruptDownNode: corrupting a running process node is refused; once it is killed, one
// bit of one byte of one message block changes, in the file the detail names; RestartAll
// brings the node back on its damaged store. A power failure without powerfs stores is
// refused.
func TestCorruptDownNode(t *testing.T) {
	bin := release(t, "v2.15.3", "v2.14.10", "v2.12.15")
	c := start(t, Options{Binary: bin})
	nc, err := nats.Connect(c.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "C", Subjects: []string{"c"}}); err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if _, err := js.Publish(ctx, "c", []byte("message payload of some length")); err != nil {
			t.Fatal(i, err)
		}
	}
	if _, err := c.PowerFail([]int{1}); !errors.Is(err, ErrNoPower) {
		t.Fatalf("power-fail without powerfs stores: %v, want ErrNoPower", err)
	}
	if _, err := c.Corrupt(1); err == nil || !strings.Contains(err.Error(), "running") {
		t.Fatalf("corrupt of a running node: %v", err)
	}
	store := c.nodes[0].DiskDir()
	// nats-server writes its blocks from a flusher: wait for one on disk before the kill.
	natstest.WaitFor(t, 30*time.Second, "a message block on disk", func() bool {
		for _, b := range blocks(t, store) {
			if len(b) > 0 {
				return true
			}
		}
		return false
	})
	if err := c.Kill(1); err != nil {
		t.Fatal(err)
	}
	before := blocks(t, store)
	if len(before) == 0 {
		t.Fatalf("no message block under %s", store)
	}
	what, err := c.Corrupt(1)
	if err != nil {
		t.Fatal(err)
	}
	t.Log(what)
	changed := 0
	for path, after := range blocks(t, store) {
		was := before[path]
		if bytes.Equal(was, after) {
			continue
		}
		changed++
		rel, _ := filepath.Rel(store, path)
		if !strings.Contains(what, " "+rel+" ") {
			t.Errorf("%s changed, the detail %q names another", rel, what)
		}
		if len(was) != len(after) {
			t.Fatalf("%s: %d bytes, was %d", rel, len(after), len(was))
		}
		diff := 0
		for i := range was {
			if x := was[i] ^ after[i]; x != 0 {
				diff++
				if x != 1<<corrupt.Bit {
					t.Errorf("%s byte %d: %08b xor %08b, want one bit", rel, i, was[i], after[i])
				}
			}
		}
		if diff != 1 {
			t.Errorf("%s: %d bytes changed, want 1", rel, diff)
		}
	}
	if changed != 1 {
		t.Fatalf("%d block files changed, want 1 (%s)", changed, what)
	}
	if err := c.RestartAll([]int{1}); err != nil {
		t.Fatal(err)
	}
	if c.Pid(1) == 0 {
		t.Fatal("node 1 not running after RestartAll")
	}
}

// blocks reads every message block under store.
func blocks(t *testing.T, store string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(store, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".blk") {
			return err
		}
		b, err := os.ReadFile(p)
		out[p] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
