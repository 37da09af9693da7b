package inflight

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/spec"
)

type nop struct{ answered, expired int }

func (*nop) Send(uint64, int64, string) error { return nil }
func (n *nop) Answer(int64, *nats.Msg, uint64, int64, int64) error {
	n.answered++
	return nil
}
func (n *nop) Expired(int64, uint64, int64, int64) { n.expired++ }

func newState(n int, h Handler) *loopState {
	s := &loopState{cfg: Config{Max: n, Timeout: time.Second}, h: h, clk: record.NewClock(), rec: record.New(record.Options{}),
		slots: make([]slot, n), wake: make(chan struct{}, 1)}
	s.buf = append(s.buf, "_INBOX.abc."...)
	s.cut = len(s.buf)
	return s
}

// send takes a slot for operation i as Run does and returns its reply subject.
func (s *loopState) send(t testing.TB, i uint64) string {
	if err := s.take(context.Background(), nil, nil); err != nil {
		t.Fatal(err)
	}
	now := s.clk.Now()
	sl := &s.slots[s.next]
	sl.intended.Store(now)
	sl.sent.Store(now)
	sl.op.Store(i + 1)
	r := s.reply(s.next, i)
	if s.next++; s.next == len(s.slots) {
		s.next = 0
	}
	return r
}

// TestAnswersFreeTheirSlots: an answer frees its operation's slot once; an answer to an
// operation given up after its timeout, a duplicate, or a subject that is not ours is dropped;
// a straggler's slot is skipped, not waited for, while others are free.
func TestAnswersFreeTheirSlots(t *testing.T) {
	h := &nop{}
	s := newState(4, h)
	var subjects []string
	for i := range uint64(4) {
		subjects = append(subjects, strings.Clone(s.send(t, i))) // the reply aliases a reused buffer
	}
	if s.busy.Load() != 4 {
		t.Fatalf("busy %d after 4 sends", s.busy.Load())
	}
	for _, k := range []int{1, 2, 3, 2} { // the last a duplicate
		s.onAnswer(&nats.Msg{Subject: subjects[k]})
	}
	s.onAnswer(&nats.Msg{Subject: "_INBOX.abc.zz"})
	s.onAnswer(&nats.Msg{Subject: "_INBOX.abc.1-9"}) // slot 1, not its operation
	if h.answered != 3 || s.busy.Load() != 1 {
		t.Fatalf("answered %d, busy %d: want 3 and 1", h.answered, s.busy.Load())
	}
	// Operation 0 stays unanswered in slot 0: the next sends take slots 1, 2, 3.
	for i := uint64(4); i < 7; i++ {
		subj := s.send(t, i)
		if k, op, ok := parse(subj); !ok || op != i || k == 0 {
			t.Fatalf("operation %d: %q parses as slot %d op %d %v", i, subj, k, op, ok)
		}
	}
	// Past the timeout the straggler is given up, and its late answer dropped.
	s.cfg.Timeout = 0
	if n := s.expire(); n != 4 || h.expired != 4 {
		t.Fatalf("expired %d (%d), want 4", n, h.expired)
	}
	s.onAnswer(&nats.Msg{Subject: subjects[0]})
	if h.answered != 3 || s.busy.Load() != 0 {
		t.Fatalf("a late answer counted: answered %d, busy %d", h.answered, s.busy.Load())
	}
}

func TestDefaultBound(t *testing.T) {
	for _, c := range []struct {
		rate float64
		slos []string
		want int
	}{
		{1000, nil, 1000},
		{1000, []string{"loss=0"}, 1000},
		{1000, []string{"p99<50ms", "p50<5ms"}, 10},
		{1500, []string{"p99<=20ms"}, 60},
		{0.5, nil, 1},
		{1e6, nil, MaxDefault},
	} {
		if got := DefaultBound(c.rate, spec.MustThresholds(c.slos...)); got != c.want {
			t.Errorf("DefaultBound(%v, %v) = %d, want %d", c.rate, c.slos, got, c.want)
		}
	}
	if Share(10, 3, 0)+Share(10, 3, 1)+Share(10, 3, 2) != 10 || Share(1, 4, 3) != 1 {
		t.Error("shares do not add up to the bound, or leave a client none")
	}
}

// BenchmarkInflightOp is one operation's own cost in the loop: a slot taken, its reply
// subject written, its answer parsed and the slot freed. It must allocate nothing.
func BenchmarkInflightOp(b *testing.B) {
	s := newState(1024, &nop{})
	m := &nats.Msg{}
	b.ReportAllocs()
	for i := range uint64(b.N) {
		m.Subject = s.send(b, i)
		s.onAnswer(m)
	}
}
