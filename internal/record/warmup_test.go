package record

import (
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

// A fixed-rate sender's run with a warm-up, its times made up: 1,000 msgs/s for 300 ms
// (slot k at k ms), a 100 ms warm-up. It keeps its schedule but for three stalls: 20 ms
// within the warm-up (slots 40..59 sent at 60 ms), 10 ms across its end (slots 95..104 sent at
// 105 ms, owed from the warm-up and sent after it) and 5 ms after it (slots 200..204 sent at
// 205 ms). As a publisher, each send is counted when it goes; as a requester, when its reply
// comes 300 us later (an operation recorded by OpCorrected, its lateness at the send), or 7 ms
// later (the requests sent at 93 and 94 ms are answered after the warm-up: sent in it, they
// are left out with their lateness).
const (
	wuSlot  = int64(time.Millisecond)
	wuSlots = 300
	wuEnd   = 100 * wuSlot
)

func wuSent(k int64) int64 {
	switch {
	case k >= 40 && k < 60:
		return 60 * wuSlot
	case k >= 95 && k < 105:
		return 105 * wuSlot
	case k >= 200 && k < 205:
		return 205 * wuSlot
	}
	return k * wuSlot
}

// TestWarmupLeavesOutLatenessAndKeepsRate: past the warm-up, the send lateness has one value
// per message counted (the warm-up's sends, and its 20 ms stall, left out; the 10 ms owed
// across its end and the 5 ms after it in), and the rate over the measured span is the
// schedule's: the span starts at the slot of the first message counted, not at when it went,
// so the slots owed from the warm-up, sent at once after it, cannot push the rate above the
// one asked.
func TestWarmupLeavesOutLatenessAndKeepsRate(t *testing.T) {
	const epoch = int64(1e18) // Unix ns, as the clock's
	for _, tt := range []struct {
		name  string
		reply int64 // 0: a publisher, counted at the send
	}{{"publisher", 0}, {"requester", 300 * int64(time.Microsecond)}, {"slow replies", 7 * wuSlot}} {
		t.Run(tt.name, func(t *testing.T) {
			r := New(Options{Clock: NewClock(), Latency: true, Corrected: true})
			r.Start(epoch, epoch+wuEnd)
			r.Begin(epoch) // its first slot, as the senders do
			for k := range int64(wuSlots) {
				intended, sent := epoch+k*wuSlot, epoch+wuSent(k)
				if tt.reply == 0 {
					r.Sent(sent, 16)
					r.Late(intended, sent)
					continue
				}
				r.Late(intended, sent) // loop.Schedule, before the request goes
				now := sent + tt.reply
				r.OpCorrected(now, 16, now-intended, now-sent)
			}
			r.End(epoch + wuSlots*wuSlot) // the slot after the last one
			c := r.Client(1, wuSlots, false)
			const measured = wuSlots - 95 // slots 95..299: sent (and answered) after the warm-up
			if c.Msgs != measured {
				t.Fatalf("msgs %d, want %d", c.Msgs, measured)
			}
			l := c.SendLateness
			if l == nil || l.Count != c.Msgs {
				t.Fatalf("send lateness %+v: want one for each of the %d messages counted", l, c.Msgs)
			}
			if max := time.Duration(l.Max); max < 9*time.Millisecond || max > 11*time.Millisecond {
				t.Errorf("send lateness max %v: want the 10 ms owed across the warm-up's end, not its 20 ms stall", max)
			}
			if want := time.Unix(0, epoch+95*wuSlot).UTC(); !c.Start.Equal(want) {
				t.Errorf("start %v, want the slot of the first message counted, %v", c.Start, want)
			}
			// Answered 7 ms later, the span ends at the last reply (306 ms), after the
			// schedule's end: below the rate then, never above it.
			if c.MsgsPerSec > 1000.0001 || c.MsgsPerSec < 999.999 && tt.reply < wuSlot {
				t.Errorf("rate %.3f msgs/s, want the schedule's 1,000", c.MsgsPerSec)
			}
			a := Aggregate([]*Recorder{r}, []result.Client{c}, wuSlots, false)
			if a.MsgsPerSec > 1000.0001 || a.SendLateness == nil || a.SendLateness.Count != measured {
				t.Errorf("aggregate rate %.3f msgs/s, send lateness %+v: want 1,000 and %d", a.MsgsPerSec, a.SendLateness, measured)
			}
		})
	}
}

// TestWarmupBehindScheduleRateIsWhatItSent: a sender that manages half its rate (slot k at
// k ms, sent at 2k ms) falls ever further behind: past a 100 ms warm-up its rate is what it
// sent over the time it took (250 messages from 100 to 598 ms), not its messages over the
// slots they had, which started long before (at 50 ms).
func TestWarmupBehindScheduleRateIsWhatItSent(t *testing.T) {
	const epoch = int64(1e18)
	r := New(Options{Clock: NewClock(), Corrected: true})
	r.Start(epoch, epoch+wuEnd)
	r.Begin(epoch)
	for k := range int64(wuSlots) {
		intended, sent := epoch+k*wuSlot, epoch+2*k*wuSlot
		r.Sent(sent, 16)
		r.Late(intended, sent)
	}
	r.End(epoch + wuSlots*wuSlot) // the schedule's end, long before its last send
	c := r.Client(1, wuSlots, false)
	want := 250 / (498 * time.Millisecond).Seconds() // 250 messages from 100 to 598 ms
	if c.Msgs != 250 || c.SendLateness == nil || c.SendLateness.Count != 250 {
		t.Fatalf("msgs %d, send lateness %+v: want 250 each", c.Msgs, c.SendLateness)
	}
	if c.MsgsPerSec < want*0.999 || c.MsgsPerSec > want*1.001 {
		t.Fatalf("rate %.1f msgs/s, want what it sent, %.1f", c.MsgsPerSec, want)
	}
}

// TestWarmupManySparseSendersRate: 40 senders sharing 50 msgs/s (each one slot in 800 ms),
// on time, for 3.5 s with a 500 ms warm-up: the group's rate past the warm-up is the 50 asked
// (the capacity search's probes of 40 requesters read it as their achieved rate).
func TestWarmupManySparseSendersRate(t *testing.T) {
	const epoch, clients, rate = int64(1e18), 40, 50
	gap := int64(time.Second / rate) // between two slots of the group
	recs := make([]*Recorder, clients)
	out := make([]result.Client, clients)
	for i := range recs {
		r := New(Options{Clock: NewClock(), Corrected: true})
		r.Start(epoch, epoch+500*int64(time.Millisecond))
		r.Begin(epoch + int64(i)*gap)
		var k int64
		for ; int64(i)+k*clients < 3500*int64(time.Millisecond)/gap; k++ {
			slot := epoch + (int64(i)+k*clients)*gap
			r.Sent(slot+50_000, 16) // 50 us late
			r.Late(slot, slot+50_000)
		}
		r.End(epoch + (int64(i)+(k-1)*clients+1)*gap) // the group's slot after its last
		recs[i], out[i] = r, r.Client(i+1, k, false)
	}
	a := Aggregate(recs, out, 0, false)
	if a.Msgs != 150 || a.MsgsPerSec > rate*1.001 || a.MsgsPerSec < rate*0.99 {
		t.Fatalf("%d messages at %.2f msgs/s, want 150 at the %d asked", a.Msgs, a.MsgsPerSec, rate)
	}
}

// TestWarmupLateLastSendKeepsRate: a requester past a warm-up whose last request left a
// little late (2.5 ms of a 5 ms slot) and whose end is the slot after it (the schedule kept)
// did not end behind its schedule: its span starts at its first measured slot and its rate is
// the one asked. (Its start moved 2.5 ms later, and 219 requests over 1.0925 s gave 200.5/s at
// 200/s asked, under the race detector in CI.)
func TestWarmupLateLastSendKeepsRate(t *testing.T) {
	const epoch, slot, n = int64(1e18), 5 * int64(time.Millisecond), int64(300)
	warmupEnd := epoch + 100*slot
	r := New(Options{Clock: NewClock(), Latency: true, Corrected: true})
	r.Start(epoch, warmupEnd)
	r.Begin(epoch)
	for k := range n {
		intended, sent := epoch+k*slot, epoch+k*slot
		if k == n-1 {
			sent += slot / 2
		}
		r.Late(intended, sent)
		now := sent + 100*int64(time.Microsecond)
		r.OpCorrected(now, 16, now-intended, now-sent)
	}
	r.End(epoch + n*slot) // the slot after the last request
	c := r.Client(1, n, false)
	if want := time.Unix(0, warmupEnd).UTC(); !c.Start.Equal(want) {
		t.Errorf("start %v, want the first measured slot %v", c.Start, want)
	}
	if c.MsgsPerSec > 200 {
		t.Fatalf("%d requests at %.3f/s, above the 200/s asked", c.Msgs, c.MsgsPerSec)
	}
}
