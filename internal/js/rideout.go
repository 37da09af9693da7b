package js

import (
	"context"
	"errors"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/internal/record"
)

// rideOut is how a sender of acknowledged operations (a sync publisher, a KV putter) counts
// the ones that failed, one way for the one-at-a-time loop and the open model: in a fault run
// (on) a "no responders" answer (the stream had no leader) is a failed operation, not the end
// of the client, and every failure is noted for the failover story (waits) by reason, apart
// from the timeouts. Written only on a failure, never per acknowledged operation.
type rideOut struct {
	on     bool // a fault run: ride out a stream without a leader
	rec    *record.Recorder
	waits  *ackWait // nil: not a fault run
	start  int64    // the run's start (clock), for waits
	failed *Tally   // operations known never stored (nil: not counted)
}

// noLeader reports whether err says no server took the operation (no stream leader).
func noLeader(err error) bool {
	return errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrNoStreamResponse)
}

// fatal reports whether err ends the client; riding out, a stream without a leader does not.
func (r *rideOut) fatal(err error) bool {
	if r.on && noLeader(err) {
		return false
	}
	return fatal(err)
}

// refused counts an operation that failed fast at now for reason: never stored.
func (r *rideOut) refused(now int64, reason string) {
	r.rec.Events.Errors.Add(1)
	r.rec.Failed(now)
	if r.failed != nil {
		r.failed.Add(1)
	}
	r.waits.refuse(time.Duration(now-r.start), reason, 1)
}

// expired counts an operation sent at sent and given up unanswered at now (its fate unknown).
// It failed as of its send: the operations sent after it and answered show the client
// recovered, though this one is given up later (at the run's end, in its drain).
func (r *rideOut) expired(now, sent int64) {
	r.rec.Events.Timeouts.Add(1)
	r.rec.Failed(sent)
	r.waits.add(time.Duration(sent-r.start), time.Duration(now-r.start))
}

// failedErr counts an operation of the one-at-a-time loop, sent at sent, that returned err
// at now (not fatal): a timeout, or a refusal by its reason.
func (r *rideOut) failedErr(now, sent int64, err error) {
	if isTimeout(err) {
		r.rec.Events.Timeouts.Add(1)
		r.rec.Failed(now)
		r.waits.add(time.Duration(sent-r.start), time.Duration(now-r.start))
		return
	}
	r.refused(now, Reason(err))
}

// pauseUnpaced keeps an unpaced loop riding out a stream without a leader from spinning on
// instant refusals.
func (r *rideOut) pauseUnpaced(ctx context.Context, sched *loop.Schedule) {
	if r.on && !sched.Paced() {
		_ = sched.Pause(ctx, rideOutPause)
	}
}

// errorAnswer handles an answer of the open model that is not an ack: a "no responders"
// status (no stream leader; riding out, a refusal, else the end of the client, worded by conn
// for op), or an error reply ({"error":...}), refused by its reason.
func (r *rideOut) errorAnswer(now int64, m *nats.Msg, conn *harness.Conn, op string) error {
	if len(m.Data) == 0 && m.Header.Get("Status") == "503" {
		if !r.on {
			return conn.Explain(op, jetstream.ErrNoStreamResponse)
		}
		r.refused(now, ReasonNoResponders)
		return nil
	}
	r.refused(now, replyReason(m.Data))
	return nil
}
