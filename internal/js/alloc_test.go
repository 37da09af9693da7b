package js

import (
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/payload"
	"github.com/natsperf/natsperf/internal/record"
)

// testRing is an async publisher's ring of n slots of 128 bytes with a latency recorder, as
// its ack callbacks see it, no publisher waiting.
func testRing(n int) *asyncPub {
	clk := record.NewClock()
	p := &asyncPub{rec: record.New(record.Options{Clock: clk, Latency: true}), clk: clk, wake: make(chan struct{}, 1)}
	p.msgs = make([]payload.Message, n)
	p.sent, p.intended = make([]int64, n), make([]int64, n)
	p.busy = make([]atomic.Bool, n)
	for i := range p.msgs {
		p.msgs[i].Data = make([]byte, 128)
	}
	p.base = slotBase(p.msgs)
	p.waitFor.Store(1 << 62)
	return p
}

// BenchmarkAsyncAck is the per-ack work of an async publisher: find the slot, record the
// latency. It must not allocate.
func BenchmarkAsyncAck(b *testing.B) {
	p := testRing(500)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p.onAck(nil, &p.msgs[i%500].Msg, nil)
	}
	if got := p.rec.Progress(); got == 0 {
		b.Fatal("nothing recorded")
	}
}

// TestSlot checks the ring lookup by address.
func TestSlot(t *testing.T) {
	p := &asyncPub{msgs: make([]payload.Message, 8)}
	p.base = slotBase(p.msgs)
	for i := range p.msgs {
		if got := p.slot(&p.msgs[i].Msg); got != i {
			t.Fatalf("slot(%d) = %d", i, got)
		}
	}
	if got := p.slot(&nats.Msg{}); got != -1 {
		t.Fatalf("foreign message got slot %d", got)
	}
}

// TestAsyncReplyAllocatesNothing: the ack path of a publisher that reads its acks itself
// (find the slot from the reply subject, tell an ack from an error, record) allocates nothing.
func TestAsyncReplyAllocatesNothing(t *testing.T) {
	p := testRing(8)
	sub := &nats.Subscription{}
	p.sub.Store(sub)
	ack := &nats.Msg{Subject: "_INBOX.abc.def.3", Data: []byte(`{"stream":"s","seq":7}`), Sub: sub}
	if got := testing.AllocsPerRun(1000, func() {
		p.busy[3].Store(true)
		p.onReply(ack)
	}); got != 0 {
		t.Fatalf("%v allocations per ack", got)
	}
	if got, want := p.rec.Progress(), int64(1001); got != want {
		t.Fatalf("%d acks recorded, want %d", got, want)
	}
}
