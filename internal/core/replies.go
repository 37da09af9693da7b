package core

import (
	"strconv"
	"time"
	"unsafe"

	"github.com/nats-io/nats.go"
)

// replies is a requester's own reply path: one subscription on INBOX.* made once, each
// request sent with reply subject INBOX.<n>, and the replies handed by the connection's
// reader straight into a channel. nats.go's Request goes through the connection's shared
// reply mux instead: a reply subject, a channel and a map entry made per request, and the
// reply handed from the reader to the mux's delivery goroutine and from it to the
// requester, two goroutine wake-ups where this has one. The reply subject is written into
// a buffer reused for every request, so a request allocates nothing here.
type replies struct {
	conn  *nats.Conn
	sub   *nats.Subscription
	ch    chan *nats.Msg
	buf   []byte // INBOX.<n>
	cut   int    // len("INBOX.")
	n     uint64
	timer *time.Timer
	armed int64 // Clock time the timer fires at, 0 when it is not running
}

// repliesQueued is the channel's room: replies arrive one at a time, so only stale ones
// (to a request that timed out) queue up; beyond it nats.go drops them as a slow consumer.
const repliesQueued = 64

func newReplies(nc *nats.Conn) (*replies, error) {
	r := &replies{conn: nc, timer: time.NewTimer(time.Hour)}
	r.timer.Stop()
	return r, r.subscribe()
}

// subscribe (again, after a timeout) on a fresh inbox: a late reply to an abandoned request
// goes to the old one and is dropped by the server.
func (r *replies) subscribe() error {
	if r.sub != nil {
		_ = r.sub.Unsubscribe()
	}
	inbox := r.conn.NewInbox() + "."
	r.buf, r.cut = append(r.buf[:0], inbox...), len(inbox)
	r.ch = make(chan *nats.Msg, repliesQueued)
	sub, err := r.conn.ChanSubscribe(inbox+"*", r.ch)
	if err != nil {
		return err
	}
	r.sub = sub
	return nil
}

// send publishes a request with the next reply subject. nats.go copies the subject into its
// write buffer before Publish returns, so the string may alias the reused buffer.
func (r *replies) send(subject string, data []byte) error {
	r.n++
	r.buf = strconv.AppendUint(r.buf[:r.cut], r.n, 36)
	return r.conn.PublishRequest(subject, r.reply(), data)
}

func (r *replies) reply() string { return unsafe.String(unsafe.SliceData(r.buf), len(r.buf)) }

// wait returns the reply to the request just sent, nil when none came before deadline
// (Clock ns; now reads the clock) or when done is closed. A stale or duplicate reply (to an
// earlier request) is dropped. The timer is armed for a deadline and moved only when it fires
// before the current one, not reset per request: a request costs no timer operation.
func (r *replies) wait(done, lost <-chan struct{}, deadline int64, now func() int64) *nats.Msg {
	if r.armed == 0 {
		r.timer.Reset(time.Duration(deadline - now()))
		r.armed = deadline
	}
	for {
		select {
		case m := <-r.ch:
			if m.Subject == r.reply() {
				return m
			}
		case <-r.timer.C:
			r.armed = 0
			t := now()
			if t >= deadline {
				return nil
			}
			r.timer.Reset(time.Duration(deadline - t))
			r.armed = deadline
		case <-done:
			return nil
		case <-lost:
			return nil
		}
	}
}

func (r *replies) close() {
	r.timer.Stop()
	if r.sub != nil {
		_ = r.sub.Unsubscribe()
	}
}
