package js

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/internal/payload"
	"github.com/natsperf/natsperf/internal/serverver"
	"github.com/natsperf/natsperf/internal/stamp"
)

// Atomic batch publish headers, as nats-server 2.12+ reads them (server/stream.go).
const (
	batchIDHeader     = "Nats-Batch-Id"
	batchSeqHeader    = "Nats-Batch-Sequence"
	batchCommitHeader = "Nats-Batch-Commit"
)

// MaxAtomicBatch is the server's default limit on the messages of one atomic batch.
const MaxAtomicBatch = 1000

// batchPub publishes atomic batches: every message carries the batch id and its sequence in the
// batch, the last one the commit; the server stores all of them or none and acks the commit.
// nats.go 1.55 has no API for it, so this speaks the headers directly. Each message's latency
// is from its own send to the commit's ack, when it is durably stored.
type batchPub struct {
	pubBase
	bmsg      *payload.Message
	mid, last nats.Header // headers of the messages before the commit, and of the commit
	seqs      []string    // "1".."batch", so the hot loop formats nothing
	sent      []int64
	idBuf     []byte
	checked   bool // the first message of the first batch was acked on its own
}

func (p *batchPub) Prepare(ctx context.Context, env *harness.Env) error {
	if p.cfg.Batch <= 0 {
		p.cfg.Batch = 100
	}
	if err := p.prepare(ctx, env); err != nil {
		return err
	}
	// The run checked one server up front; this client's may be another (a mixed cluster).
	if r := serverver.AtomicBatch.Refusal("js pub atomic", p.conn.ConnectedServerVersion()); r != "" {
		return fmt.Errorf("%s (%s)", r, p.conn.ConnectedServerName())
	}
	s, err := p.js.Stream(ctx, p.cfg.Stream)
	if err != nil {
		return fmt.Errorf("stream %s: %w", p.cfg.Stream, err)
	}
	if !s.CachedInfo().Config.AllowAtomicPublish {
		return fmt.Errorf("stream %s does not allow atomic batch publish (allow_atomic is off): use a stream natsperf creates (--stream NEW --create) or enable it on this one", p.cfg.Stream)
	}
	if p.bmsg, p.idBuf, err = p.body(); err != nil {
		return err
	}
	p.mid = nats.Header{batchIDHeader: {""}, batchSeqHeader: {""}}
	p.last = nats.Header{batchIDHeader: {""}, batchSeqHeader: {""}, batchCommitHeader: {"1"}}
	for k, v := range p.bmsg.Header { // the user's, the stamp's and the id's, shared: set once
		p.mid[k], p.last[k] = v, v
	}
	p.seqs = make([]string, p.cfg.Batch)
	for i := range p.seqs {
		p.seqs[i] = strconv.Itoa(i + 1)
	}
	p.sent = make([]int64, p.cfg.Batch)
	return nil
}

// Run publishes the share in atomic batches of cfg.Batch (the last one may be shorter).
func (p *batchPub) Run(ctx context.Context, env *harness.Env) error {
	clk, rec, body := env.Clock, env.Rec, p.bmsg
	m := &body.Msg
	id := p.cfg.IDs.For(env.Index)
	stamped := len(body.Stamp) >= stamp.Size
	share, bounded, pacer := p.share(env)
	var deadline int64
	if p.cfg.Duration > 0 {
		deadline = env.Start + int64(p.cfg.Duration)
	}
	// At a fixed rate (nats bench --throughput) each message waits for its slot, batch or
	// not, and its latency counts from the slot.
	var w *loop.Waiter
	if p.cfg.Rate > 0 {
		w = loop.NewWaiter(clk, env.PacePrecision)
		defer w.Close()
		deadline = loop.Deadline(env.Start, p.cfg.Duration)
	}
	timer := loop.NewTimer()
	rec.Begin(clk.Now())
	for i := uint64(0); !bounded || i < share; {
		if err := ctx.Err(); err != nil {
			return err
		}
		if deadline != 0 && clk.Now() >= deadline {
			break
		}
		n := uint64(p.cfg.Batch)
		if share > 0 {
			n = min(n, share-i)
		}
		batchID := nuid.Next()
		p.mid[batchIDHeader][0], p.last[batchIDHeader][0] = batchID, batchID
		var commit *nats.Msg
		var err error
		for j := uint64(0); j < n; j++ {
			m.Header = p.mid
			if j == n-1 {
				m.Header = p.last
			}
			m.Header[batchSeqHeader][0] = p.seqs[j]
			now := clk.Now()
			if w != nil {
				intended := env.Start + int64(pacer.Intended(i+j))
				if _, err = w.Until(ctx, intended); err != nil {
					return err
				}
				now = w.Intended(intended) // its slot, or the pacer's planned wake-up
			}
			p.sent[j] = now
			if stamped {
				stamp.Put(body.Stamp, id, i+j+1, now)
				body.Seal()
			}
			m.Subject = p.subject(int64(i + j))
			if p.cfg.Dedup {
				m.Header[jetstream.MsgIDHeader][0] = p.msgID(p.idBuf, i+j+1)
			}
			switch {
			case j == n-1:
				commit, err = p.conn.RequestMsg(m, p.cfg.AckTimeout)
			case j == 0 && !p.checked:
				err = p.checkFirst(m)
				if err != nil {
					return err
				}
				p.checked = true
			default:
				err = p.conn.PublishMsg(m)
			}
			if err != nil {
				break
			}
		}
		i += n
		if p.acks != nil {
			p.acks.Attempted(i)
		}
		now := clk.Now()
		if err == nil {
			err = commitErr(commit, batchID, n)
		}
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if p.fatal(err) || p.conn.Err() != nil {
				return p.conn.Explain("batch publish", err)
			}
			count(&rec.Events, err)
			rec.Failed(now)
			p.refused(err, int64(n))
			continue
		}
		for j := uint64(0); j < n; j++ {
			rec.Op(now, len(m.Data), now-p.sent[j])
		}
		if p.cfg.Acked != nil {
			p.cfg.Acked.Add(int64(n))
		}
		if p.acks != nil {
			for j := uint64(1); j <= n; j++ {
				p.acks.Set(i - n + j)
			}
		}
		if p.cfg.Sleep > 0 {
			if err := loop.Sleep(ctx, timer, p.cfg.Sleep); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkFirst sends the first message of the run as a request: the server answers an empty
// message when it staged it, or an error (atomic publish disabled, ...). A plain ack means the
// server ignored the batch headers and stored the message on its own.
func (p *batchPub) checkFirst(m *nats.Msg) error {
	resp, err := p.conn.RequestMsg(m, p.cfg.AckTimeout)
	if err != nil {
		return p.conn.Explain("first batch message", err)
	}
	if len(resp.Data) == 0 {
		return nil
	}
	var r batchResponse
	if err := json.Unmarshal(resp.Data, &r); err != nil {
		return fmt.Errorf("first batch message: unreadable answer %q", resp.Data)
	}
	if r.Error != nil {
		return fmt.Errorf("atomic batch publish refused by stream %s: %w", p.cfg.Stream, r.Error)
	}
	return fmt.Errorf("the server stored a batch message on its own: it does not support atomic batch publish (nats-server 2.12 or newer needed)")
}

// batchResponse is the server's answer to a batch message: an error, or the commit's ack.
type batchResponse struct {
	Error    *jetstream.APIError `json:"error,omitempty"`
	Stream   string              `json:"stream"`
	Sequence uint64              `json:"seq"`
	BatchID  string              `json:"batch,omitempty"`
	Count    uint64              `json:"count,omitempty"`
}

var errBadCommit = errors.New("atomic batch commit: unexpected acknowledgement")

func commitErr(resp *nats.Msg, batchID string, n uint64) error {
	if resp == nil {
		return errBadCommit
	}
	var r batchResponse
	if err := json.Unmarshal(resp.Data, &r); err != nil {
		return fmt.Errorf("%w: %q", errBadCommit, resp.Data)
	}
	if r.Error != nil {
		return fmt.Errorf("atomic batch commit: %w", r.Error)
	}
	if r.BatchID != batchID || r.Count != n {
		return fmt.Errorf("%w: batch %q of %d, want %q of %d", errBadCommit, r.BatchID, r.Count, batchID, n)
	}
	return nil
}
