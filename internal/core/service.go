package core

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/idle"
	"github.com/natsperf/natsperf/internal/inflight"
	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/internal/payload"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/stamp"
)

// ServiceQueue is the queue group every responder joins, so requests are balanced across them.
const ServiceQueue = "natsperf-service"

// ServeConfig configures service responders.
type ServeConfig struct {
	Subject string        `json:"subject"`
	Sleep   time.Duration `json:"sleep"` // simulated processing time per request
}

// Responder answers requests with their own payload until it has served its share or ctx ends.
type Responder struct {
	cfg    ServeConfig
	conn   *harness.Conn
	sub    *nats.Subscription
	done   chan struct{}
	exited chan struct{}
}

// NewResponder returns a responder client.
func NewResponder(cfg ServeConfig) *Responder { return &Responder{cfg: cfg} }

// Prepare connects and joins the service's queue group.
func (r *Responder) Prepare(ctx context.Context, env *harness.Env) error {
	c, err := env.Dial(ctx)
	if err != nil {
		return err
	}
	r.conn = c
	r.done = make(chan struct{})
	r.exited = make(chan struct{})
	rec, clk, share, sleep := env.Rec, env.Clock, env.Share, r.cfg.Sleep
	var st [stamp.ExtSize]byte // a stamp decoded from the request's Natsperf-Stamp header
	r.sub, err = c.QueueSubscribe(r.cfg.Subject, ServiceQueue, func(m *nats.Msg) {
		if sleep > 0 {
			time.Sleep(sleep)
		}
		if err := m.Respond(m.Data); err != nil {
			rec.Events.Errors.Add(1)
			return
		}
		rec.ReceivedStamp(clk.Now(), len(m.Data), stamp.Find(m.Header, m.Data, &st))
		if rec.Progress() == share {
			close(r.done)
		}
	})
	if err != nil {
		return err
	}
	r.sub.SetClosedHandler(func(string) { close(r.exited) })
	if err := r.sub.SetPendingLimits(-1, -1); err != nil {
		return err
	}
	return c.FlushTimeout(10 * time.Second)
}

// Run serves until the share is handled, ctx ends (Ctrl-C: the usual end of `service serve`),
// or the connection is lost.
func (r *Responder) Run(ctx context.Context, env *harness.Env) error {
	// The responders share the requests: the group's total, not one member's estimate, ends them.
	return idle.Wait{Timeout: idle.Never, Done: r.done, Finished: env.GroupDone}.Run(ctx, env, r.conn)
}

// Close leaves the queue group and waits for the delivery goroutine.
func (r *Responder) Close() {
	if r.sub == nil {
		return
	}
	_ = r.sub.Unsubscribe()
	waitExited(r.exited)
}

// RequestConfig configures service requesters.
type RequestConfig struct {
	Subject  string        `json:"subject"`
	Size     int           `json:"size"`
	Sleep    time.Duration `json:"sleep"`   // pause between requests
	Timeout  time.Duration `json:"timeout"` // per request; a timeout is counted and the requester goes on
	Rate     float64       `json:"rate"`    // total requests/sec across requesters; 0: back to back
	Shape    pace.Shape    `json:"shape,omitzero"`
	Duration time.Duration `json:"duration"`
	IDs      stamp.IDs     `json:"-"`
	// Payload is what the requests carry beyond Size: a file, random bytes, headers.
	Payload payload.Config `json:"payload,omitzero"`
	// MaxInflight bounds the requests awaiting replies at a fixed rate, across requesters
	// (the open model, internal/inflight); 0: one at a time.
	MaxInflight int `json:"max_inflight,omitempty"`
}

// Requester sends synchronous requests, one at a time, and records each round trip.
type Requester struct {
	cfg     RequestConfig
	conn    *harness.Conn
	msg     *payload.Message
	replies *replies
}

// NewRequester returns a requester client.
func NewRequester(cfg RequestConfig) *Requester { return &Requester{cfg: cfg} }

// Prepare connects, builds the payload and subscribes for the replies.
func (q *Requester) Prepare(ctx context.Context, env *harness.Env) error {
	c, err := env.Dial(ctx)
	if err != nil {
		return err
	}
	q.conn = c
	pc := q.cfg.Payload
	pc.Size = q.cfg.Size
	if q.msg, err = payload.New(pc); err != nil {
		return err
	}
	if q.replies, err = newReplies(c.Conn); err != nil {
		return err
	}
	return c.FlushTimeout(10 * time.Second) // the reply subscription is in place
}

// Run sends the share of requests. At a fixed rate, each request's latency is measured from
// its intended send time, so a slow reply delays (and is charged to) the requests behind it.
func (q *Requester) Run(ctx context.Context, env *harness.Env) error {
	clk, rec := env.Clock, env.Rec
	id := q.cfg.IDs.For(env.Index)
	m := q.msg
	stamped := len(m.Stamp) >= stamp.Size
	timeout := q.cfg.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	sched := loop.NewSchedule(env, q.cfg.Rate, q.cfg.Shape, q.cfg.Duration)
	defer sched.Close()
	if sched.Paced() && q.cfg.MaxInflight > 0 && q.cfg.Sleep <= 0 {
		cfg := inflight.Config{Max: inflight.Share(q.cfg.MaxInflight, env.Count, env.Index), Timeout: timeout, Op: "request"}
		return inflight.Run(ctx, env, q.conn, sched, cfg, &openRequests{q: q, rec: rec, id: id, stamped: stamped, size: len(m.Data)})
	}
	rec.Begin(sched.Begin())
	for {
		i, intended, sent, ok, err := sched.Next(ctx)
		if err != nil || !ok {
			rec.End(sched.End())
			return err
		}
		if stamped {
			stamp.Put(m.Stamp, id, i+1, intended)
			m.Seal()
		}
		if err := q.replies.send(q.cfg.Subject, &m.Msg); err != nil {
			return q.conn.Explain("request", err)
		}
		reply := q.replies.wait(ctx.Done(), q.conn.Lost(), sent+int64(timeout), clk.Now)
		now := clk.Now()
		switch {
		case reply != nil && noResponders(reply):
			return fmt.Errorf("no responders on %q: start `natsperf service serve %s` first", q.cfg.Subject, q.cfg.Subject)
		case reply != nil:
		case ctx.Err() != nil:
			return ctx.Err()
		case q.conn.Err() != nil:
			return q.conn.Explain("request", q.conn.Err())
		default:
			rec.Events.Timeouts.Add(1)
			if err := q.replies.subscribe(); err != nil {
				return q.conn.Explain("request", err)
			}
			continue
		}
		rec.OpCorrected(now, len(m.Data), now-intended, now-sent)
		if err := sched.Pause(ctx, q.cfg.Sleep); err != nil {
			return err
		}
	}
}

// openRequests sends requests at their times without waiting for the replies (the open
// model): each reply is recorded on the reply subscription's goroutine.
type openRequests struct {
	q       *Requester
	rec     *record.Recorder
	id      uint32
	stamped bool
	size    int
}

func (o *openRequests) Send(i uint64, intended int64, reply string) error {
	m := o.q.msg
	if o.stamped {
		stamp.Put(m.Stamp, o.id, i+1, intended)
		m.Seal()
	}
	if m.Header == nil {
		return o.q.conn.PublishRequest(o.q.cfg.Subject, reply, m.Data)
	}
	m.Subject, m.Reply = o.q.cfg.Subject, reply
	return o.q.conn.PublishMsg(&m.Msg)
}

func (o *openRequests) Answer(now int64, m *nats.Msg, _ uint64, intended, sent int64) error {
	if noResponders(m) {
		return fmt.Errorf("no responders on %q: start `natsperf service serve %s` first", o.q.cfg.Subject, o.q.cfg.Subject)
	}
	o.rec.OpCorrected(now, o.size, now-intended, now-sent)
	return nil
}

func (o *openRequests) Expired(int64, uint64, int64, int64) { o.rec.Events.Timeouts.Add(1) }

// noResponders reports the server's answer to a request nobody is subscribed to: an empty
// message with status 503 (what nats.go's Request turns into ErrNoResponders).
func noResponders(m *nats.Msg) bool {
	return len(m.Data) == 0 && m.Header.Get("Status") == "503"
}

// Close stops the reply subscription; the runner closes the connection.
func (q *Requester) Close() {
	if q.replies != nil {
		q.replies.close()
	}
}
