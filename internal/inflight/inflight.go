// Package inflight is the open model of a fixed-rate sender whose operations await answers
// (service requests, JetStream sync publishes, KV puts): each operation is sent at its time on
// the schedule whether or not earlier ones have been answered, up to a bound of operations
// awaiting answers (k6's constant-arrival-rate executor). A sender that waited for each
// answer before its next send (a closed loop) turns a saturated service into a sender that
// fell behind its rate, which reads as natsperf's own shortfall.
//
// The operations awaiting answers live in a ring of slots. The sender is the only one that
// takes a slot (the next free one after the last taken); an answer frees its slot with one
// compare-and-swap on the subscription's goroutine, and an answer that does not find its
// operation in the slot (given up after the timeout) is dropped. Each request's reply subject
// names its slot and operation, written into a reused buffer: an operation takes no lock and
// allocates nothing here.
package inflight

import (
	"context"
	"errors"
	"math"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unsafe"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/spec"
)

// Handler is what one kind of operation does in the loop.
type Handler interface {
	// Send sends operation i (0-based), due at intended (Clock ns), asking for its answer on
	// reply. The reply string aliases a reused buffer: it must not be kept.
	Send(i uint64, intended int64, reply string) error
	// Answer handles the answer m to operation i sent at sent for intended, received at now,
	// on the reply subscription's goroutine (the recorder's one writer). An error ends the run.
	Answer(now int64, m *nats.Msg, i uint64, intended, sent int64) error
	// Expired is called, on the sender's goroutine, for operation i given up unanswered after
	// the timeout.
	Expired(now int64, i uint64, intended, sent int64)
}

// Config is one client's loop.
type Config struct {
	Max     int           // operations awaiting answers at once, at least 1
	Timeout time.Duration // an operation unanswered this long is given up (Expired)
	Op      string        // what an error says failed: "request", "publish", "kv"
}

// MaxDefault caps DefaultBound: a few words of memory per slot, and more operations than this
// awaiting answers is a flood rather than a schedule (--max-inflight may ask for more).
const MaxDefault = 100_000

// DefaultBound is the total bound on operations awaiting answers for a run at rate with the
// thresholds slos, when --max-inflight does not give one: rate x twice the tightest latency
// threshold (room for a queue that breaks it to form and show), else rate x 1s; at least 1,
// at most MaxDefault.
func DefaultBound(rate float64, slos []spec.Threshold) int {
	window := time.Second
	tightest := time.Duration(0)
	for _, t := range slos {
		if l, ok := t.Latency(); ok && (tightest == 0 || l < tightest) {
			tightest = l
		}
	}
	if tightest > 0 {
		window = 2 * tightest
	}
	return int(max(1, min(MaxDefault, math.Ceil(rate*window.Seconds()))))
}

// Share is one client's part of a total bound split over clients, at least 1.
func Share(total, clients, index int) int {
	if clients <= 1 {
		return max(total, 1)
	}
	n := total / clients
	if index < total%clients {
		n++
	}
	return max(n, 1)
}

type slot struct {
	op       atomic.Uint64 // 1 + the operation awaiting its answer here; 0: free
	intended atomic.Int64
	sent     atomic.Int64
}

// loopState is one run of the loop.
type loopState struct {
	cfg   Config
	h     Handler
	clk   record.Clock
	rec   *record.Recorder
	slots []slot
	next  int          // where the sender looks for a free slot first
	busy  atomic.Int64 // slots taken
	wait  atomic.Bool  // the sender waits for a slot to be freed
	wake  chan struct{}
	fail  atomic.Bool
	once  sync.Once
	err   error
	buf   []byte // the reply subject: prefix, slot, ".", operation
	cut   int    // len(prefix)
}

// Run sends sched's operations through h on conn with up to cfg.Max awaiting answers, then
// waits for the answers still due (at most cfg.Timeout each). Answers come to a subscription
// of conn's own; env.Rec's owner is its goroutine until Run returns.
func Run(ctx context.Context, env *harness.Env, conn *harness.Conn, sched *loop.Schedule, cfg Config, h Handler) error {
	s := &loopState{cfg: cfg, h: h, clk: env.Clock, rec: env.Rec, slots: make([]slot, max(cfg.Max, 1)), wake: make(chan struct{}, 1)}
	s.rec.Events.MaxInflight.Store(int64(len(s.slots)))
	prefix := conn.NewInbox() + "."
	s.buf, s.cut = append(make([]byte, 0, len(prefix)+40), prefix...), len(prefix)
	sub, err := conn.Subscribe(prefix+"*", s.onAnswer)
	if err != nil {
		return conn.Explain(cfg.Op, err)
	}
	exited := make(chan struct{})
	sub.SetClosedHandler(func(string) { close(exited) })
	// The answers' goroutine must be done with the recorder before Run returns (it is the
	// caller's again) and before End: its closed handler runs after its last callback.
	stop := func() {
		if sub.Unsubscribe() == nil {
			select {
			case <-exited:
			case <-time.After(5 * time.Second):
			}
		}
	}
	if err := sub.SetPendingLimits(-1, -1); err != nil {
		stop()
		return err
	}
	if err := conn.FlushTimeout(10 * time.Second); err != nil {
		stop()
		return conn.Explain(cfg.Op, err)
	}
	timer := loop.NewTimer()
	s.rec.Answers() // the rate is the answers': from the first to the last

	for {
		if s.fail.Load() {
			stop()
			return s.err
		}
		if err := s.take(ctx, conn, timer); err != nil {
			stop()
			return err
		}
		i, intended, sent, ok, err := sched.Next(ctx)
		if err != nil || !ok {
			s.busy.Add(-1) // the slot taken is not used
			if err == nil {
				err = s.drain(ctx, conn, timer)
			}
			stop()
			s.rec.End(sched.End())
			return err
		}
		sl := &s.slots[s.next]
		sl.intended.Store(intended)
		sl.sent.Store(sent)
		sl.op.Store(i + 1)
		if err := h.Send(i, intended, s.reply(s.next, i)); err != nil {
			stop()
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return conn.Explain(cfg.Op, err)
		}
		if s.clk.Now()-sent >= blocked {
			s.rec.Events.SendBlocked.Add(1)
		}
		s.next++
		if s.next == len(s.slots) {
			s.next = 0
		}
	}
}

// reply writes the reply subject of operation i in slot k: <inbox>.<k>-<i>, base 36.
func (s *loopState) reply(k int, i uint64) string {
	b := strconv.AppendUint(s.buf[:s.cut], uint64(k), 36)
	b = append(b, '-')
	b = strconv.AppendUint(b, i, 36)
	s.buf = b
	return unsafe.String(unsafe.SliceData(b), len(b))
}

// parse reads slot and operation from a reply subject's last token; ok false when it is not
// one of ours.
func parse(subject string) (k int, i uint64, ok bool) {
	j := len(subject)
	for j > 0 && subject[j-1] != '.' {
		j--
	}
	var n uint64
	seen := false
	for _, c := range []byte(subject[j:]) {
		var d uint64
		switch {
		case c >= '0' && c <= '9':
			d = uint64(c - '0')
		case c >= 'a' && c <= 'z':
			d = uint64(c-'a') + 10
		case c == '-' && !seen:
			k, n, seen = int(n), 0, true
			continue
		default:
			return 0, 0, false
		}
		n = n*36 + d
	}
	return k, n, seen
}

// take waits for a free slot and points s.next at it, giving up operations past their
// timeout on the way; waiting because every slot is taken is counted (InflightFull).
func (s *loopState) take(ctx context.Context, conn *harness.Conn, timer *time.Timer) error {
	counted := false
	for {
		seen := s.busy.Load()
		if seen < int64(len(s.slots)) {
			for range s.slots {
				if s.slots[s.next].op.Load() == 0 {
					s.busy.Add(1)
					return nil
				}
				if s.next++; s.next == len(s.slots) {
					s.next = 0
				}
			}
		}
		// Every slot awaits an answer: give up the ones past their timeout, or wait.
		if s.expire() > 0 {
			continue
		}
		if !counted {
			s.rec.Events.InflightFull.Add(1)
			counted = true
		}
		if err := s.sleep(ctx, conn, timer, s.oldest(), seen); err != nil {
			return err
		}
	}
}

// drain waits for the answers still due, giving up the ones past their timeout.
func (s *loopState) drain(ctx context.Context, conn *harness.Conn, timer *time.Timer) error {
	for seen := s.busy.Load(); seen > 0; seen = s.busy.Load() {
		if s.fail.Load() {
			return s.err
		}
		if s.expire() > 0 {
			continue
		}
		if err := s.sleep(ctx, conn, timer, s.oldest(), seen); err != nil {
			return err
		}
	}
	if s.fail.Load() {
		return s.err
	}
	return nil
}

// expire gives up every operation past its timeout and says how many.
func (s *loopState) expire() int {
	now, n := s.clk.Now(), 0
	for k := range s.slots {
		sl := &s.slots[k]
		op := sl.op.Load()
		if op == 0 {
			continue
		}
		intended, sent := sl.intended.Load(), sl.sent.Load()
		if now-sent < int64(s.cfg.Timeout) || !sl.op.CompareAndSwap(op, 0) {
			continue
		}
		s.busy.Add(-1)
		s.h.Expired(now, op-1, intended, sent)
		n++
	}
	return n
}

// oldest is when the oldest operation awaiting its answer times out (Clock ns).
func (s *loopState) oldest() int64 {
	first := int64(0)
	for k := range s.slots {
		if s.slots[k].op.Load() == 0 {
			continue
		}
		if t := s.slots[k].sent.Load(); first == 0 || t < first {
			first = t
		}
	}
	if first == 0 {
		return s.clk.Now()
	}
	return first + int64(s.cfg.Timeout)
}

// sleep waits until an answer frees a slot (fewer than seen are taken), deadline (Clock ns)
// passes, or the run fails or ends.
func (s *loopState) sleep(ctx context.Context, conn *harness.Conn, timer *time.Timer, deadline, seen int64) error {
	s.wait.Store(true)
	defer s.wait.Store(false)
	if s.busy.Load() < seen || s.fail.Load() {
		return nil // freed since the caller looked: an answer may not have seen wait set
	}
	d := time.Duration(deadline - s.clk.Now())
	if d <= 0 {
		return nil
	}
	timer.Reset(d)
	defer timer.Stop()
	select {
	case <-s.wake:
	case <-timer.C:
	case <-ctx.Done():
		return ctx.Err()
	case <-conn.Lost():
		return conn.Explain(s.cfg.Op, errors.Join(conn.Err(), errLost))
	}
	return nil
}

// blocked is how long a send call takes before it counts as blocked (Events.SendBlocked):
// a publish copies into the connection's buffer in microseconds unless the buffer is full
// and the call waits for the socket, that is for the system to take the bytes.
const blocked = int64(time.Millisecond)

var errLost = errors.New("connection lost with operations awaiting answers")

// onAnswer frees the slot of the operation m answers and hands m to the handler.
func (s *loopState) onAnswer(m *nats.Msg) {
	now := s.clk.Now()
	k, i, ok := parse(m.Subject)
	if !ok || k >= len(s.slots) {
		return
	}
	sl := &s.slots[k]
	if sl.op.Load() != i+1 {
		return // given up after its timeout
	}
	intended, sent := sl.intended.Load(), sl.sent.Load()
	if !sl.op.CompareAndSwap(i+1, 0) {
		return
	}
	s.busy.Add(-1)
	if s.wait.Load() {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
	if err := s.h.Answer(now, m, i, intended, sent); err != nil {
		s.once.Do(func() {
			s.err = err
			s.fail.Store(true)
			select {
			case s.wake <- struct{}{}:
			default:
			}
		})
	}
}
