package js

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"
	"unsafe"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/internal/payload"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/internal/verify"
)

// rideOutPause is how long an unpaced publisher waits after a refused publish in a fault run.
const rideOutPause = 10 * time.Millisecond

// Publish modes.
const (
	Sync  = "sync"
	Async = "async"
	Batch = "batch"
)

// PubConfig configures JetStream publishers.
type PubConfig struct {
	Mode            string        `json:"mode"` // sync, async, batch
	Stream          string        `json:"stream"`
	Subject         string        `json:"subject"`
	Size            int           `json:"size"`
	Batch           int           `json:"batch"`                          // async: acks awaited per window; batch: messages per atomic batch; fast: the flow window
	Outstanding     int           `json:"max_outstanding_acks,omitempty"` // fast: acks missing before the publisher stalls
	Dedup           bool          `json:"dedup"`                          // set a Nats-Msg-Id on every message
	MultiSubject    bool          `json:"multisubject"`
	MultiSubjectMax int           `json:"multisubject_max"`
	Randomize       bool          `json:"multisubject_randomize,omitempty"` // a random subject per message
	Rate            float64       `json:"rate,omitempty"`
	Shape           pace.Shape    `json:"shape,omitzero"`
	Duration        time.Duration `json:"duration,omitempty"`
	Sleep           time.Duration `json:"sleep,omitempty"`
	AckTimeout      time.Duration `json:"ack_timeout"`
	IDs             stamp.IDs     `json:"-"`
	Fill            stamp.Fill    `json:"fill,omitempty"` // what follows the stamp (zero: text)
	// Acked, when set, adds up the messages acknowledged by all publishers (for the storage
	// estimate).
	Acked *Tally `json:"-"`
	// Verify, when set, records each acknowledged sequence number per publisher (--verify).
	Verify *verify.Acks `json:"-"`
	// AckWaits, when set (a fault run), records the time each publisher spent waiting on
	// acknowledgements that timed out.
	AckWaits *AckWaits `json:"-"`
	// RideOut keeps publishing through "no responders" (the stream has no leader for a while:
	// a fault run) instead of ending the client.
	RideOut bool `json:"ride_out,omitempty"`
	// Failed, when set, counts the publishes known to have failed without being stored:
	// refused (an error other than a timeout) or not sent (Events.NotSent). Bumped only on a
	// failure, for the run's own consumers (ConsumeConfig.PubFailed).
	Failed *Tally `json:"-"`
	// Payload is what is sent beyond Size: a file, random bytes, headers, the stamp's place.
	Payload payload.Config `json:"payload,omitzero"`
	// MaxInflight bounds a sync publisher's publishes awaiting acks at a fixed rate, across
	// publishers (the open model, open.go); 0: one at a time.
	MaxInflight int `json:"max_inflight,omitempty"`
}

// failed counts k publishes known never stored.
func (p *pubBase) failed(k int64) {
	if p.cfg.Failed != nil && k > 0 {
		p.cfg.Failed.Add(k)
	}
}

// refusedAt notes, in a fault run, k publishes that failed fast at now (clock) for reason:
// the failover story counts them apart from the timeouts.
func (p *pubBase) refusedAt(now int64, reason string, k int64) {
	p.waits.refuse(time.Duration(now-p.start), reason, k)
}

// refused counts a failed publish err as never stored unless it timed out (its fate unknown).
func (p *pubBase) refused(err error, k int64) {
	if !isTimeout(err) {
		p.failed(k)
	}
}

// NewPublisher returns a publisher client for cfg.Mode.
func NewPublisher(cfg PubConfig) harness.Client {
	if cfg.AckTimeout <= 0 {
		cfg.AckTimeout = DefaultAckTimeout
	}
	switch cfg.Mode {
	case Async:
		return &asyncPub{pubBase: pubBase{cfg: cfg}}
	case Batch:
		return &batchPub{pubBase: pubBase{cfg: cfg}}
	case Fast:
		return &fastPub{pubBase: pubBase{cfg: cfg}}
	}
	return &syncPub{pubBase: pubBase{cfg: cfg}}
}

// pubBase is what every publisher mode shares.
type pubBase struct {
	cfg      PubConfig
	conn     *harness.Conn
	js       jetstream.JetStream
	subjects []string
	runID    string       // message id prefix with --dedup
	acks     *verify.Bits // acknowledged sequence numbers, with --verify
	waits    *ackWait     // time waiting on acks that timed out, in a fault run
	start    int64        // the run's start (clock), for waits
}

func (p *pubBase) prepare(ctx context.Context, env *harness.Env, opts ...jetstream.JetStreamOpt) error {
	opts = append(opts, jetstream.WithDefaultTimeout(p.cfg.AckTimeout))
	c, js, err := dial(ctx, env, opts...)
	if err != nil {
		return err
	}
	p.conn, p.js = c, js
	if p.cfg.MultiSubject {
		p.subjects = loop.Subjects(p.cfg.Subject, loop.SubjectCount(p.cfg.MultiSubjectMax, env.Share, p.cfg.Randomize))
	}
	p.runID = strconv.FormatUint(rand.Uint64(), 36) + "-" + strconv.Itoa(env.ID) + "-"
	p.waits = p.cfg.AckWaits.publisher(env.ID)
	if p.cfg.Verify != nil {
		share, _, _ := p.share(env)
		p.acks = p.cfg.Verify.Publisher(p.cfg.IDs.For(env.Index), share+1)
	}
	return nil
}

// fatal reports whether err ends the client; with RideOut a stream without a leader does not.
func (p *pubBase) fatal(err error) bool {
	r := rideOut{on: p.cfg.RideOut}
	return r.fatal(err)
}

// ride is how p counts its failed publishes (rideOut), from the run's start.
func (p *pubBase) ride(env *harness.Env) rideOut {
	return rideOut{on: p.cfg.RideOut, rec: env.Rec, waits: p.waits, start: env.Start, failed: p.cfg.Failed}
}

func (p *pubBase) subject(i int64) string {
	return loop.SubjectAt(p.cfg.Subject, p.subjects, i, p.cfg.Randomize)
}

// share is how many messages the client publishes: its share, or rate x duration when paced.
func (p *pubBase) share(env *harness.Env) (uint64, bool, *pace.Pacer) {
	return loop.Share(env, p.cfg.Rate, p.cfg.Shape, p.cfg.Duration)
}

// msgID writes the message id of sequence seq into buf and returns it as a string that shares
// buf's memory: the header is encoded on publish, so no string is allocated per message.
func (p *pubBase) msgID(buf []byte, seq uint64) string {
	b := append(buf[:0], p.runID...)
	b = strconv.AppendUint(b, seq, 10)
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// body is the publisher's message (payload.New) with room for a message id when --dedup
// asks for one; the id's buffer is returned.
func (p *pubBase) body() (*payload.Message, []byte, error) {
	c := p.cfg.Payload
	c.Size, c.Fill = p.cfg.Size, p.cfg.Fill
	m, err := payload.New(c)
	if err != nil {
		return nil, nil, err
	}
	return m, withID(m, p.cfg.Dedup), nil
}

// withID adds an empty message id header to m, to be overwritten in place, and returns its
// buffer; without dedup it does nothing.
func withID(m *payload.Message, dedup bool) []byte {
	if !dedup {
		return nil
	}
	m.WithHeader()[jetstream.MsgIDHeader] = []string{""}
	return make([]byte, 0, 64)
}

// Close has nothing to release: the runner closes the connection.
func (p *pubBase) Close() {}

// syncPub publishes one message at a time and waits for each ack.
type syncPub struct {
	pubBase
	msg   *payload.Message
	idBuf []byte
}

func (p *syncPub) Prepare(ctx context.Context, env *harness.Env) error {
	if err := p.prepare(ctx, env); err != nil {
		return err
	}
	var err error
	p.msg, p.idBuf, err = p.body()
	return err
}

// Run publishes the share, recording each publish-to-ack round trip. At a fixed rate, latency
// counts from each message's intended send time.
func (p *syncPub) Run(ctx context.Context, env *harness.Env) error {
	clk, rec, body := env.Clock, env.Rec, p.msg
	m := &body.Msg
	id := p.cfg.IDs.For(env.Index)
	stamped := len(body.Stamp) >= stamp.Size
	sched := loop.NewSchedule(env, p.cfg.Rate, p.cfg.Shape, p.cfg.Duration)
	defer sched.Close()
	p.start = env.Start
	if ok, err := p.open(ctx, env, sched); ok {
		return err
	}
	ride := p.ride(env)
	rec.Begin(sched.Begin())
	for {
		i, intended, sent, ok, err := sched.Next(ctx)
		if err != nil || !ok {
			rec.End(sched.End())
			return err
		}
		if stamped {
			stamp.Put(body.Stamp, id, i+1, intended)
			body.Seal()
		}
		m.Subject = p.subject(int64(i))
		if p.cfg.Dedup {
			m.Header[jetstream.MsgIDHeader][0] = p.msgID(p.idBuf, i+1)
		}
		if p.acks != nil {
			p.acks.Attempted(i + 1)
		}
		_, err = p.js.PublishMsg(ctx, m)
		now := clk.Now()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if ride.fatal(err) {
				return p.conn.Explain("publish", err)
			}
			ride.failedErr(now, sent, err)
			ride.pauseUnpaced(ctx, sched)
			continue
		}
		if p.cfg.Acked != nil {
			p.cfg.Acked.Add(1)
		}
		if p.acks != nil {
			p.acks.Set(i + 1)
		}
		rec.OpCorrected(now, len(m.Data), now-intended, now-sent)
		if err := sched.Pause(ctx, p.cfg.Sleep); err != nil {
			return err
		}
	}
}

// errNoAcks ends a publisher whose acks stopped coming.
func errNoAcks(n int64, d time.Duration) error {
	return fmt.Errorf("%d publish acknowledgements still missing after %v", n, d)
}
