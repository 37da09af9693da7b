package nodes

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

type testNode struct{ Slot }

func TestList(t *testing.T) {
	root := t.TempDir()
	var l List[*testNode]
	for i := 1; i <= 3; i++ {
		n := &testNode{NewSlot(root, i)}
		if err := n.MakeStore(root, false); err != nil {
			t.Fatal(err)
		}
		l = append(l, n)
	}
	if n, err := l.At(2); err != nil || n.Name != "natsperf-n2" || n.StoreDir != filepath.Join(root, "n2") || n.DiskDir() != n.StoreDir {
		t.Fatalf("At(2) = %+v, %v", n, err)
	}
	if _, err := l.At(4); !errors.Is(err, ErrNoNode) || !strings.Contains(err.Error(), "node 4") || !strings.Contains(err.Error(), "cluster has 3") {
		t.Fatalf("At(4) = %v, want ErrNoNode naming node 4 and the size", err)
	}
	if ns, err := l.Pick([]int{3, 1}); err != nil || len(ns) != 2 || ns[0].Index != 3 || ns[1].Index != 1 {
		t.Fatalf("Pick(3, 1) = %v, %v", ns, err)
	}
	if _, err := l.Pick(nil); err == nil || err.Error() != "no node given" {
		t.Fatalf("Pick() = %v, want no node given", err)
	}
	if _, err := l.Pick([]int{1, 0}); !errors.Is(err, ErrNoNode) {
		t.Fatalf("Pick(1, 0) = %v, want ErrNoNode", err)
	}
	if i, ok := l.ByName("natsperf-n3"); !ok || i != 3 {
		t.Fatalf("ByName(natsperf-n3) = %d, %v", i, ok)
	}
	if _, ok := l.ByName("natsperf-n9"); ok {
		t.Fatal("ByName found a node that is not there")
	}
	if l.ServerName(1) != "natsperf-n1" || l.ServerName(0) != "" {
		t.Fatalf("ServerName(1), (0) = %q, %q", l.ServerName(1), l.ServerName(0))
	}
	// A power failure needs every node running with its store on powerfs, before any stop.
	stopped := false
	_, err := powerFail([]*testNode{l[0]}, func(*testNode) error { return nil }, func([]*testNode) { stopped = true })
	if !errors.Is(err, ErrNoPower) || stopped {
		t.Fatalf("PowerFail without powerfs = %v (stopped %v), want ErrNoPower before any stop", err, stopped)
	}
	_, err = powerFail([]*testNode{l[0]}, func(*testNode) error { return ErrNodeDown }, func([]*testNode) { stopped = true })
	if !errors.Is(err, ErrNodeDown) || stopped || !strings.Contains(err.Error(), "power-fail natsperf-n1") {
		t.Fatalf("PowerFail of a down node = %v (stopped %v), want ErrNodeDown", err, stopped)
	}
	if _, err := l[0].Corrupt(true); err == nil || !strings.Contains(err.Error(), "is running") {
		t.Fatalf("Corrupt of a running node = %v, want refused", err)
	}
}

func TestWaiter(t *testing.T) {
	pending := func() (string, error) { return "n1 not answering", nil }
	w := Waiter{Every: time.Millisecond, Timeout: 50 * time.Millisecond, Closing: make(chan struct{})}

	ctx, cancel := w.WithTimeout(context.Background())
	err := w.Poll(ctx, pending)
	cancel()
	if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "n1 not answering within 50ms") {
		t.Fatalf("own timeout: %v, want ErrNotReady naming what was pending", err)
	}

	// The caller's end is not the Waiter's timeout.
	ctx, cancel = context.WithCancel(context.Background())
	cancel()
	ctx, cancel = w.WithTimeout(ctx)
	err = w.Poll(ctx, pending)
	cancel()
	if errors.Is(err, ErrNotReady) || !errors.Is(err, context.Canceled) {
		t.Fatalf("caller's cancel: %v, want context.Canceled and not ErrNotReady", err)
	}

	closing := make(chan struct{})
	close(closing)
	w.Closing, w.Timeout = closing, time.Hour
	ctx, cancel = w.WithTimeout(context.Background())
	err = w.Poll(ctx, pending)
	cancel()
	if !errors.Is(err, ErrNotReady) || !strings.Contains(err.Error(), "shut down while waiting") {
		t.Fatalf("shutdown: %v, want ErrNotReady, shut down", err)
	}

	w.Closing = nil
	calls := 0
	err = w.Poll(context.Background(), func() (string, error) {
		if calls++; calls < 3 {
			return "not yet", nil
		}
		return "", nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("ready on the 3rd check: %v after %d calls", err, calls)
	}
	bad := errors.New("n2 failed")
	if err := w.Poll(context.Background(), func() (string, error) { return "", bad }); !errors.Is(err, bad) {
		t.Fatalf("a check's error: %v, want it returned", err)
	}
}
