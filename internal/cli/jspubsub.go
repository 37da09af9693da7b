package cli

import (
	"context"
	"strconv"

	"github.com/nats-io/nuid"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/internal/verify"
)

// jsPubsubFlags turn 'pubsub' into JetStream publishers and consumers of one stream.
type jsPubsubFlags struct {
	JS      bool
	SyncPub bool
	Kind    string
	Batch   int
	sf      streamFlags
}

func registerJSPubsub(f *pflag.FlagSet) *jsPubsubFlags {
	j := &jsPubsubFlags{}
	f.BoolVar(&j.JS, "js", false, "JetStream: publish to a stream and consume it (see --stream, --syncpub, --consumer-kind)")
	f.BoolVar(&j.SyncPub, "syncpub", false, "with --js: publish synchronously (default: async windows of --batch)")
	f.StringVar(&j.Kind, "consumer-kind", js.Ordered, "with --js: ordered (every subscriber gets every message), pull or push (the subscribers share a durable consumer)")
	f.IntVar(&j.Batch, "batch", js.DefaultAsyncWindow, "with --js: async publish window, and messages per pull")
	f.StringVar(&j.sf.Stream, "stream", "benchstream", "with --js: stream to use (created, marked, when missing)")
	f.StringVar(&j.sf.Storage, "storage", "file", "with --js: storage of a stream natsperf creates: file or memory")
	f.DurationVar(&j.sf.AckTimeout, "ack-timeout", js.DefaultAckTimeout, "with --js: how long a publish waits for its ack (an async window waits for its slowest)")
	f.IntVar(&j.sf.Replicas, "replicas", 1, "with --js: replicas of a stream natsperf creates (above 1 with no server given: an embedded cluster)")
	return j
}

// runJSPubsub runs pubs publishers and subs consumers of one stream in this process. The
// consumers start at the stream's next sequence, so they see exactly what the publishers send.
func (a *app) runJSPubsub(cmd *cobra.Command, subject string, bf benchFlags, subj subjectFlags, pubs, subs int, j *jsPubsubFlags, ff *faultFlags) error {
	kind := map[string]string{js.Ordered: js.Ordered, "pull": js.Consume, js.Consume: js.Consume, js.Push: js.Push}[j.Kind]
	if kind == "" {
		return usagef("--consumer-kind must be ordered, pull or push, got %q", j.Kind)
	}
	if j.Batch < 1 {
		return usagef("--batch must be at least 1")
	}
	sf := j.sf
	sf.MaxBytes, sf.DedupWindow = 0, 2*60e9 // unlimited: pubsub streams grow with --msgs
	if err := sf.validate(); err != nil {
		return err
	}
	s, err := a.openJSWith(cmd, sf.Replicas, ff.embeddedOptions())
	if err != nil {
		return err
	}
	defer s.close()
	mode := js.Async
	if j.SyncPub {
		mode = js.Sync
	}
	acked := js.NewTally(0)
	pcfg := js.PubConfig{
		Mode: mode, Stream: sf.Stream, Subject: subject, Size: int(bf.Size), Batch: j.Batch,
		MultiSubject: subj.MultiSubject, MultiSubjectMax: subj.MultiSubjectMax,
		Rate: bf.Rate, Duration: bf.Duration, Sleep: bf.Sleep, AckTimeout: sf.AckTimeout,
		IDs: stamp.NewIDs(), Acked: acked, RideOut: ff.any(), AckWaits: ff.publisherWaits(sf.AckTimeout),
	}
	if ff.Verify {
		pcfg.Verify = verify.NewAcks()
	}
	sf.Create = true
	if err := s.pubStream(cmd, sf, pcfg); err != nil {
		return err
	}
	ctx, cancel := setupCtx(cmd)
	defer cancel()
	st, _, err := js.EnsureStream(ctx, s.js, js.StreamSpec{Name: sf.Stream})
	if err != nil {
		return err
	}
	total := sentInAll(bf, pubs)
	ccfg := js.ConsumeConfig{
		Kind: kind, Stream: sf.Stream, Batch: j.Batch, IdleTimeout: bf.IdleTimeout, AckTimeout: sf.AckTimeout,
		RideOut: ff.any(),
		// The publishers start at the same barrier: a consumer's rate runs from there, not
		// from a first message that may come late, with its whole share, in one burst.
		RateFromStart: true,
		// A name of its own per run: a scenario's instances share a stream and each needs its own
		// consumer. It is deleted after the run (and marked, for 'natsperf clean').
		Consumer: js.ConsumerSpec{Name: "natsperf-pubsub-" + nuid.Next()[14:], Acks: "explicit", Deliver: "all", StartSeq: st.Info.State.LastSeq + 1},
	}
	// Only this run's subject: a stream shared with other publishers (a scenario's instances,
	// or 'default.>' holding every app) must not count their messages as this run's.
	ccfg.Consumer.Filter = subject
	if subj.MultiSubject {
		ccfg.Consumer.Filter = subject + ".>"
	}
	if kind == js.Ordered {
		ccfg.Consumer.Name = ""
	} else {
		if kind == js.Push {
			ccfg.Consumer.DeliverSubject = "natsperf.deliver." + nuid.Next()
			ccfg.Consumer.FlowControl, ccfg.Consumer.Heartbeat = true, 5e9
			if subs > 1 {
				ccfg.Consumer.DeliverGroup = ccfg.Consumer.Name
			}
		}
		if err := js.EnsureDurable(ctx, st.Stream, ccfg.Consumer, false); err != nil {
			return err
		}
		name, stream := ccfg.Consumer.Name, st.Stream
		s.after = append(s.after, func(ctx context.Context) { _ = stream.DeleteConsumer(ctx, name) })
	}
	cancel()
	pg := jsPubGroup(pcfg, pubs, senderShares(bf, pubs))
	sg := &bench.Group{Name: "sub", Kind: consumerKinds[kind], Verb: "expecting", Clients: subs, Shares: each(total, subs)}
	if kind != js.Ordered {
		sg.Shares, sg.Shared = split(total, subs), true
		ccfg.Group = js.NewTally(total)
	}
	sg.New = func(int) bench.Client { return js.NewConsumer(ccfg) }
	s.report = append(s.report, streamReport{name: sf.Stream, published: acked, size: bf.Size})
	kv := commonParams(bf)
	delete(kv, "clients")
	kv["pub"], kv["sub"], kv["subject"], kv["stream"] = strconv.Itoa(pubs), strconv.Itoa(subs), subject, sf.Stream
	kv["storage"], kv["replicas"], kv["consumer-kind"], kv["syncpub"] = sf.Storage, strconv.Itoa(sf.Replicas), j.Kind, strconv.FormatBool(j.SyncPub)
	kv["batch"] = units.Comma(int64(j.Batch))
	plan := &bench.Plan{
		Command: "pubsub", Title: "JetStream pub/sub benchmark", Params: params(kv),
		Settings: map[string]any{"pub": pcfg, "sub": ccfg, "pubs": pubs, "subs": subs, "stream": sf, "faults": ff},
		Groups:   []*bench.Group{pg, sg},
	}
	ref := &streamRef{NC: s.nc, JS: s.js, Name: sf.Stream}
	ff.attachFaults(plan, s.t, ref, s.logf)
	deliveries := int64(1)
	if kind == js.Ordered {
		deliveries = int64(subs)
	}
	attachJSVerify(plan, ff, &jsVerify{acks: pcfg.Verify, ref: ref, subjects: runSubjects(subject, subj.MultiSubject), fromSeq: st.Info.State.LastSeq + 1, deliveries: deliveries})
	return a.runJS(cmd, s, plan, bf)
}
