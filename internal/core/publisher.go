package core

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/internal/payload"
	"github.com/natsperf/natsperf/internal/stamp"
)

// PubConfig configures core NATS publishers.
type PubConfig struct {
	Subject         string        `json:"subject"`
	Size            int           `json:"size"`
	Sleep           time.Duration `json:"sleep"` // pause after each publish (nats bench --sleep)
	MultiSubject    bool          `json:"multisubject"`
	MultiSubjectMax int           `json:"multisubject_max"`
	Rate            float64       `json:"rate"` // total msgs/sec across publishers; 0: as fast as possible
	Shape           pace.Shape    `json:"shape,omitzero"`
	Randomize       bool          `json:"multisubject_randomize,omitempty"` // a random subject per message
	Duration        time.Duration `json:"duration"`                         // stop after this long; 0: after the share
	IDs             stamp.IDs     `json:"-"`
	Fill            stamp.Fill    `json:"fill,omitempty"` // what follows the stamp (zero: text)
	// Payload is what is sent beyond Size: a file, random bytes, headers, the stamp's place.
	Payload payload.Config `json:"payload,omitzero"`
}

// Publisher publishes its share of messages on its own connection.
type Publisher struct {
	cfg      PubConfig
	conn     *harness.Conn
	msg      *payload.Message
	subjects []string
}

// NewPublisher returns a publisher client.
func NewPublisher(cfg PubConfig) *Publisher { return &Publisher{cfg: cfg} }

// Prepare connects and builds the payload and subject list.
func (p *Publisher) Prepare(ctx context.Context, env *harness.Env) error {
	c, err := env.Dial(ctx)
	if err != nil {
		return err
	}
	p.conn = c
	pc := p.cfg.Payload
	pc.Size, pc.Fill = p.cfg.Size, p.cfg.Fill
	if p.msg, err = payload.New(pc); err != nil {
		return err
	}
	if p.cfg.MultiSubject {
		p.subjects = loop.Subjects(p.cfg.Subject, loop.SubjectCount(p.cfg.MultiSubjectMax, env.Share, p.cfg.Randomize))
	}
	return nil
}

// Run publishes until the share is sent, the duration is over, or ctx ends.
func (p *Publisher) Run(ctx context.Context, env *harness.Env) error {
	stopped, release := loop.StopFlag(ctx)
	defer release()
	var err error
	if p.cfg.Rate > 0 {
		err = p.paced(ctx, env, stopped.Load)
	} else {
		err = p.unpaced(ctx, env, stopped.Load)
	}
	if err != nil {
		return err
	}
	if ferr := p.conn.FlushTimeout(30 * time.Second); ferr != nil {
		return p.conn.Explain("flush", ferr)
	}
	// The messages are only out once the server has them all: the flush's round trip ends
	// after the server read the last one (nats bench times it the same way). A publisher
	// behind its schedule may have megabytes in the socket when its last Publish returns; one
	// on schedule ends with the slot after its last message, a flush round trip later at most.
	env.Rec.End(env.Clock.Now())
	return nil
}

func (p *Publisher) subject(i int64) string {
	return loop.SubjectAt(p.cfg.Subject, p.subjects, i, p.cfg.Randomize)
}

// clockEvery is how many messages a paced sender behind its schedule sends back to back
// between two clock reads and stop checks.
const clockEvery = 8

// The unpaced loop reads the clock once per run of messages, all stamped with that reading:
// a clock read costs about 40 ns on a VM, half a 16-byte publish. The run grows while its
// messages take less than clockSpan and shrinks when they take more (a publish that blocked
// on a full socket), so a stamp is at most about clockSpan older than its send, far below
// the queueing latency a run at full speed measures, and the clock costs about 1% of it.
const (
	clockSpan = 5 * time.Microsecond
	maxRun    = 64
)

// unpaced is the hot loop: per message a sequence number written into the stamp and a
// publish; per run of messages a clock read, a stop check and one record.
func (p *Publisher) unpaced(ctx context.Context, env *harness.Env, stopped func() bool) error {
	clk, rec, st, nc := env.Clock, env.Rec, p.msg.Stamp, p.conn.Conn
	size := len(p.msg.Data)
	var hm *payload.Message // with headers: every message through PublishMsg
	if p.msg.Header != nil {
		hm = p.msg
	}
	seqID := stamp.SeqID(p.cfg.IDs.For(env.Index))
	stamped := len(st) >= stamp.Size
	subject, subjects := p.cfg.Subject, p.subjects
	var deadline int64
	if p.cfg.Duration > 0 {
		deadline = env.Start + int64(p.cfg.Duration)
	}
	var sleeper *time.Timer
	if p.cfg.Sleep > 0 {
		sleeper = loop.NewTimer()
	}
	run := int64(clockEvery)
	if sleeper != nil {
		run = 1 // a sleeping publisher's stamps must not inherit a reading from sleeps ago
	}
	now := clk.Now()
	rec.Begin(now)
	for i := int64(0); !env.Bounded || i < env.Share; {
		if stopped() {
			return ctx.Err()
		}
		if deadline != 0 && now >= deadline {
			break
		}
		n := run
		if env.Bounded {
			n = min(n, env.Share-i)
		}
		if stamped {
			stamp.PutTime(st, now)
		}
		var sent int
		var err error
		if hm != nil {
			sent, err = burstMsg(nc, hm, stamped, seqID, subject, subjects, p.cfg.Randomize, i, n)
		} else {
			sent, err = burst(nc, st, stamped, seqID, subject, subjects, p.cfg.Randomize, i, n)
		}
		i += int64(sent)
		rec.SentN(now, sent, size)
		if err != nil {
			return p.conn.Explain("publish", err)
		}
		if sleeper != nil {
			if err := loop.Sleep(ctx, sleeper, p.cfg.Sleep); err != nil {
				return err
			}
			now = clk.Now()
			continue
		}
		next := clk.Now()
		if span := next - now; span > int64(clockSpan) {
			run = max(run/2, 1)
		} else if span < int64(clockSpan)/2 && run < maxRun {
			run *= 2
		}
		now = next
	}
	return nil
}

// burst publishes messages from+1 ... from+n, each with its sequence number in the stamp
// (whose time the caller wrote), and returns how many it published. The common case, one
// subject and a stamp, has a loop of its own: a publish and a store per message.
func burst(nc *nats.Conn, buf []byte, stamped bool, seqID uint64, subject string, subjects []string, random bool, from, n int64) (int, error) {
	end := from + n
	if stamped && subjects == nil {
		for i := from; i < end; i++ {
			stamp.PutSeq(buf, seqID, uint64(i+1))
			if err := nc.Publish(subject, buf); err != nil {
				return int(i - from), err
			}
		}
		return int(n), nil
	}
	for i := from; i < end; i++ {
		if stamped {
			stamp.PutSeq(buf, seqID, uint64(i+1))
		}
		if err := nc.Publish(loop.SubjectAt(subject, subjects, i, random), buf); err != nil {
			return int(i - from), err
		}
	}
	return int(n), nil
}

// burstMsg is burst for a message with headers (the user's, or the stamp's): nats.go encodes
// them in PublishMsg.
func burstMsg(nc *nats.Conn, m *payload.Message, stamped bool, seqID uint64, subject string, subjects []string, random bool, from, n int64) (int, error) {
	for i := from; i < from+n; i++ {
		if stamped {
			stamp.PutSeq(m.Stamp, seqID, uint64(i+1))
			m.Seal()
		}
		m.Subject = loop.SubjectAt(subject, subjects, i, random)
		if err := nc.PublishMsg(&m.Msg); err != nil {
			return int(i - from), err
		}
	}
	return int(n), nil
}

// paced sends at the fixed rate. Each message is stamped with its intended send time, so a
// receiver's latency includes any delay in sending it (coordinated-omission correction). A
// payload with room for an extended stamp also carries the actual send time, for the
// uncorrected latency.
//
// A sender behind its schedule sends what fell due back to back (a catch-up), reading the
// clock and checking for a stop every clockEvery messages, so Ctrl-C and the duration end it
// within microseconds, and its sends are recorded when they really left, not when the
// catch-up began: its rate is what it sent, not what it was asked to.
func (p *Publisher) paced(ctx context.Context, env *harness.Env, stopped func() bool) error {
	clk, rec, nc, m := env.Clock, env.Rec, p.conn.Conn, p.msg
	buf, size := m.Stamp, len(m.Data)
	id := p.cfg.IDs.For(env.Index)
	stamped := len(buf) >= stamp.Size
	extended := len(buf) >= stamp.ExtSize
	share, bounded, pacer := loop.Share(env, p.cfg.Rate, p.cfg.Shape, p.cfg.Duration)
	if !bounded {
		return fmt.Errorf("a fixed rate needs --msgs or --duration")
	}
	deadline := loop.Deadline(env.Start, p.cfg.Duration)
	w := loop.NewWaiter(clk, env.PacePrecision)
	defer w.Close()
	// The schedule is walked in order, one message after the other (a Poisson schedule is
	// drawn as it goes): next is the intended send time of message sent.
	next := env.Start + int64(pacer.Intended(0))
	rec.Begin(next) // its first slot: senders interleave
	var sent uint64
	// One step sends what fell due by now: a single message on schedule, or a catch-up. It
	// may run on the process's pacer's goroutine instead of this one (loop.Waiter.Run).
	step := func(now int64) (loop.Stepped, error) {
		if stopped() {
			return loop.Stepped{Done: true}, ctx.Err()
		}
		if loop.Past(deadline, now) {
			return loop.Stepped{Done: true}, nil
		}
		n := 0
		for tick := 0; sent < share && next <= now; {
			if tick++; tick > clockEvery {
				tick = 1
				if stopped() {
					return loop.Stepped{Sent: n, Done: true}, ctx.Err()
				}
				if now = clk.Now(); loop.Past(deadline, now) {
					return loop.Stepped{Sent: n, Done: true}, nil
				}
			}
			// Its intended send time: its slot, or the pacer's planned wake-up it was grouped
			// into (loop.Waiter.Planned); the lateness below is still from the slot.
			intended := w.Intended(next)
			switch {
			case extended:
				// A fresh clock read per message: one stuck in Publish delays those behind it.
				now = clk.Now()
				stamp.PutExt(buf, id, sent+1, intended, now)
			case stamped:
				stamp.Put(buf, id, sent+1, intended)
			}
			var err error
			if m.Header != nil {
				m.Seal()
				m.Subject = p.subject(int64(sent))
				err = nc.PublishMsg(&m.Msg)
			} else {
				err = nc.Publish(p.subject(int64(sent)), buf)
			}
			if err != nil {
				return loop.Stepped{Sent: n, Done: true}, p.conn.Explain("publish", err)
			}
			rec.Sent(now, size)
			rec.Late(next, now)
			sent++
			n++
			next = env.Start + int64(pacer.Intended(sent))
		}
		return loop.Stepped{Next: next, Sent: n, Done: sent >= share}, nil
	}
	if share > 0 {
		if err := w.Run(ctx, next, step); err != nil {
			return err
		}
	}
	// A schedule kept ends with the slot after its last message: N messages at R/s take N/R
	// (Run moves the end on to when the server has them all, when that is later).
	if sent == share {
		rec.End(env.Start + int64(pacer.After(sent)))
	}
	return nil
}

// Conn is the publisher's connection once prepared, for wrappers that probe the server on it.
func (p *Publisher) Conn() *harness.Conn { return p.conn }

// Close has nothing to release: the runner closes the connection.
func (p *Publisher) Close() {}
