package record

import (
	"sync/atomic"
	"testing"

	"github.com/natsperf/natsperf/internal/stamp"
)

// Split places the split point on natsperf's clock by the server's offset, and the two parts
// always add up to the end-to-end latency, clamped when an estimate is off by more than a part.
func TestSplit(t *testing.T) {
	const ms = 1_000_000
	for _, c := range []struct {
		name                    string
		total, now, stored, off int64
		toStored, toDelivered   int64
	}{
		{"one clock", 3 * ms, 10 * ms, 9 * ms, 0, 2 * ms, 1 * ms},
		// The server's clock is 0.5 ms ahead: its stamp 9.5 ms is 9 ms on natsperf's clock.
		{"server ahead", 3 * ms, 10 * ms, 9*ms + ms/2, ms / 2, 2 * ms, 1 * ms},
		// 0.5 ms behind: its stamp 8.5 ms is 9 ms here.
		{"server behind", 3 * ms, 10 * ms, 8*ms + ms/2, -ms / 2, 2 * ms, 1 * ms},
		// Uncorrected, the 0.5 ms ahead server would move 0.5 ms into publish -> stored.
		{"ahead, uncorrected", 3 * ms, 10 * ms, 9*ms + ms/2, 0, 2*ms + ms/2, ms / 2},
		// A stamp after delivery on natsperf's clock (an estimate off by more than the part):
		// stored -> delivered is 0, publish -> stored all of it.
		{"stored after delivery", 3 * ms, 10 * ms, 11 * ms, 0, 3 * ms, 0},
		// A stamp before the send: publish -> stored is 0.
		{"stored before the send", 3 * ms, 10 * ms, 5 * ms, 0, 0, 3 * ms},
		{"offset pushes it before the send", 3 * ms, 10 * ms, 9 * ms, 4 * ms, 0, 3 * ms},
		{"negative total (a skewed publisher)", -1, 10 * ms, 9 * ms, 0, 0, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, d := Split(c.total, c.now, c.stored, c.off)
			if s != c.toStored || d != c.toDelivered {
				t.Fatalf("Split(%d, %d, %d, %d) = %d, %d; want %d, %d", c.total, c.now, c.stored, c.off, s, d, c.toStored, c.toDelivered)
			}
			if c.total >= 0 && s+d != c.total {
				t.Fatalf("parts %d + %d != total %d", s, d, c.total)
			}
		})
	}
}

// A recorder given the server's clock offset splits by it, still without allocating.
func TestReceivedStoredCorrectsByTheServersClock(t *testing.T) {
	clk := NewClock()
	var off atomic.Int64
	r := New(Options{Clock: clk, Latency: true, StoredClock: &off})
	off.Store(400_000) // the server's clock is 0.4 ms ahead, set before the first message
	buf := make([]byte, stamp.Size)
	now := clk.Now()
	stamp.Put(buf, 3, 1, now-3_000_000)
	stored := now - 1_000_000 + 400_000 // stored 2 ms after the send on natsperf's clock
	r.ReceivedStored(now, len(buf), buf, 0, stored)
	if n := testing.AllocsPerRun(100, func() { r.ReceivedStored(now, len(buf), buf, 0, stored) }); n != 0 {
		t.Fatalf("%v allocations per message", n)
	}
	b := Breakdown(r)
	if b == nil || b.PublishToStored.Min < 1_998_000 || b.PublishToStored.Max > 2_002_000 || b.StoredToDelivered.Min < 999_000 || b.StoredToDelivered.Max > 1_001_000 {
		t.Fatalf("breakdown %+v %+v, want 2 ms and 1 ms", b.PublishToStored, b.StoredToDelivered)
	}
}
