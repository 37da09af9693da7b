package js

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/record"
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
	// the start when IdleFromStart (the messages are already in the stream).
	IdleTimeout   time.Duration `json:"idle_timeout"`
	IdleFromStart bool          `json:"idle_from_start,omitempty"`
	AckTimeout    time.Duration `json:"ack_timeout"`
	// Group, shared by the clients of one durable consumer, counts what they received together;
	// they end when it reaches its total. nil for fan-out (ordered) clients.
	Group *Tally `json:"-"`
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
	cfg      ConsumeConfig
	ctx      context.Context
	rec      *record.Recorder
	clk      record.Clock
	start    int64
	share    int64
	n        int64 // messages this client handled
	done     chan struct{}
	finished atomic.Bool
	fail     chan error // first error that ends the client
	ack      jetstream.AckPolicy
}

func newHandler(ctx context.Context, cfg ConsumeConfig, env *bench.Env) (*handler, error) {
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

func (h *handler) handle(msg jetstream.Msg) {
	if h.finished.Load() {
		return // beyond the share: left unacked for whoever reads next
	}
	if g := h.cfg.Group; g != nil && g.total > 0 && g.Add(1) > g.total {
		h.finished.Store(true)
		return
	}
	now := h.clk.Now()
	data := msg.Data()
	h.rec.ReceivedSince(now, data, h.start) // what an earlier run stored counts for throughput only
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
	if fatal(err) {
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

// DefaultIdleTimeout is how long a consumer waits for more.
const DefaultIdleTimeout = 3 * time.Second

// wait ends a callback consumer: share done, idle, failed, connection lost or ctx ended.
func (h *handler) wait(ctx context.Context, env *bench.Env, c *bench.Conn) error {
	idle := h.cfg.IdleTimeout
	if idle <= 0 {
		idle = DefaultIdleTimeout
	}
	tick := time.NewTicker(max(idle/8, 10*time.Millisecond))
	defer tick.Stop()
	producers := env.ProducersDone
	armed := h.cfg.IdleFromStart
	last, lastChange := h.progress(), time.Now()
	for {
		select {
		case <-h.doneCh():
			return nil
		case err := <-h.fail:
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-c.Lost():
			return c.Err()
		case <-producers:
			producers, armed = nil, true
			lastChange = time.Now()
		case now := <-tick.C:
			if n := h.progress(); n != last {
				last, lastChange, armed = n, now, true
				continue
			}
			if armed && now.Sub(lastChange) >= idle {
				return bench.ErrIdle
			}
		}
	}
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
