package js

import (
	"bytes"
	"context"
	"encoding/json"
	"unsafe"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/inflight"
	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/internal/payload"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/stamp"
)

// The open model (internal/inflight) of sync publishes and KV puts at a fixed rate: each is
// published at its time with its own reply subject, without waiting for the acks of the
// earlier ones, up to a bound awaiting acks; each ack is read where it arrives, told from an
// error by its first bytes (pubAckStart). In a fault run (RideOut) a "no responders" answer
// (no stream leader) is a refusal counted for the failover story, as the one-at-a-time loop
// counts it, and an ack given up after its timeout is a wait the story reads (rideOut, one
// way for both kinds and both loops).

// openPub is a sync publisher's open model.
type openPub struct {
	p    *syncPub
	rec  *record.Recorder
	body *payload.Message
	id   uint32
	ride rideOut
}

// open runs p's schedule in the open model when it applies (a fixed rate, a bound, no
// --sleep); ok false leaves the run to the one-at-a-time loop.
func (p *syncPub) open(ctx context.Context, env *harness.Env, sched *loop.Schedule) (ok bool, err error) {
	if !sched.Paced() || p.cfg.MaxInflight <= 0 || p.cfg.Sleep > 0 {
		return false, nil
	}
	cfg := inflight.Config{Max: inflight.Share(p.cfg.MaxInflight, env.Count, env.Index), Timeout: p.cfg.AckTimeout, Op: "publish"}
	o := &openPub{p: p, rec: env.Rec, body: p.msg, id: p.cfg.IDs.For(env.Index), ride: p.ride(env)}
	return true, inflight.Run(ctx, env, p.conn, sched, cfg, o)
}

func (o *openPub) Send(i uint64, intended int64, reply string) error {
	p, body := o.p, o.body
	m := &body.Msg
	if len(body.Stamp) >= stamp.Size {
		stamp.Put(body.Stamp, o.id, i+1, intended)
		body.Seal()
	}
	m.Subject, m.Reply = p.subject(int64(i)), reply
	if p.cfg.Dedup {
		m.Header[jetstream.MsgIDHeader][0] = p.msgID(p.idBuf, i+1)
	}
	if p.acks != nil {
		p.acks.Attempted(i + 1)
	}
	return p.conn.PublishMsg(m)
}

func (o *openPub) Answer(now int64, m *nats.Msg, i uint64, intended, sent int64) error {
	p := o.p
	switch {
	case bytes.HasPrefix(m.Data, pubAckStart):
		if p.cfg.Acked != nil {
			p.cfg.Acked.Add(1)
		}
		if p.acks != nil {
			p.acks.Set(i + 1)
		}
		o.rec.OpCorrected(now, len(o.body.Data), now-intended, now-sent)
	default: // no stream leader, or {"error":...}: refused, never stored
		return o.ride.errorAnswer(now, m, p.conn, "publish")
	}
	return nil
}

// replyReason is Reason for an error reply to a publish ({"error":{"code":...}}), read only
// when one came.
func replyReason(data []byte) string {
	var r struct {
		Error *jetstream.APIError `json:"error"`
	}
	if json.Unmarshal(data, &r) != nil || r.Error == nil {
		return "error"
	}
	return Reason(r.Error)
}

func (o *openPub) Expired(now int64, _ uint64, _, sent int64) { o.ride.expired(now, sent) }

// openPuts is a KV putter's open model: a put is a publish to $KV.<bucket>.<key>.
type openPuts struct {
	k      *kvClient
	rec    *record.Recorder
	id     uint32
	subj   []byte // $KV.<bucket>.<key>, rewritten per put
	prefix int
	ride   rideOut
}

// open runs k's puts in the open model when it applies (a fixed rate, a bound, no --sleep);
// ok false leaves the run to the one-at-a-time loop.
func (k *kvClient) open(ctx context.Context, env *harness.Env, sched *loop.Schedule) (ok bool, err error) {
	if !k.put || !sched.Paced() || k.cfg.MaxInflight <= 0 || k.cfg.Sleep > 0 {
		return false, nil
	}
	cfg := inflight.Config{Max: inflight.Share(k.cfg.MaxInflight, env.Count, env.Index), Timeout: k.cfg.AckTimeout, Op: "kv"}
	pre := "$KV." + k.cfg.Bucket + "."
	o := &openPuts{k: k, rec: env.Rec, id: k.cfg.IDs.For(env.Index), subj: append(make([]byte, 0, len(pre)+32), pre...), prefix: len(pre), ride: k.ride(env)}
	return true, inflight.Run(ctx, env, k.conn, sched, cfg, o)
}

func (o *openPuts) Send(i uint64, intended int64, reply string) error {
	k := o.k
	if len(k.buf) >= stamp.Size {
		stamp.Put(k.buf, o.id, i+1, intended)
	}
	o.subj = append(o.subj[:o.prefix], k.key(int64(i))...)
	// nats.go copies the subject into its buffer before returning: it may alias o.subj.
	return k.conn.PublishRequest(unsafe.String(unsafe.SliceData(o.subj), len(o.subj)), reply, k.buf)
}

func (o *openPuts) Answer(now int64, m *nats.Msg, _ uint64, intended, sent int64) error {
	k := o.k
	switch {
	case bytes.HasPrefix(m.Data, pubAckStart):
		o.rec.OpCorrected(now, len(k.buf), now-intended, now-sent)
		if k.cfg.Acked != nil {
			k.cfg.Acked.Add(1)
		}
	default: // no stream leader, or {"error":...}: refused, never stored
		return o.ride.errorAnswer(now, m, k.conn, "kv")
	}
	return nil
}

func (o *openPuts) Expired(now int64, _ uint64, _, sent int64) { o.ride.expired(now, sent) }
