package engine

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/nats-io/nuid"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/spec"
)

// buildJSPubSub is pubsub with js: publishers and consumers of one stream in this process.
// The consumers start at the stream's next sequence, so they see exactly what the publishers
// send.
func buildJSPubSub(ctx context.Context, b *Build, c *spec.PubSub) (*Built, error) {
	j := c.JS
	kind := map[string]string{"": js.Ordered, js.Ordered: js.Ordered, "pull": js.Consume, js.Consume: js.Consume, js.Push: js.Push}[j.ConsumerKind]
	if kind == "" {
		return nil, InputError{fmt.Errorf("consumer_kind must be ordered, pull or push, got %q", j.ConsumerKind)}
	}
	batch := intOr(j.Batch, js.DefaultAsyncWindow)
	if batch < 1 {
		return nil, InputError{errors.New("batch must be at least 1")}
	}
	size, p := sizeOr(c.Size, DefaultSize), b.Workload.Pacing
	size, err := payloadSize(c.Payload, size)
	if err != nil {
		return nil, err
	}
	pubs, subs := intOr(c.Pubs, 1), intOr(c.Subs, 1)
	st := b.stream(j.Stream)
	st.Create = true
	ackTimeout := b.ackTimeout(j.AckTimeout)
	mode := js.Async
	if j.SyncPub {
		mode = js.Sync
	}
	pcfg := b.jsPubConfig(js.PubConfig{
		Mode: mode, Stream: st.Name, Subject: c.Subject, Size: int(size), Batch: batch,
		MultiSubject: c.MultiSubject, MultiSubjectMax: intOr(c.MultiSubjectMax, defaultMultiMax),
		Randomize: c.MultiSubjectRandomize, AckTimeout: ackTimeout, Fill: b.Fill(), Payload: payloadConfig(c.Payload),
	})
	pcfg.Failed = js.NewTally(0)
	acked, faults := pcfg.Acked, pcfg.RideOut
	// pubsub streams grow with the messages: unlimited unless the setup bounds them; only the
	// settings given are compared with an existing stream.
	ss := streamSpec(st, []string{c.Subject, c.Subject + ".>"}, true)
	if st.MaxBytes == nil {
		ss.MaxBytes = 0
	}
	s, err := b.openJS(ctx)
	if err != nil {
		return nil, err
	}
	fail := func(err error) (*Built, error) { s.close(); return nil, err }
	fromSeq, err := s.pubStreamSpec(ctx, st, ss, pcfg)
	if err != nil {
		return fail(err)
	}
	sctx, cancel := setupCtx(ctx)
	defer cancel()
	stream, err := s.js.Stream(sctx, st.Name)
	if err != nil {
		return fail(fmt.Errorf("stream %s: %w", st.Name, err))
	}
	pshares := b.SenderShares(pubs)
	total := Sum(pshares)
	ccfg := js.ConsumeConfig{
		Kind: kind, Stream: st.Name, Batch: batch, IdleTimeout: durOr(c.IdleTimeout, DefaultIdleTimeout), AckTimeout: ackTimeout,
		RideOut: faults, PubFailed: pcfg.Failed,
		// The publishers start at the same barrier: a consumer's rate runs from there, not
		// from a first message that may come late, with its whole share, in one burst.
		RateFromStart: true,
		// A name of its own per run: a scenario's instances share a stream and each needs its own
		// consumer. It is deleted after the run (and marked, for 'natsperf clean').
		Consumer: js.ConsumerSpec{Name: "natsperf-pubsub-" + nuid.Next()[14:], Acks: "explicit", Deliver: "all", StartSeq: fromSeq},
	}
	// Only this run's subject: a stream shared with other publishers (a scenario's instances,
	// or 'default.>' holding every app) must not count their messages as this run's.
	ccfg.Consumer.Filter = runSubjects(c.Subject, c.MultiSubject)[0]
	if kind == js.Ordered {
		ccfg.Consumer.Name = ""
	} else {
		if kind == js.Push {
			ccfg.Consumer.DeliverSubject = "natsperf.deliver." + nuid.Next()
			ccfg.Consumer.FlowControl, ccfg.Consumer.Heartbeat = true, DefaultHeartbeat
			if subs > 1 {
				ccfg.Consumer.DeliverGroup = ccfg.Consumer.Name
			}
		}
		if err := js.EnsureDurable(sctx, stream, ccfg.Consumer, false); err != nil {
			return fail(err)
		}
		name := ccfg.Consumer.Name
		s.after = append(s.after, func(ctx context.Context) { _ = stream.DeleteConsumer(ctx, name) })
	}
	cancel()
	sg := &harness.Group{Name: "sub", Kind: consumerKinds[kind], Verb: "expecting", Clients: subs, Shares: Each(total, subs)}
	if kind != js.Ordered {
		sg.Shares, sg.Shared = Split(total, subs), true
		ccfg.Group = js.NewTally(total)
	}
	sg.New = func(int) harness.Client { return js.NewConsumer(ccfg) }
	s.report = append(s.report, streamReport{name: st.Name, published: acked, size: size})
	kv := b.CommonParams(1, size)
	delete(kv, "clients")
	kv["pub"], kv["sub"], kv["subject"], kv["stream"] = strconv.Itoa(pubs), strconv.Itoa(subs), c.Subject, st.Name
	kv["storage"], kv["replicas"], kv["consumer-kind"], kv["syncpub"] = strOr(st.Storage, "file"), strconv.Itoa(ss.Replicas), strOr(j.ConsumerKind, js.Ordered), strconv.FormatBool(j.SyncPub)
	kv["batch"] = units.Comma(int64(batch))
	echo := echoStream(st, spec.Duration(b.ackTimeout(j.AckTimeout)))
	echo.MaxBytes = ss.MaxBytes
	ref := &StreamRef{NC: s.nc, JS: s.js, Name: st.Name, Replicas: replicasOf(b.Target, st.Name)}
	built := s.built(&Built{
		Title: "JetStream pub/sub benchmark", Params: kv, Size: size, Receivers: true, Corrected: p.Rate > 0,
		Settings: map[string]any{"pub": pcfg, "sub": ccfg, "pubs": pubs, "subs": subs, "stream": echo, "faults": b.faultEcho()},
		Groups:   []*harness.Group{b.Faults.Track(JSPubGroup(pcfg, pubs, pshares), pcfg.AckWaits, pcfg.AckTimeout), sg},
		Stream:   ref,
	})
	if b.Spec.Verify {
		deliveries := int64(1)
		if kind == js.Ordered {
			deliveries = int64(subs)
		}
		built.Verify = jsVerify(pcfg.Verify, ref, runSubjects(c.Subject, c.MultiSubject), fromSeq, deliveries)
	}
	return built, nil
}
