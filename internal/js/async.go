package js

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/internal/payload"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/stamp"
)

// DefaultAsyncWindow is how many async publishes await their acks at once (nats bench's --batch).
const DefaultAsyncWindow = 500

// asyncPub publishes a window of messages without waiting, then waits for every ack of the
// window before the next one, as nats bench does. Each ack is recorded when it arrives, with its
// own publish-to-ack latency: the window's messages live in a ring of slots (body, headers, send
// time) that nothing reuses before the ack, so nothing is allocated per message here.
//
// The recorder has one writer: nats.go's ack goroutine (one per connection). The publishing
// goroutine only touches the ring before a publish, which the library's lock orders before the
// ack, and the atomic counters.
type asyncPub struct {
	pubBase
	rec      *record.Recorder
	clk      record.Clock
	window   int
	msgs     []payload.Message
	idBufs   [][]byte
	sent     []int64
	intended []int64
	seqs     []uint64 // each slot's sequence number, for --verify
	base     uintptr
	paced    bool
	first    int64 // intended send time of the first message, for Begin
	begun    bool  // ack goroutine only

	settled atomic.Int64 // acks and errors so far
	waitFor atomic.Int64
	wake    chan struct{}
	active  atomic.Int32 // ack callbacks inside the recorder
	closing atomic.Bool
}

func (p *asyncPub) Prepare(ctx context.Context, env *bench.Env) error {
	p.window = p.cfg.Batch
	if p.window <= 0 {
		p.window = DefaultAsyncWindow
	}
	p.rec, p.clk, p.paced = env.Rec, env.Clock, p.cfg.Rate > 0
	p.wake = make(chan struct{}, 1)
	err := p.prepare(ctx, env,
		jetstream.WithPublishAsyncAckHandler(p.onAck),
		jetstream.WithPublishAsyncErrHandler(p.onErr),
		jetstream.WithPublishAsyncTimeout(p.cfg.AckTimeout),
		jetstream.WithPublishAsyncMaxPending(p.window+1),
	)
	if err != nil {
		return err
	}
	p.msgs = make([]payload.Message, p.window)
	p.sent = make([]int64, p.window)
	p.intended = make([]int64, p.window)
	p.seqs = make([]uint64, p.window)
	body, _, err := p.body()
	if err != nil {
		return err
	}
	for i := range p.msgs {
		p.msgs[i].CopyOf(body) // in place: a slot points into itself
		if p.cfg.Dedup {
			p.idBufs = append(p.idBufs, withID(&p.msgs[i], true))
		}
	}
	p.base = slotBase(p.msgs)
	return nil
}

// slotBase is the ring's address, for slot.
func slotBase(msgs []payload.Message) uintptr { return uintptr(unsafe.Pointer(&msgs[0].Msg)) }

// slot finds a message's place in the ring from its address.
func (p *asyncPub) slot(m *nats.Msg) int {
	d := uintptr(unsafe.Pointer(m)) - p.base
	size := unsafe.Sizeof(payload.Message{})
	if d%size != 0 || d/size >= uintptr(len(p.msgs)) {
		return -1
	}
	return int(d / size)
}

func (p *asyncPub) onAck(_ jetstream.JetStream, m *nats.Msg, _ *jetstream.PubAck) {
	now := p.clk.Now()
	p.active.Add(1)
	if i := p.slot(m); i >= 0 && !p.closing.Load() {
		if !p.begun {
			p.rec.Begin(p.first)
			p.begun = true
		}
		if p.paced {
			p.rec.OpCorrected(now, len(m.Data), now-p.intended[i], now-p.sent[i])
		} else {
			p.rec.Op(now, len(m.Data), now-p.sent[i])
		}
		if p.cfg.Acked != nil {
			p.cfg.Acked.Add(1)
		}
		if p.acks != nil {
			p.acks.Set(p.seqs[i])
		}
	}
	p.active.Add(-1)
	p.settle()
}

// onErr runs on the ack goroutine or on a library timer: it touches only atomics.
func (p *asyncPub) onErr(_ jetstream.JetStream, m *nats.Msg, err error) {
	count(&p.rec.Events, err)
	if p.waits != nil && isTimeout(err) {
		if i := p.slot(m); i >= 0 {
			now := p.clk.Now()
			p.waits.add(time.Duration(p.sent[i]-p.start), time.Duration(now-p.start))
		}
	}
	p.settle()
}

func (p *asyncPub) settle() {
	if p.settled.Add(1) >= p.waitFor.Load() {
		select {
		case p.wake <- struct{}{}:
		default:
		}
	}
}

// Run publishes the share window by window.
func (p *asyncPub) Run(ctx context.Context, env *bench.Env) error {
	stopped, release := loop.StopFlag(ctx)
	defer release()
	clk := env.Clock
	p.start = env.Start
	id := p.cfg.IDs.For(env.Index)
	stamped := len(p.msgs[0].Stamp) >= stamp.Size
	share, bounded, pacer := p.share(env)
	var deadline int64
	if p.cfg.Duration > 0 {
		deadline = env.Start + int64(p.cfg.Duration)
		if p.paced {
			deadline = loop.Deadline(env.Start, p.cfg.Duration)
		}
	}
	timer, ackTimer := loop.NewTimer(), loop.NewTimer()
	w := loop.NewWaiter(clk)
	defer w.Close()
	var published int64
	ended := false
	for i := uint64(0); !ended && (!bounded || i < share); {
		for n := 0; n < p.window && (!bounded || i < share); n++ {
			if stopped.Load() {
				return ctx.Err()
			}
			now := clk.Now()
			if deadline != 0 && now >= deadline {
				ended = true
				break
			}
			intended := now
			if p.paced {
				intended = env.Start + int64(pacer.Intended(i))
				var err error
				if now, err = w.Until(ctx, intended); err != nil {
					return err
				}
				if loop.Past(deadline, now) {
					ended = true
					break
				}
			}
			slot := &p.msgs[n]
			m := &slot.Msg
			p.sent[n], p.intended[n], p.seqs[n] = now, intended, i+1
			if i == 0 {
				p.first = intended
			}
			if stamped {
				stamp.Put(slot.Stamp, id, i+1, intended)
				slot.Seal()
			}
			m.Subject = p.subject(int64(i))
			if p.cfg.Dedup {
				m.Header[jetstream.MsgIDHeader][0] = p.msgID(p.idBufs[n], i+1)
			}
			i++
			if _, err := p.js.PublishMsgAsync(m); err != nil {
				if p.fatal(err) || p.conn.Err() != nil {
					return p.conn.Explain("publish", err)
				}
				count(&env.Rec.Events, err)
				continue
			}
			published++
			if p.cfg.Sleep > 0 {
				if err := loop.Sleep(ctx, timer, p.cfg.Sleep); err != nil {
					return err
				}
			}
		}
		if err := p.await(ctx, published, ackTimer); err != nil {
			return err
		}
	}
	return nil
}

// await waits until target publishes are settled (acked or failed), bounded by the ack timeout
// the library applies to each of them.
func (p *asyncPub) await(ctx context.Context, target int64, t *time.Timer) error {
	p.waitFor.Store(target)
	limit := p.cfg.AckTimeout + 2*time.Second
	t.Reset(limit)
	defer t.Stop()
	for p.settled.Load() < target {
		select {
		case <-p.wake:
		case <-ctx.Done():
			return ctx.Err()
		case <-p.conn.Lost():
			return p.conn.Err()
		case <-t.C:
			return errNoAcks(target-p.settled.Load(), limit)
		}
	}
	return nil
}

// Close stops the ack goroutine from recording and waits for a callback still inside it, so
// the recorder is the runner's again.
func (p *asyncPub) Close() {
	p.closing.Store(true)
	for p.active.Load() != 0 {
		runtime.Gosched()
	}
}
