package js

import (
	"context"
	"fmt"
	"math"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/synadia-io/orbit.go/jetstreamext"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/internal/payload"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/serverver"
	"github.com/natsperf/natsperf/internal/stamp"
)

// Fast is the fast batch publish mode (nats-server 2.14+, a stream allowing batched publish).
const Fast = "fast"

// DefaultFastFlow and DefaultFastOutstanding are nats bench's --batch and
// --max-outstanding-acks of js pub fast.
const (
	DefaultFastFlow        = 500
	DefaultFastOutstanding = 1
)

// fastPub publishes its whole share as one fast batch through orbit.go's
// jetstreamext.FastPublisher, as nats bench does: the server acks every cfg.Batch messages
// (the flow window, which it may change) and the publisher stalls while cfg.Outstanding acks
// are missing. An ack says every message of the batch up to its sequence is stored, so each
// message's latency is from its own send to the ack that covers it (per ack, like the atomic
// batch's commit).
type fastPub struct {
	pubBase
	msg   *payload.Message
	idBuf []byte
	fp    jetstreamext.FastPublisher
	sent  []int64 // send times of the unacknowledged messages, a ring indexed by batch sequence
	acked uint64  // the highest batch sequence acknowledged
	rec   *record.Recorder
}

func (p *fastPub) Prepare(ctx context.Context, env *harness.Env) error {
	if err := p.prepare(ctx, env); err != nil {
		return err
	}
	// The run checked one server up front; this client's may be another (a mixed cluster).
	if r := serverver.FastBatch.Refusal("js pub fast", p.conn.ConnectedServerVersion()); r != "" {
		return fmt.Errorf("%s (%s)", r, p.conn.ConnectedServerName())
	}
	var err error
	if p.msg, p.idBuf, err = p.body(); err != nil {
		return err
	}
	flow := min(max(p.cfg.Batch, 1), math.MaxUint16)
	outstanding := min(max(p.cfg.Outstanding, 1), math.MaxUint16)
	fp, err := jetstreamext.NewFastPublisher(p.js, jetstreamext.FastPublishFlowControl{
		Flow: uint16(flow), MaxOutstandingAcks: uint16(outstanding), AckTimeout: p.cfg.AckTimeout,
	})
	if err != nil {
		return fmt.Errorf("fast batch publish: %w", err)
	}
	p.fp = fp
	p.sent = make([]int64, ringSize(flow*(outstanding+1)))
	return nil
}

// ringSize is the smallest power of two holding n.
func ringSize(n int) int {
	s := 64
	for s < n {
		s *= 2
	}
	return s
}

// Run adds the share to the batch on the schedule, records each message when an ack covers
// it, and closes the batch at the end (its ack covers the rest).
func (p *fastPub) Run(ctx context.Context, env *harness.Env) error {
	clk, rec, body := env.Clock, env.Rec, p.msg
	m := &body.Msg
	p.rec = rec
	id := p.cfg.IDs.For(env.Index)
	stamped := len(body.Stamp) >= stamp.Size
	sched := loop.NewSchedule(env, p.cfg.Rate, p.cfg.Shape, p.cfg.Duration)
	defer sched.Close()
	rec.Begin(sched.Begin())
	var seq uint64 // the batch sequence of the last message added
	for {
		i, intended, _, ok, err := sched.Next(ctx)
		if err != nil {
			return err
		}
		if !ok {
			break
		}
		if stamped {
			stamp.Put(body.Stamp, id, i+1, intended)
			body.Seal()
		}
		m.Subject = p.subject(int64(i))
		m.Reply = ""
		if p.cfg.Dedup {
			m.Header[jetstream.MsgIDHeader][0] = p.msgID(p.idBuf, i+1)
		}
		if seq-p.acked >= uint64(len(p.sent)) {
			p.grow()
		}
		p.sent[seq&uint64(len(p.sent)-1)] = intended
		ack, err := p.fp.AddMsg(m)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return p.conn.Explain("fast batch publish", err)
		}
		seq = ack.BatchSequence
		p.ackedUpTo(clk.Now(), ack.AckSequence, len(m.Data))
		if err := sched.Pause(ctx, p.cfg.Sleep); err != nil {
			return err
		}
	}
	if seq == 0 {
		rec.End(sched.End())
		return nil
	}
	ack, err := p.fp.Close(ctx)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return p.conn.Explain("fast batch commit", err)
	}
	now := clk.Now()
	if ack.BatchSize != seq {
		// The server stored fewer than were added: the batch lost messages (a gap).
		p.ackedUpTo(now, min(ack.BatchSize, seq), len(m.Data))
		rec.End(now)
		return fmt.Errorf("fast batch: the server committed %d of %d messages", ack.BatchSize, seq)
	}
	p.ackedUpTo(now, seq, len(m.Data))
	rec.End(now)
	return nil
}

// ackedUpTo records the messages from the last acknowledged up to upTo (batch sequences, which
// are this publisher's message sequences) as stored at now.
func (p *fastPub) ackedUpTo(now int64, upTo uint64, size int) {
	rec, mask := p.rec, uint64(len(p.sent)-1)
	for s := p.acked + 1; s <= upTo; s++ {
		rec.Op(now, size, now-p.sent[(s-1)&mask])
		if p.acks != nil {
			p.acks.Set(s)
		}
	}
	if upTo > p.acked {
		if p.cfg.Acked != nil {
			p.cfg.Acked.Add(int64(upTo - p.acked))
		}
		p.acked = upTo
	}
}

// grow doubles the ring when the server let more messages go unacknowledged than the flow
// window said (it may widen the window during the batch).
func (p *fastPub) grow() {
	old, mask := p.sent, uint64(len(p.sent)-1)
	p.sent = make([]int64, 2*len(old))
	nmask := uint64(len(p.sent) - 1)
	for s := p.acked; s < p.acked+uint64(len(old)); s++ {
		p.sent[s&nmask] = old[s&mask]
	}
}
