package core

import (
	"context"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/idle"
	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/stamp"
)

// SubConfig configures core NATS subscribers.
type SubConfig struct {
	Subject      string `json:"subject"`
	Queue        string `json:"queue,omitempty"` // queue group name; "" for fan-out
	MultiSubject bool   `json:"multisubject"`
	// IdleTimeout ends a subscriber that received nothing for this long once messages have
	// started (or once the in-process publishers are done); 0: idle.DefaultTimeout.
	IdleTimeout time.Duration `json:"idle_timeout"`
	// PendingMsgs and PendingBytes bound the client library's buffer; beyond them it drops
	// messages (counted). -1 means unlimited, as nats bench runs.
	PendingMsgs  int `json:"pending_msgs"`
	PendingBytes int `json:"pending_bytes"`
	// Sleep is simulated processing time per message, spent in the delivery callback.
	Sleep time.Duration `json:"sleep"`
}

// Subscriber receives messages on its own connection until it has its share.
type Subscriber struct {
	cfg    SubConfig
	conn   *harness.Conn
	rec    *record.Recorder
	clk    record.Clock
	share  int64
	sub    *nats.Subscription
	done   chan struct{} // closed by the callback at the share
	full   bool          // done is closed; the callback's own
	exited chan struct{} // closed once the library's delivery goroutine is gone
	// stampBuf holds a stamp decoded from the Natsperf-Stamp header (the callback's own).
	stampBuf [stamp.ExtSize]byte
}

// NewSubscriber returns a subscriber client.
func NewSubscriber(cfg SubConfig) *Subscriber { return &Subscriber{cfg: cfg} }

// Prepare connects and subscribes.
func (s *Subscriber) Prepare(ctx context.Context, env *harness.Env) error {
	c, err := env.Dial(ctx)
	if err != nil {
		return err
	}
	s.init(c, env)
	handler := s.handle
	subject := s.cfg.Subject
	if s.cfg.MultiSubject {
		subject = loop.Wildcard(subject)
	}
	if s.cfg.Queue != "" {
		s.sub, err = c.QueueSubscribe(subject, s.cfg.Queue, handler)
	} else {
		s.sub, err = c.Subscribe(subject, handler)
	}
	if err != nil {
		return err
	}
	s.sub.SetClosedHandler(func(string) { close(s.exited) })
	if err := s.sub.SetPendingLimits(s.cfg.PendingMsgs, s.cfg.PendingBytes); err != nil {
		return err
	}
	// The subscription must be known to the server before any publisher starts.
	return c.FlushTimeout(10 * time.Second)
}

func (s *Subscriber) init(c *harness.Conn, env *harness.Env) {
	s.conn, s.rec, s.clk, s.share = c, env.Rec, env.Clock, env.Share
	s.done, s.full = make(chan struct{}), false
	s.exited = make(chan struct{})
}

// handle is the receive callback: one clock read and one record per message.
func (s *Subscriber) handle(m *nats.Msg) {
	s.rec.ReceivedStamp(s.clk.Now(), len(m.Data), stamp.Find(m.Header, m.Data, &s.stampBuf))
	if !s.full && s.rec.Unique() == s.share {
		s.full = true // duplicates may follow: the count stays at the share
		close(s.done)
	}
	if s.cfg.Sleep > 0 {
		time.Sleep(s.cfg.Sleep)
	}
}

// Run waits for the share (for a queue-group member, the group's total), the idle timeout, a
// lost connection or ctx.
func (s *Subscriber) Run(ctx context.Context, env *harness.Env) error {
	w := idle.Wait{Timeout: s.cfg.IdleTimeout, Done: s.done}
	if s.cfg.Queue != "" {
		w.Finished = env.GroupDone
	}
	return w.Run(ctx, env, s.conn)
}

// Close unsubscribes and waits for the delivery goroutine, so the recorder is ours again.
func (s *Subscriber) Close() {
	if s.sub == nil {
		return
	}
	if d, err := s.sub.Dropped(); err == nil && d > 0 {
		// Read before unsubscribing: the library forgets it afterwards.
		s.rec.Events.Dropped.Add(int64(d))
	}
	_ = s.sub.Unsubscribe()
	waitExited(s.exited)
}

// waitExited waits, boundedly, for a subscription's delivery goroutine to finish.
func waitExited(exited chan struct{}) {
	select {
	case <-exited:
	case <-time.After(5 * time.Second):
	}
}
