package cli

import (
	"context"
	"time"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/internal/verify"
)

// checkVerifySize refuses --verify on messages too small to carry a stamp.
func checkVerifySize(ff *faultFlags, size int64) error {
	if ff.Verify && size < stamp.Size {
		return usagef("--verify needs --size of at least %d B: smaller messages carry no stamp", stamp.Size)
	}
	return nil
}

// jsVerify is what a JetStream --verify run needs to read its messages back.
type jsVerify struct {
	acks     *verify.Acks
	ref      *streamRef
	subjects []string
	fromSeq  uint64
	// deliveries is how many times the run's consumers should get each stored message: one per
	// ordered consumer, one for consumers sharing a durable; 0 without consumers.
	deliveries int64
}

// attachJSVerify reconciles the stream against the publishers' acknowledgements after the run.
func attachJSVerify(plan *bench.Plan, ff *faultFlags, jv *jsVerify) {
	if !ff.Verify {
		return
	}
	engine.Chain(plan, func(ctx context.Context, res *result.Result) {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		rv := engine.ReceiversVerify(res)
		v := verify.Reconcile(ctx, verify.Source{
			JS: jv.ref.JS, Stream: jv.ref.Name, Subjects: jv.subjects, FromSeq: jv.fromSeq,
			Metadata: map[string]string{js.MarkKey: js.MarkValue},
		}, jv.acks)
		v.Sent = rv.Sent
		v.Delivered, v.Lost, v.Duplicated, v.OutOfOrder = rv.Delivered, rv.Lost, rv.Duplicated, rv.OutOfOrder
		if jv.deliveries > 0 && v.Error == "" && len(v.Unreadable) == 0 {
			// The read-back knows what the stream holds: a message it holds that a consumer did
			// not get was not consumed (in time), not lost; what it does not hold is in
			// acked-but-missing or was never acknowledged.
			v.NotConsumed, v.Lost = max(0, v.Stored*jv.deliveries-v.Delivered), 0
		}
		v.Unavailable = rv.Unavailable
		res.Verify = &v
	})
}

// runSubjects are the subjects a publisher run writes: SUBJECT, or SUBJECT.> with --multisubject.
func runSubjects(subject string, multi bool) []string {
	if multi {
		return []string{subject + ".>"}
	}
	return []string{subject}
}
