package js

import (
	"bytes"
	"runtime"
	"strconv"

	"github.com/nats-io/nats.go"
)

// An unpaced async publisher outside fault runs reads its acks itself rather than through
// nats.go's PublishMsgAsync: each ring slot has its own reply subject under one inbox
// subscription, so an ack names its slot, and an ack is told from an error by its first
// bytes. nats.go's path decodes every PubAck with encoding/json, keeps a map entry, a reply
// subject and a timer per publish: about 60% of the publisher's CPU (docs/performance.md).
// Fault runs and fixed-rate runs keep nats.go's path, whose retries on "no responders",
// per-publish timers and reset of pending acks on a reconnect they rely on.

// pubAckStart is how every successful PubAck the server sends begins; an error reply is
// {"error":...}, and "no responders" an empty status message.
var pubAckStart = []byte(`{"stream":`)

// ownAcks reports whether the publisher reads its acks itself.
func (p *asyncPub) ownAcks() bool {
	return !p.paced && !p.cfg.RideOut && p.waits == nil
}

// subscribeReplies subscribes to a fresh inbox and gives each ring slot its reply subject
// there. Run again after acks timed out, so a late ack cannot land on a reused slot.
func (p *asyncPub) subscribeReplies() error {
	prefix := p.conn.NewInbox() // under --inbox-prefix
	replies := make([]string, p.window)
	for i := range replies {
		replies[i] = prefix + "." + strconv.Itoa(i)
	}
	sub, err := p.conn.Subscribe(prefix+".*", p.onReply)
	if err != nil {
		return err
	}
	p.replies = replies
	p.sub.Store(sub)
	return nil
}

// replySlot is the ring slot a reply subject names (its last token), or -1.
func (p *asyncPub) replySlot(subject string) int {
	j := len(subject)
	for j > 0 && subject[j-1] != '.' {
		j--
	}
	if j == len(subject) || len(subject)-j > 9 {
		return -1
	}
	n := 0
	for _, c := range subject[j:] {
		if c < '0' || c > '9' {
			return -1
		}
		n = n*10 + int(c-'0')
	}
	if n >= len(p.msgs) {
		return -1
	}
	return n
}

// onReply is an ack or an error reply for one slot, on the subscription's goroutine (the
// recorder's one writer).
func (p *asyncPub) onReply(m *nats.Msg) {
	now := p.clk.Now()
	p.active.Add(1)
	defer p.active.Add(-1)
	i := p.replySlot(m.Subject)
	if m.Sub != p.sub.Load() || i < 0 || !p.busy[i].Load() {
		return // an inbox given up after a timeout, or no publish awaiting
	}
	if bytes.HasPrefix(m.Data, pubAckStart) {
		if !p.closing.Load() {
			p.acked(now, i, len(p.msgs[i].Data))
		}
	} else {
		p.rec.Events.Errors.Add(1)
		p.rec.Failed(now)
		p.failed(1)
	}
	p.busy[i].Store(false)
	p.settle()
}

// expire gives up on every publish still awaiting its ack (--ack-timeout passed): each is a
// timeout, its fate unknown. The replies move to a fresh inbox first, and the callbacks of
// the old one are waited for, so no ack can touch a slot after it is given up.
func (p *asyncPub) expire() error {
	old := p.sub.Load()
	if err := p.subscribeReplies(); err != nil {
		return err
	}
	_ = old.Unsubscribe()
	for p.active.Load() != 0 {
		runtime.Gosched()
	}
	now := p.clk.Now()
	for i := range p.busy {
		if p.busy[i].Swap(false) {
			p.rec.Events.Timeouts.Add(1)
			p.rec.Failed(now)
			p.settle()
		}
	}
	return nil
}
