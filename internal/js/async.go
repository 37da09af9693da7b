package js

import (
	"context"
	"runtime"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/harness"
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

	// At a fixed rate the window slides: busy marks each ring slot whose publish awaits its
	// ack (cleared by the ack or error callback); a send waits for its slot (runPaced).
	busy []atomic.Bool
	// replies and sub: the slots' reply subjects and their subscription when the publisher
	// reads its acks itself (ownAcks, asyncacks.go).
	replies []string
	sub     atomic.Pointer[nats.Subscription]
	id      uint32 // the publisher id in the stamps
	// published counts the publishes made (publishing goroutine only), for await.
	published int64
	endAt     int64 // a fixed-rate run's end on its schedule, for the recorder (set before Close)
}

func (p *asyncPub) Prepare(ctx context.Context, env *harness.Env) error {
	p.window = p.cfg.Batch
	if p.window <= 0 {
		p.window = DefaultAsyncWindow
	}
	p.rec, p.clk, p.paced = env.Rec, env.Clock, p.cfg.Rate > 0
	p.id = p.cfg.IDs.For(env.Index)
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
	p.busy = make([]atomic.Bool, p.window)
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
	if p.ownAcks() {
		return p.subscribeReplies()
	}
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
		p.acked(now, i, len(m.Data))
	}
	p.active.Add(-1)
	p.free(m)
	p.settle()
}

// acked records slot i's publish of size bytes as acknowledged at now (ack goroutine only).
func (p *asyncPub) acked(now int64, i, size int) {
	if !p.begun {
		p.rec.Begin(p.first)
		p.begun = true
	}
	if p.paced {
		p.rec.OpCorrected(now, size, now-p.intended[i], now-p.sent[i])
	} else {
		p.rec.Op(now, size, now-p.sent[i])
	}
	if p.cfg.Acked != nil {
		p.cfg.Acked.Add(1)
	}
	if p.acks != nil {
		p.acks.Set(p.seqs[i])
	}
}

// free marks m's ring slot reusable, once its callback no longer reads it.
func (p *asyncPub) free(m *nats.Msg) {
	if i := p.slot(m); i >= 0 {
		p.busy[i].Store(false)
	}
}

// onErr runs on the ack goroutine or on a library timer: it touches only atomics.
func (p *asyncPub) onErr(_ jetstream.JetStream, m *nats.Msg, err error) {
	count(&p.rec.Events, err)
	now := p.clk.Now()
	failed := now
	if i := p.slot(m); i >= 0 && isTimeout(err) {
		failed = p.sent[i] // as of its send: publishes sent after it and acked show recovery
	}
	p.rec.Failed(failed)
	p.refused(err, 1)
	if p.waits != nil && isTimeout(err) {
		if i := p.slot(m); i >= 0 {
			p.waits.add(time.Duration(p.sent[i]-p.start), time.Duration(now-p.start))
		}
	} else if p.waits != nil {
		p.refusedAt(now, Reason(err), 1)
	}
	p.free(m)
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

// Run publishes the share window by window, as nats bench does; at a fixed rate, on its
// schedule (runPaced).
func (p *asyncPub) Run(ctx context.Context, env *harness.Env) error {
	if p.paced {
		return p.runPaced(ctx, env)
	}
	stopped, release := loop.StopFlag(ctx)
	defer release()
	clk := env.Clock
	p.start = env.Start
	share, bounded, _ := p.share(env)
	var deadline int64
	if p.cfg.Duration > 0 {
		deadline = env.Start + int64(p.cfg.Duration)
	}
	timer, ackTimer := loop.NewTimer(), loop.NewTimer()
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
			i++
			if err := p.send(ctx, env, n, i, now, now, timer); err != nil {
				return err
			}
		}
		if err := p.await(ctx, p.published, ackTimer); err != nil {
			return err
		}
	}
	return nil
}

// send fills ring slot n with message seq (1-based), meant for intended and sent at now,
// publishes it and then sleeps --sleep. A publish refused at once is counted (failed, never
// stored); the error is one the client cannot go on after.
func (p *asyncPub) send(ctx context.Context, env *harness.Env, n int, seq uint64, intended, now int64, t *time.Timer) error {
	slot := &p.msgs[n]
	m := &slot.Msg
	p.sent[n], p.intended[n], p.seqs[n] = now, intended, seq
	if seq == 1 {
		p.first = intended
	}
	if len(slot.Stamp) >= stamp.Size {
		stamp.Put(slot.Stamp, p.id, seq, intended)
		slot.Seal()
	}
	m.Subject = p.subject(int64(seq - 1))
	if p.cfg.Dedup {
		m.Header[jetstream.MsgIDHeader][0] = p.msgID(p.idBufs[n], seq)
	}
	if p.acks != nil {
		p.acks.Attempted(seq)
	}
	p.busy[n].Store(true)
	var err error
	if p.replies != nil {
		m.Reply = p.replies[n]
		err = p.conn.PublishMsg(m)
	} else {
		_, err = p.js.PublishMsgAsync(m)
	}
	if err != nil {
		p.busy[n].Store(false)
		if p.fatal(err) || p.conn.Err() != nil {
			return p.conn.Explain("publish", err)
		}
		count(&env.Rec.Events, err)
		now := env.Clock.Now()
		env.Rec.Failed(now)
		p.refused(err, 1)
		if !isTimeout(err) {
			p.refusedAt(now, Reason(err), 1)
		}
		return nil
	}
	p.published++
	if p.cfg.Sleep <= 0 {
		return nil
	}
	return loop.Sleep(ctx, t, p.cfg.Sleep)
}

// runPaced publishes the share on its fixed-rate schedule, at most a window of publishes
// awaiting their acks at once. The window slides: a publish goes out as soon as its ring
// slot's previous publish is settled, not once the whole window is (nats bench's unpaced
// rule, which stalls a schedule at every window). A send whose slot is still awaiting its ack
// waits for it, and its latency counts from its scheduled time (a server slower than
// window/rate shows as latency, nothing is dropped). When the acks stop (a leader lost, a
// cluster without quorum), the slots free only as their publishes time out (--ack-timeout):
// the sends still waiting when the run's duration ends are not made and are counted as
// attempted and failed (Events.NotSent, never stored), so the schedule's every send is
// accounted for and the text says why they were not made.
func (p *asyncPub) runPaced(ctx context.Context, env *harness.Env) error {
	clk := env.Clock
	p.start = env.Start
	share, _, pacer := p.share(env)
	deadline := loop.Deadline(env.Start, p.cfg.Duration)
	w := loop.NewWaiter(clk, env.PacePrecision)
	defer w.Close()
	timer, ackTimer := loop.NewTimer(), loop.NewTimer()
	var i uint64
	full := false // the run's duration ended while a send waited for the window
	for n := 0; i < share; n = (n + 1) % p.window {
		intended := env.Start + int64(pacer.Intended(i))
		now, err := w.Until(ctx, intended)
		if err != nil {
			return err
		}
		if loop.Past(deadline, now) {
			break
		}
		if p.busy[n].Load() {
			if now, err = p.waitSlot(ctx, n, deadline, timer); err != nil {
				return err
			}
			if loop.Past(deadline, now) {
				full = true
				break
			}
		}
		i++
		env.Rec.Late(intended, now)
		// Its latency counts from the later of its slot and the pacer's planned wake-up (the
		// grouping of sends is in the lateness just recorded, not in the latency).
		if err := p.send(ctx, env, n, i, w.Intended(intended), now, timer); err != nil {
			return err
		}
	}
	if missed := int64(share - i); missed > 0 && full {
		// Sends the schedule had but the window never let out before the end.
		env.Rec.Events.NotSent.Add(missed)
		now := clk.Now()
		env.Rec.Failed(now)
		p.failed(missed)
		p.refusedAt(now, ReasonNotSent, missed)
		if p.acks != nil {
			p.acks.Attempted(share)
		}
	}
	// The run lasted what it was asked to: its rate is over the whole schedule, even when the
	// acks stopped long before its end.
	p.endAt = env.Start + int64(pacer.After(share))
	return p.await(ctx, p.published, ackTimer)
}

// waitSlot waits until ring slot n's publish is settled or the deadline passes, and returns
// the time. Only a send that finds the window full waits here, never one per message in a
// run whose acks keep up.
func (p *asyncPub) waitSlot(ctx context.Context, n int, deadline int64, t *time.Timer) (int64, error) {
	for p.busy[n].Load() {
		if loop.Past(deadline, p.clk.Now()) {
			break
		}
		select {
		case <-p.conn.Lost():
			return 0, p.conn.Err()
		default:
		}
		if err := loop.Sleep(ctx, t, time.Millisecond); err != nil {
			return 0, err
		}
	}
	return p.clk.Now(), nil
}

// await waits until target publishes are settled (acked or failed), bounded by the ack timeout
// the library applies to each of them.
func (p *asyncPub) await(ctx context.Context, target int64, t *time.Timer) error {
	p.waitFor.Store(target)
	limit := p.cfg.AckTimeout + 2*time.Second
	own := p.replies != nil
	if own {
		limit = p.cfg.AckTimeout // then the publishes still awaiting acks time out (expire)
	}
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
			if !own {
				return errNoAcks(target-p.settled.Load(), limit)
			}
			if err := p.expire(); err != nil {
				return err
			}
			t.Reset(limit)
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
	if p.endAt != 0 {
		p.rec.End(p.endAt)
	}
}
