package idle

import (
	"testing"
	"time"
)

const ms = int64(time.Millisecond)

// TestWatchRules: the rules every receiver shares, on a clock the test drives.
func TestWatchRules(t *testing.T) {
	const timeout = 100 * time.Millisecond
	t.Run("not before messages start", func(t *testing.T) {
		w := NewWatch(timeout, false, 0, 0)
		if w.Idle(500*ms, 0, true) {
			t.Fatal("idle before any message and without the producers done")
		}
	})
	t.Run("from the first message", func(t *testing.T) {
		w := NewWatch(timeout, false, 0, 0)
		w.Idle(10*ms, 1, true) // a message at 10ms
		if w.Idle(109*ms, 1, true) || !w.Idle(110*ms, 1, true) {
			t.Fatal("want idle exactly one timeout after the last message")
		}
	})
	t.Run("from the start", func(t *testing.T) {
		w := NewWatch(timeout, true, 0, 0)
		if !w.Idle(100*ms, 0, true) {
			t.Fatal("stored messages: want idle one timeout after the start")
		}
	})
	t.Run("producers done", func(t *testing.T) {
		w := NewWatch(timeout, false, 0, 0)
		w.Arm(50 * ms)
		if w.Idle(149*ms, 0, true) || !w.Idle(150*ms, 0, true) {
			t.Fatal("want idle one timeout after the producers were done")
		}
	})
	t.Run("producers done noticed after the messages", func(t *testing.T) {
		// A fetcher saw its last message at 10ms but learns only after its 100ms fetch that the
		// producers are done: the clock keeps running from the message.
		w := NewWatch(timeout, false, 0, 0)
		w.Saw(1, 10*ms)
		w.Arm(100 * ms)
		if left := w.Left(100 * ms); left != 10*time.Millisecond {
			t.Fatalf("left %v at 100ms, want 10ms (a timeout after the message at 10ms)", left)
		}
		if !w.Idle(110*ms, 1, true) {
			t.Fatal("want idle one timeout after the last message")
		}
	})
	t.Run("connection down is not idle", func(t *testing.T) {
		w := NewWatch(timeout, true, 0, 0)
		if w.Idle(500*ms, 0, false) {
			t.Fatal("idle while the connection is down")
		}
		if w.Idle(599*ms, 0, true) || !w.Idle(600*ms, 0, true) {
			t.Fatal("want a full timeout from when the connection was last seen down")
		}
	})
	t.Run("never", func(t *testing.T) {
		w := NewWatch(Never, true, 0, 0)
		if w.Idle(int64(time.Hour), 0, true) {
			t.Fatal("Never went idle")
		}
	})
	t.Run("saw: the last message's time counts", func(t *testing.T) {
		w := NewWatch(timeout, false, 0, 0)
		w.Saw(3, 20*ms) // a fetch returned at 90ms; its last message came at 20ms
		if w.Left(90*ms) != 30*time.Millisecond || !w.Idle(120*ms, 3, true) {
			t.Fatalf("left %v at 90ms: the clock must run from the last message", w.Left(90*ms))
		}
	})
	t.Run("default and interval", func(t *testing.T) {
		w := NewWatch(0, false, 0, 0)
		if w.Timeout() != DefaultTimeout || w.Interval() != 100*time.Millisecond {
			t.Fatalf("timeout %v, interval %v", w.Timeout(), w.Interval())
		}
		if NewWatch(16*time.Millisecond, false, 0, 0).Interval() != 5*time.Millisecond {
			t.Fatal("a short timeout polls every 5ms at least")
		}
	})
}
