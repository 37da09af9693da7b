package core

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/internal/pace"
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
	Duration        time.Duration `json:"duration"` // stop after this long; 0: after the share
	IDs             stamp.IDs     `json:"-"`
	Fill            stamp.Fill    `json:"fill,omitempty"` // what follows the stamp (zero: text)
}

// Publisher publishes its share of messages on its own connection.
type Publisher struct {
	cfg      PubConfig
	conn     *bench.Conn
	buf      []byte
	subjects []string
}

// NewPublisher returns a publisher client.
func NewPublisher(cfg PubConfig) *Publisher { return &Publisher{cfg: cfg} }

// Prepare connects and builds the payload and subject list.
func (p *Publisher) Prepare(ctx context.Context, env *bench.Env) error {
	c, err := env.Dial(ctx)
	if err != nil {
		return err
	}
	p.conn = c
	p.buf = p.cfg.Fill.Payload(p.cfg.Size)
	if p.cfg.MultiSubject {
		n := p.cfg.MultiSubjectMax
		if env.Share > 0 && env.Share < int64(n) {
			n = int(env.Share)
		}
		p.subjects = loop.Subjects(p.cfg.Subject, max(n, 1))
	}
	return nil
}

// Run publishes until the share is sent, the duration is over, or ctx ends.
func (p *Publisher) Run(ctx context.Context, env *bench.Env) error {
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
	if p.subjects == nil {
		return p.cfg.Subject
	}
	return p.subjects[i%int64(len(p.subjects))]
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
func (p *Publisher) unpaced(ctx context.Context, env *bench.Env, stopped func() bool) error {
	clk, rec, buf, nc := env.Clock, env.Rec, p.buf, p.conn.Conn
	seqID := stamp.SeqID(p.cfg.IDs.For(env.Index))
	stamped := len(buf) >= stamp.Size
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
			stamp.PutTime(buf, now)
		}
		sent, err := burst(nc, buf, stamped, seqID, subject, subjects, i, n)
		i += int64(sent)
		rec.SentN(now, sent, len(buf))
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
func burst(nc *nats.Conn, buf []byte, stamped bool, seqID uint64, subject string, subjects []string, from, n int64) (int, error) {
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
		subj := subject
		if subjects != nil {
			subj = subjects[i%int64(len(subjects))]
		}
		if err := nc.Publish(subj, buf); err != nil {
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
func (p *Publisher) paced(ctx context.Context, env *bench.Env, stopped func() bool) error {
	clk, rec, buf, nc := env.Clock, env.Rec, p.buf, p.conn.Conn
	id := p.cfg.IDs.For(env.Index)
	stamped := len(buf) >= stamp.Size
	extended := len(buf) >= stamp.ExtSize
	share, bounded, pacer := loop.Share(env, p.cfg.Rate, p.cfg.Shape, p.cfg.Duration)
	if !bounded {
		return fmt.Errorf("a fixed rate needs --msgs or --duration")
	}
	deadline := loop.Deadline(env.Start, p.cfg.Duration)
	w := loop.NewWaiter(clk)
	defer w.Close()
	// The schedule is walked in order, one message after the other (a Poisson schedule is
	// drawn as it goes): next is the intended send time of message sent.
	next := env.Start + int64(pacer.Intended(0))
	rec.Begin(next) // its first slot: senders interleave
	var sent uint64
sending:
	for sent < share {
		if stopped() {
			return ctx.Err()
		}
		now := clk.Now()
		if loop.Past(deadline, now) {
			break
		}
		if now < next {
			if _, err := w.Until(ctx, next); err != nil {
				return err
			}
			continue
		}
		for tick := 0; sent < share && next <= now; {
			if tick++; tick > clockEvery {
				tick = 1
				if stopped() {
					return ctx.Err()
				}
				if now = clk.Now(); loop.Past(deadline, now) {
					break sending
				}
			}
			switch {
			case extended:
				// A fresh clock read per message: one stuck in Publish delays those behind it.
				now = clk.Now()
				stamp.PutExt(buf, id, sent+1, next, now)
			case stamped:
				stamp.Put(buf, id, sent+1, next)
			}
			if err := nc.Publish(p.subject(int64(sent)), buf); err != nil {
				return p.conn.Explain("publish", err)
			}
			rec.Sent(now, len(buf))
			rec.Late(now - next)
			sent++
			next = env.Start + int64(pacer.Intended(sent))
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
func (p *Publisher) Conn() *bench.Conn { return p.conn }

// Close has nothing to release: the runner closes the connection.
func (p *Publisher) Close() {}
