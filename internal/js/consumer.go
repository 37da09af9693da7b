package js

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/idle"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/stamp"
)

// Consumer kinds.
const (
	Ordered = "ordered" // ordered ephemeral consumer per client, each gets every message
	Consume = "consume" // durable pull consumer shared by the clients, Consume callback
	Fetch   = "fetch"   // durable pull consumer shared by the clients, Fetch batches
	Push    = "push"    // durable push consumer, deliver group when the clients share it
)

// ConsumeConfig configures consumer clients.
type ConsumeConfig struct {
	Kind      string        `json:"kind"`
	Stream    string        `json:"stream"`
	Consumer  ConsumerSpec  `json:"consumer"`
	DoubleAck bool          `json:"double_ack,omitempty"`
	Batch     int           `json:"batch"`           // pull batch / max buffered messages; ack-all interval
	Sleep     time.Duration `json:"sleep,omitempty"` // simulated processing per message
	// IdleTimeout ends a client that gets nothing for this long once messages started, or from
	// the start when IdleFromStart (the messages are already in the stream); 0:
	// idle.DefaultTimeout.
	IdleTimeout   time.Duration `json:"idle_timeout"`
	IdleFromStart bool          `json:"idle_from_start,omitempty"`
	// RateFromStart begins the client's rate interval at the start barrier, when it starts
	// consuming, instead of at its first message: its messages are already stored, or this
	// run's own publishers start at the same barrier. Its first message is then no measure of
	// when it could have begun: a share delivered (or buffered in the client library) in one
	// burst would make first-to-last the callback's drain speed, not a receive rate. Set it
	// with IdleFromStart, and for consumers of in-process publishers (pubsub --js).
	RateFromStart bool          `json:"rate_from_start,omitempty"`
	AckTimeout    time.Duration `json:"ack_timeout"`
	// RideOut (a fault run) keeps a consumer going through a leader change as an application
	// would: short pull heartbeats so a lost consumer is noticed within the idle timeout,
	// "no responders" and a deleted consumer not fatal, and, when idle while the stream still
	// holds messages for it, the consumer made again from the last stream sequence delivered.
	RideOut bool `json:"ride_out,omitempty"`
	// Group, shared by the clients of one durable consumer, counts what they received together;
	// they end when it reaches its total. nil for fan-out (ordered) clients.
	Group *Tally `json:"-"`
	// PubFailed, when set, counts the publishes the run's own publishers know failed and were
	// never stored (refused, or not sent): once the publishers are done, a consumer does not
	// wait for those (PubConfig.Failed).
	PubFailed *Tally `json:"-"`
}

// Tally is a counter shared by clients; Done closes once it reaches its total (never for 0).
type Tally struct {
	n     atomic.Int64
	total int64
	done  chan struct{}
	once  sync.Once
}

// NewTally returns a tally that is done at total.
func NewTally(total int64) *Tally { return &Tally{total: total, done: make(chan struct{})} }

// Add adds d and returns the new count.
func (t *Tally) Add(d int64) int64 {
	n := t.n.Add(d)
	if t.total > 0 && n >= t.total {
		t.once.Do(func() { close(t.done) })
	}
	return n
}

// Load is the count so far.
func (t *Tally) Load() int64 { return t.n.Load() }

// Done is closed once the total is reached.
func (t *Tally) Done() <-chan struct{} { return t.done }

// handler processes one delivered message: record, ack, simulated work. Only one goroutine
// calls handle at a time (the library's delivery goroutine, or the fetching client).
type handler struct {
	stampBuf [stamp.ExtSize]byte // a stamp decoded from the Natsperf-Stamp header
	cfg      ConsumeConfig
	ctx      context.Context
	rec      *record.Recorder
	clk      record.Clock
	start    int64
	share    int64
	n        int64 // messages this client handled
	lastAt   int64 // Clock time of the last one (read by a fetcher, on the same goroutine)
	done     chan struct{}
	finished atomic.Bool
	fail     chan error // first error that ends the client
	ack      jetstream.AckPolicy
	// With RideOut: the last stream sequence delivered (written by the delivery goroutine, read
	// when idle), and what the client does when idle (true: more is coming, wait on).
	lastSeq atomic.Uint64
	stalled func(ctx context.Context) bool
}

func newHandler(ctx context.Context, cfg ConsumeConfig, env *harness.Env) (*handler, error) {
	ack, err := AckPolicy(cfg.Consumer.Acks)
	if err != nil {
		return nil, err
	}
	if cfg.Kind == Ordered {
		ack = jetstream.AckNonePolicy // ordered consumers never ack
	}
	if cfg.Batch <= 0 {
		cfg.Batch = 500
	}
	return &handler{
		cfg: cfg, ctx: ctx, rec: env.Rec, clk: env.Clock, share: env.Share, ack: ack,
		done: make(chan struct{}), fail: make(chan error, 1),
	}, nil
}

// begin starts the client's run: the stamps of messages sent before env.Start are not this
// run's, and with RateFromStart the rate's interval opens now. Call it from Run before the
// first message can arrive.
func (h *handler) begin(ctx context.Context, env *harness.Env) {
	h.ctx, h.start = ctx, env.Start
	if h.cfg.RateFromStart {
		h.rec.Begin(env.Start)
	}
}

func (h *handler) handle(msg jetstream.Msg) {
	if h.finished.Load() {
		return // beyond the share: left unacked for whoever reads next
	}
	if g := h.cfg.Group; g != nil && g.total > 0 && g.Add(1) > g.total {
		h.finished.Store(true)
		return
	}
	if h.cfg.RideOut {
		if seq, ok := streamSeq(msg.Reply()); ok {
			h.lastSeq.Store(seq)
		}
	}
	now := h.clk.Now()
	h.lastAt = now
	data := msg.Data()
	// what an earlier run stored counts for throughput only; the stored time splits the latency
	stored, _ := ackNumber(msg.Reply(), 7)
	h.rec.ReceivedStored(now, len(data), stamp.Find(msg.Headers(), data, &h.stampBuf), h.start, int64(stored))
	h.n++
	last := h.n == h.share && h.cfg.Group == nil
	switch h.ack {
	case jetstream.AckExplicitPolicy:
		h.acknowledge(msg)
	case jetstream.AckAllPolicy:
		if last || h.n%int64(h.cfg.Batch) == 0 || (h.cfg.Group != nil && h.cfg.Group.Load() >= h.cfg.Group.total) {
			h.acknowledge(msg)
		}
	}
	if h.cfg.Sleep > 0 {
		time.Sleep(h.cfg.Sleep)
	}
	if last {
		h.finished.Store(true)
		close(h.done)
	}
}

func (h *handler) acknowledge(msg jetstream.Msg) {
	var err error
	if h.cfg.DoubleAck {
		err = msg.DoubleAck(h.ctx)
	} else {
		err = msg.Ack()
	}
	if err != nil {
		count(&h.rec.Events, err)
	}
}

// onErr counts consume errors (missed heartbeats, failed pulls); ones that end the consumer
// are passed to Run.
func (h *handler) onErr(_ jetstream.ConsumeContext, err error) {
	if errors.Is(err, jetstream.ErrNoHeartbeat) {
		h.rec.Events.Timeouts.Add(1)
		return
	}
	h.rec.Events.Errors.Add(1)
	if fatal(err) && !(h.cfg.RideOut && passing(err)) {
		select {
		case h.fail <- err:
		default:
		}
	}
}

// doneCh is what ends the client: its own share, or the group's total.
func (h *handler) doneCh() <-chan struct{} {
	if h.cfg.Group != nil {
		return h.cfg.Group.Done()
	}
	return h.done
}

// progress is what idle detection watches: the group's count when the clients share a
// consumer (one idle member is fine while the others work), else the client's own.
func (h *handler) progress() int64 {
	if h.cfg.Group != nil {
		return h.cfg.Group.Load()
	}
	return h.rec.Progress()
}

// wait ends a callback consumer: share done, idle, failed, connection lost or ctx ended.
func (h *handler) wait(ctx context.Context, env *harness.Env, c *harness.Conn) error {
	return idle.Wait{
		Timeout: h.cfg.IdleTimeout, FromStart: h.cfg.IdleFromStart, Done: h.doneCh(), Fail: h.fail,
		Progress: h.progress, RideOn: h.rideOn, Finished: h.failedOnly(env),
	}.Run(ctx, env, c)
}

// failedOnly, with PubFailed, ends a consumer once the publishers are done and all it still
// lacks of its share is publishes they know failed (never stored): it does not wait the idle
// timeout for them. Publishes that timed out may be stored: those it still waits for.
func (h *handler) failedOnly(env *harness.Env) func() bool {
	if h.cfg.PubFailed == nil {
		return nil
	}
	share := env.Share
	if h.cfg.Group != nil {
		share = h.cfg.Group.total
	}
	return func() bool {
		select {
		case <-env.ProducersDone:
		default:
			return false
		}
		f := h.cfg.PubFailed.Load()
		return f > 0 && h.progress() >= share-f
	}
}

// rideOutGrace bounds how long a consumer riding out a fault waits, beyond the idle timeout,
// for messages the stream holds.
const rideOutGrace = 30 * time.Second

// rideOn reports whether a client idle for so long goes on: with RideOut, while the stream
// still holds messages for it (a failover in progress), for at most rideOutGrace.
func (h *handler) rideOn(ctx context.Context, idleFor time.Duration) bool {
	if !h.cfg.RideOut || h.stalled == nil || idleFor > rideOutGrace {
		return false
	}
	return h.stalled(ctx)
}

// passing tells the errors of a leader change, which a consumer riding out a fault outlives.
func passing(err error) bool {
	return errors.Is(err, jetstream.ErrNoStreamResponse) || errors.Is(err, nats.ErrNoResponders) ||
		errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrConsumerDeleted)
}

// streamSeq reads the stream sequence from a JetStream message's reply subject
// ($JS.ACK.<stream>.<consumer>.<delivered>.<stream seq>.<consumer seq>.<time>.<pending>, or
// with domain and account hash after $JS.ACK) without allocating.
func streamSeq(reply string) (uint64, bool) { return ackNumber(reply, 5) }

// ackNumber reads token pos (counted in the old 9-token form, where 5 is the stream
// sequence and 7 the stored timestamp in Unix ns) of a JetStream ack subject, without
// allocating.
func ackNumber(reply string, pos int) (uint64, bool) {
	const prefix = "$JS.ACK."
	if len(reply) <= len(prefix) || reply[:len(prefix)] != prefix {
		return 0, false
	}
	tokens := 1
	for i := 0; i < len(reply); i++ {
		if reply[i] == '.' {
			tokens++
		}
	}
	// 9 tokens in the old form, 11 or more in the new (two more before the stream's name).
	if tokens >= 11 {
		pos += 2
	}
	tok, start := 0, 0
	for i := 0; i <= len(reply); i++ {
		if i < len(reply) && reply[i] != '.' {
			continue
		}
		if tok == pos {
			var n uint64
			if i == start {
				return 0, false
			}
			for _, c := range reply[start:i] {
				if c < '0' || c > '9' {
					return 0, false
				}
				n = n*10 + uint64(c-'0')
			}
			return n, true
		}
		tok, start = tok+1, i+1
	}
	return 0, false
}

// stopConsume stops a consume context and waits, boundedly, for its callbacks to end, so the
// recorder is the runner's again.
func stopConsume(cc jetstream.ConsumeContext) {
	if cc == nil {
		return
	}
	cc.Stop()
	select {
	case <-cc.Closed():
	case <-time.After(5 * time.Second):
	}
}
