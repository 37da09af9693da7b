package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/internal/verify"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// The JetStream publisher kinds.
func init() {
	for _, m := range []string{js.Sync, js.Async, js.Batch, js.Fast} {
		Register("js pub "+m, buildJSPub)
	}
}

// DefaultAtomicBatch is js pub batch's messages per atomic batch.
const DefaultAtomicBatch = 100

var pubKinds = map[string]string{
	js.Sync:  "JetStream synchronous publisher",
	js.Async: "JetStream asynchronous publisher",
	js.Batch: "JetStream batched publisher",
	js.Fast:  "JetStream fast batch publisher",
}

// JSPubGroup is JetStream publishers with their shares.
func JSPubGroup(cfg js.PubConfig, clients int, shares []int64) *harness.Group {
	return &harness.Group{
		Name: "pub", Kind: pubKinds[cfg.Mode], Verb: "publishing", Clients: clients,
		Shares: shares, Producer: true,
		New: func(int) harness.Client { return js.NewPublisher(cfg) },
	}
}

func jsPublishOf(c spec.Config) (mode string, p *spec.JSPublish, batch int) {
	switch c := c.(type) {
	case *spec.JSPubSync:
		return js.Sync, &c.JSPublish, 1
	case *spec.JSPubAsync:
		return js.Async, &c.JSPublish, intOr(c.Batch, js.DefaultAsyncWindow)
	case *spec.JSPubBatch:
		return js.Batch, &c.JSPublish, intOr(c.Batch, DefaultAtomicBatch)
	case *spec.JSPubFast:
		return js.Fast, &c.JSPublish, intOr(c.Batch, js.DefaultFastFlow)
	}
	return "", nil, 0
}

func buildJSPub(ctx context.Context, b *Build) (*Built, error) {
	mode, c, batch := jsPublishOf(b.Workload.Config)
	if c == nil {
		return nil, fmt.Errorf("workload kind %q: config is %T", b.Workload.Kind(), b.Workload.Config)
	}
	if _, ok := b.Workload.Config.(*spec.JSPubSync); ok {
		batch = js.DefaultAsyncWindow // sync takes no batch; the echo shows the flag's default
	}
	n, size, p := b.Clients(), sizeOr(c.Size, DefaultSize), b.Workload.Pacing
	st := b.stream(c.Stream)
	if mode == js.Batch && st.PersistAsync {
		return nil, InputError{errors.New("persist_async cannot be used with atomic batches (the server forbids it)")}
	}
	size, err := payloadSize(c.Payload, size)
	if err != nil {
		return nil, err
	}
	if b.Spec.Verify && size < stamp.Size && c.Payload.Stamp != "header" && c.Payload.File == "" {
		return nil, InputError{fmt.Errorf("verify needs a size of at least %d B: smaller messages carry no stamp", stamp.Size)}
	}
	cfg := b.jsPubConfig(js.PubConfig{
		Mode: mode, Stream: st.Name, Subject: c.Subject, Size: int(size), Batch: batch, Dedup: c.Dedup,
		MultiSubject: c.MultiSubject, MultiSubjectMax: intOr(c.MultiSubjectMax, defaultMultiMax),
		Randomize: c.MultiSubjectRandomize, AckTimeout: b.ackTimeout(c.AckTimeout), Fill: b.Fill(), Payload: payloadConfig(c.Payload),
	})
	if mode == js.Sync {
		cfg.MaxInflight = maxInflight(b)
	}
	if f, ok := b.Workload.Config.(*spec.JSPubFast); ok {
		cfg.Outstanding = intOr(f.MaxOutstandingAcks, js.DefaultFastOutstanding)
	}
	acked := cfg.Acked
	s, err := b.openJS(ctx)
	if err != nil {
		return nil, err
	}
	fromSeq, err := s.pubStream(ctx, st, cfg, b.Target.own())
	if err != nil {
		s.close()
		return nil, err
	}
	s.report = append(s.report, streamReport{name: st.Name, published: acked, size: size})
	ss := streamSpec(st, nil, false)
	kv := b.CommonParams(n, size)
	kv["stream"], kv["subject"], kv["batch"] = st.Name, c.Subject, units.Comma(int64(batch))
	kv["purge"], kv["deduplication"] = strconv.FormatBool(st.Purge), strconv.FormatBool(c.Dedup)
	if mode == js.Fast {
		kv["max-outstanding-acks"] = strconv.Itoa(cfg.Outstanding)
	}
	kv["multi-subject"], kv["multi-subject-max"] = strconv.FormatBool(c.MultiSubject), units.Comma(int64(cfg.MultiSubjectMax))
	kv["storage"], kv["replicas"] = strOr(st.Storage, "file"), strconv.Itoa(ss.Replicas)
	kv["max-bytes"], kv["dedup-window"] = units.Comma(ss.MaxBytes), ss.DedupWindow.String()
	if st.Compression != "" {
		kv["compression"] = st.Compression
	}
	ref := &StreamRef{NC: s.nc, JS: s.js, Name: st.Name, Replicas: replicasOf(b.Target, st.Name)}
	built := s.built(&Built{
		Title: pubKinds[mode] + " benchmark", Params: kv, Size: size, Corrected: p.Rate > 0,
		Settings: map[string]any{"stream": echoStream(st, spec.Duration(b.ackTimeout(c.AckTimeout))), "publisher": cfg, "faults": b.faultEcho()},
		Groups:   []*harness.Group{b.Faults.Track(JSPubGroup(cfg, n, b.SenderShares(n)), cfg.AckWaits, cfg.AckTimeout)},
		Stream:   ref,
	})
	if b.Spec.Verify {
		built.Verify = jsVerify(cfg.Verify, ref, runSubjects(c.Subject, c.MultiSubject), fromSeq, 0)
	}
	return built, nil
}

// jsPubConfig completes a JetStream publisher group's config: the workload's pacing, a tally
// of its acks, riding out and the run's shared ack waits when it injects faults, the acks kept
// for --verify.
func (b *Build) jsPubConfig(cfg js.PubConfig) js.PubConfig {
	p := b.Workload.Pacing
	cfg.Rate, cfg.Shape, cfg.Duration, cfg.Sleep = p.Rate, shapeOf(p), p.Duration.D(), p.Sleep.D()
	cfg.IDs, cfg.Acked, cfg.RideOut = b.NewIDs(), js.NewTally(0), len(b.Faults.Plan) > 0
	if cfg.RideOut {
		cfg.AckWaits = js.NewAckWaits() // the group's own (Faults.Track): client ids are per group
	}
	if b.Spec.Verify {
		cfg.Verify = verify.NewAcks()
	}
	return cfg
}

// pubStream makes the publishers' stream ready (created when missing and allowed, checked to
// take the subject, purged when asked and allowed) and returns the sequence the run's first
// message will get.
func (s *jsSession) pubStream(ctx context.Context, sp spec.Stream, cfg js.PubConfig, embedded bool) (uint64, error) {
	create := sp.Create || embedded
	ss := streamSpec(sp, []string{cfg.Subject, cfg.Subject + ".>"}, create)
	ss.Atomic, ss.Batched = cfg.Mode == js.Batch, cfg.Mode == js.Fast
	return s.pubStreamSpec(ctx, sp, ss, cfg)
}

// pubStreamSpec is pubStream for the stream ss asks for.
func (s *jsSession) pubStreamSpec(ctx context.Context, sp spec.Stream, ss js.StreamSpec, cfg js.PubConfig) (uint64, error) {
	ctx, cancel := setupCtx(ctx)
	defer cancel()
	st, diffs, err := js.EnsureStream(ctx, s.js, ss)
	if errors.Is(err, js.ErrStreamMissing) {
		return 0, fmt.Errorf("stream %s does not exist: pass --create to create it", sp.Name)
	}
	if err != nil {
		return 0, err
	}
	s.announce(st, diffs)
	s.checkCompression(st.Info.Config, int64(cfg.Size))
	probe := cfg.Subject
	if cfg.MultiSubject {
		probe += ".0"
	}
	if !st.Takes(probe) {
		return 0, fmt.Errorf("stream %s does not store subject %s (its subjects: %s)", sp.Name, probe, strings.Join(st.Info.Config.Subjects, ", "))
	}
	warning, err := st.RefusePublish(sp.Force)
	if err != nil {
		return 0, err
	}
	if warning != "" {
		s.warn("%s", warning)
	}
	if cfg.Mode == js.Fast && !st.Info.Config.AllowBatchPublish {
		return 0, fmt.Errorf("stream %s does not allow fast batch publish (allow_batched is off): use a stream natsperf creates (--stream NEW --create) or enable it on this one", sp.Name)
	}
	if cfg.Mode == js.Batch && !st.Info.Config.AllowAtomicPublish {
		return 0, fmt.Errorf("stream %s does not allow atomic batch publish (allow_atomic is off): use a stream natsperf creates (--stream NEW --create) or enable it on this one", sp.Name)
	}
	if sp.Purge {
		if err := st.RefusePurge(sp.Force); err != nil {
			return 0, err
		}
		s.logf("Purging the stream")
		if err := st.Purge(ctx, sp.Force); err != nil {
			return 0, err
		}
	}
	str, err := s.js.Stream(ctx, sp.Name)
	if err != nil {
		return 0, fmt.Errorf("stream %s: %w", sp.Name, err)
	}
	return str.CachedInfo().State.LastSeq + 1, nil
}

// runSubjects are the subjects a publisher run writes: SUBJECT, or SUBJECT.> with multisubject.
func runSubjects(subject string, multi bool) []string {
	if multi {
		return []string{subject + ".>"}
	}
	return []string{subject}
}

// jsVerify reconciles the stream against the publishers' acknowledgements after the run.
// deliveries is how many times the run's consumers should get each stored message: one per
// ordered consumer, one for consumers sharing a durable; 0 without consumers.
func jsVerify(acks *verify.Acks, ref *StreamRef, subjects []string, fromSeq uint64, deliveries int64) func(context.Context, *result.Result) {
	return func(ctx context.Context, res *result.Result) {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		defer cancel()
		rv := ReceiversVerify(res)
		v := verify.Reconcile(ctx, verify.Source{
			JS: ref.JS, Stream: ref.Name, Subjects: subjects, FromSeq: fromSeq,
			Metadata: map[string]string{js.MarkKey: js.MarkValue},
		}, acks)
		if v.Sent == 0 { // publishers that do not count their attempts
			v.Sent = rv.Sent
		}
		v.NotRecovered = rv.NotRecovered
		v.Delivered, v.Lost, v.Duplicated, v.OutOfOrder = rv.Delivered, rv.Lost, rv.Duplicated, rv.OutOfOrder
		if deliveries > 0 && v.Error == "" && len(v.Unreadable) == 0 {
			// The read-back knows what the stream holds: a message it holds that a consumer did
			// not get was not consumed (in time), not lost; what it does not hold is in
			// acked-but-missing or was never acknowledged.
			v.NotConsumed, v.Lost = max(0, v.Stored*deliveries-v.Delivered), 0
			settleReceivers(res, &v)
		}
		v.Unavailable = rv.Unavailable
		if ref.Replicas != nil {
			v.Replicas, v.Diverged = settledReplicas(ctx, ref.Replicas)
		}
		res.Verify = &v
	}
}

// settleReceivers gives the receivers the read-back's verdict (a complete one: it knows what
// the stream holds): the sequence gaps they saw that are publishes which failed and were never
// stored (v.Failed) are not lost but failed (Correctness.Failed), and the rest are messages the
// stream holds that they did not consume (NotConsumed) or acknowledged ones it lost, which
// verify's acked-but-missing counts; and receivers that ended by the idle timeout, when the
// stream holds nothing they did not consume, only waited for such publishes: the run completed.
func settleReceivers(res *result.Result, v *result.Verify) {
	for gi := range res.Groups {
		g := &res.Groups[gi]
		if isPub(g.Name) {
			continue
		}
		for ci := range g.Clients {
			settleGaps(g.Clients[ci].Correctness, v.Failed)
		}
		if g.Shared {
			settleGaps(g.Aggregate.Correctness, v.Failed) // gaps judged on the union
		} else {
			settleGaps(g.Aggregate.Correctness, v.Failed*int64(max(1, len(g.Clients))))
		}
	}
	if res.Stop.Reason == result.StopIdle && v.Failed > 0 && v.NotConsumed == 0 && v.AckedButMissing == 0 {
		res.Stop = result.Stop{Reason: result.StopCompleted}
		res.Warnings = append(res.Warnings, fmt.Sprintf("the receivers waited the idle timeout for publishes that failed and were never stored (%s; the read-back found nothing they did not consume)", units.Comma(v.Failed)))
	}
}

// settleGaps moves up to failed of c's gaps from Lost to Failed, the rest to NotConsumed.
func settleGaps(c *result.Correctness, failed int64) {
	if c == nil {
		return
	}
	moved := min(c.Lost, failed)
	c.Failed += moved
	c.NotConsumed += c.Lost - moved
	c.Lost = 0
}
