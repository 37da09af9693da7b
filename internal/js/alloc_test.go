package js

import (
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/record"
)

// BenchmarkAsyncAck is the per-ack work of an async publisher: find the slot, record the
// latency. It must not allocate.
func BenchmarkAsyncAck(b *testing.B) {
	clk := record.NewClock()
	p := &asyncPub{rec: record.New(record.Options{Clock: clk, Latency: true}), clk: clk, wake: make(chan struct{}, 1)}
	p.msgs = make([]nats.Msg, 500)
	p.sent, p.intended = make([]int64, 500), make([]int64, 500)
	p.busy = make([]atomic.Bool, 500)
	for i := range p.msgs {
		p.msgs[i].Data = make([]byte, 128)
	}
	p.base = slotBase(p.msgs)
	p.waitFor.Store(1 << 62)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		p.onAck(nil, &p.msgs[i%500], nil)
	}
	if got := p.rec.Progress(); got == 0 {
		b.Fatal("nothing recorded")
	}
}

// TestSlot checks the ring lookup by address.
func TestSlot(t *testing.T) {
	p := &asyncPub{msgs: make([]nats.Msg, 8)}
	p.base = slotBase(p.msgs)
	for i := range p.msgs {
		if got := p.slot(&p.msgs[i]); got != i {
			t.Fatalf("slot(%d) = %d", i, got)
		}
	}
	if got := p.slot(&nats.Msg{}); got != -1 {
		t.Fatalf("foreign message got slot %d", got)
	}
}
