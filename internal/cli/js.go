package cli

import (
	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/spec"
)

func (a *app) jsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "js",
		Short: "JetStream benchmarks: publish, consume (ordered, consume, fetch, push) and direct get",
		Long: `JetStream benchmarks at nats bench parity. natsperf marks every stream and consumer it
creates (metadata created-by=natsperf) and never purges or deletes anything it did not create
unless --force; 'natsperf clean' removes what it created. A read benchmark whose stream is
missing or holds fewer messages than asked creates and fills it first (setup, not measured).`,
		Example: `  natsperf js pub async jsfoo --create --storage memory
  natsperf js pub batch jsfoo --batch 100 --purge --msgs 10000
  natsperf js ordered --clients 4
  natsperf js consume --clients 4 --acks explicit
  natsperf js fetch --clients 2 --acks none
  natsperf js push --clients 2 --deliver-group workers
  natsperf js get batch --clients 2`,
	}
	cmd.AddCommand(a.jsPubCmd(), a.jsConsumerCmd(js.Ordered), a.jsConsumerCmd(js.Consume),
		a.jsConsumerCmd(js.Fetch), a.jsConsumerCmd(js.Push), a.jsGetCmd())
	return cmd
}

func (a *app) jsPubCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pub",
		Short: "Publish to a stream: sync (one at a time), async (windows of acks), atomic (atomic batches) or fast (fast batch)",
		Example: `  natsperf js pub sync jsfoo --msgs 1000
  natsperf js pub async jsfoo --create --storage memory --msgs 10000
  natsperf js pub async jsfoo --compression s2 --payload-fill zeros --size 1kb --msgs 20000   # the Result gives the bytes on disk
  natsperf js pub async jsfoo --js-encryption aes --msgs 10000                               # the embedded server's store encrypted at rest
  natsperf js pub async jsfoo --sync-interval always --msgs 5000                             # the embedded server fsyncs every write (docs/durability.md)
  natsperf js pub fast jsfast --create --storage memory --msgs 10000 --batch 100
  natsperf js pub sync jsr3 --create --replicas 3 --link-delay 5ms --msgs 200                 # 5 ms one way on every route: P50 >= 10 ms
  natsperf js pub sync jsz --create --replicas 3 --zones 3 --zone-delay 1ms --msgs 200         # zones 1 ms apart
  natsperf js pub async jscut --create --replicas 3 --rate 500 --duration 6s --verify --fault 2s:partition --fault 4s:heal
  natsperf js pub async jsfoo --replicas 3 --server-version v2.15.3 --cluster 3 --msgs 10000 # three nats-server 2.15.3 processes (built once with go install)`,
	}
	for _, mode := range []string{js.Sync, js.Async, js.Batch, js.Fast} {
		cmd.AddCommand(a.jsPubModeCmd(mode))
	}
	return cmd
}

func (a *app) jsPubModeCmd(mode string) *cobra.Command {
	var bf benchFlags
	var sf streamFlags
	var subj subjectFlags
	var pf payloadFlags
	var batch int
	var dedup bool
	var ff faultFlags
	var maxInflight int
	short := map[string]string{
		js.Sync:  "Publish one message at a time, waiting for each ack (latency)",
		js.Async: "Publish windows of --batch messages asynchronously, then wait for their acks (throughput)",
		js.Batch: "Publish atomic batches of --batch messages (nats-server 2.12+, stream allowing atomic publish; also 'batch')",
		js.Fast:  "Publish each client's share as one fast batch, acked every --batch messages (nats-server 2.14+, orbit.go's FastPublisher)",
	}[mode]
	use, aliases := mode, []string(nil)
	if mode == js.Batch {
		use, aliases = "atomic", []string{js.Batch} // nats bench 0.5's name; natsperf's first one stays
	}
	var outstanding int
	cmd := &cobra.Command{
		Use:     use + " SUBJECT",
		Aliases: aliases,
		Short:   short,
		Long: short + `.` + map[string]string{js.Batch: `
Differs from nats bench: --persistasync is refused (the server forbids async persistence on a
stream that allows atomic batches).`}[mode] + `
--msgs is the total, split across --clients. Latency is each message's own publish-to-ack time
(for atomic: to the commit's ack; for fast: to the flow ack that covers it). A missing stream is created with --create (always on the
embedded server) with subjects SUBJECT and SUBJECT.>; an existing one is used as it is.`,
		Example: "  natsperf js pub " + use + " jsfoo --create --storage memory --size 16 --msgs 10000",
		Args:    exactArgs(1, "one SUBJECT"),
		RunE: a.specRunE(func(cmd *cobra.Command, args []string) (*specRun, error) {
			f := cmd.Flags()
			if err := bf.validate(f); err != nil {
				return nil, err
			}
			if err := sf.validate(); err != nil {
				return nil, err
			}
			if err := validateSubjects(subj); err != nil {
				return nil, err
			}
			if err := pf.validate(f); err != nil {
				return nil, err
			}
			if err := checkPublishSubject("SUBJECT", args[0]); err != nil {
				return nil, err
			}
			if !f.Changed("batch") && mode == js.Batch {
				batch = 100
			}
			if mode == js.Fast && (batch < 1 || batch > 65535 || outstanding < 1 || outstanding > 65535) {
				return nil, usagef("--batch (the flow window) and --max-outstanding-acks must be 1 to 65535, got %d and %d", batch, outstanding)
			}
			if batch < 1 || (mode == js.Batch && batch > js.MaxAtomicBatch) {
				return nil, usagef("--batch must be 1 to %d for atomic batches (the server's limit), got %d", js.MaxAtomicBatch, batch)
			}
			if mode == js.Batch && sf.PersistAsync {
				return nil, usagef("--persistasync cannot be used with atomic batches (the server forbids it)")
			}
			if err := checkVerifySize(&ff, bf.Size); err != nil {
				return nil, err
			}
			if err := ff.parse(a, true, ff.faultNodes(sf.Replicas)); err != nil {
				return nil, err
			}
			pub := spec.JSPublish{
				Stream: sf.Stream, Subject: args[0], Size: size(bf, f), MultiSubject: subj.MultiSubject,
				MultiSubjectMax: multiMax(subj, f), MultiSubjectRandomize: subj.Randomize, Dedup: dedup, AckTimeout: ackTimeout(sf, f), Payload: pf.spec(),
			}
			var cfg spec.Config = &spec.JSPubSync{JSPublish: pub}
			if !f.Changed("batch") {
				batch = 0 // the kind's default
			}
			switch mode {
			case js.Async:
				cfg = &spec.JSPubAsync{JSPublish: pub, Batch: batch}
			case js.Batch:
				cfg = &spec.JSPubBatch{JSPublish: pub, Batch: batch}
			case js.Fast:
				fc := &spec.JSPubFast{JSPublish: pub, Batch: batch}
				if f.Changed("max-outstanding-acks") {
					fc.MaxOutstandingAcks = outstanding
				}
				cfg = fc
			}
			spc := withStream(withMaxInflight(a.newSpec(bf, f, bf.Clients, cfg), f, maxInflight), &sf, f)
			return &specRun{spec: withFaults(spc, &ff, f), hist: bf.Hist}, nil
		}),
	}
	a.specCommand(cmd)
	f := cmd.Flags()
	bf.register(f, true, false)
	sf.register(f)
	subj.register(f, true)
	pf.register(f)
	def := js.DefaultAsyncWindow
	f.IntVar(&batch, "batch", def, "async: messages published before waiting for their acks (also --async-window); batch: messages per atomic batch, default 100, at most 1000 (also --batch-size)")
	switch mode {
	case js.Async:
		aliasFlag(f, "async-window", "batch")
	case js.Batch:
		aliasFlag(f, "batch-size", "batch")
	case js.Fast:
		f.Lookup("batch").Usage = "the flow window: the server acks every this many messages, at most 65535 (also --flow)"
		aliasFlag(f, "flow", "batch")
		f.IntVar(&outstanding, "max-outstanding-acks", js.DefaultFastOutstanding, "acks that may be missing before the publisher waits")
	}
	registerHist(f, &bf.Hist)
	f.BoolVar(&dedup, "dedup", false, "set a unique Nats-Msg-Id on every message (server-side deduplication)")
	ff.register(f)
	if mode == js.Sync {
		registerMaxInflight(f, &maxInflight)
	}
	return cmd
}

func (a *app) jsConsumerCmd(kind string) *cobra.Command {
	var bf benchFlags
	var sf streamFlags
	var cf consumerFlags
	fanout := kind == js.Ordered
	short := map[string]string{
		js.Ordered: "Replay the stream with an ordered ephemeral consumer per client (each client gets every message)",
		js.Consume: "Consume with a durable pull consumer shared by the clients, through the Consume callback",
		js.Fetch:   "Consume with a durable pull consumer shared by the clients, in Fetch batches",
		js.Push:    "Consume with a durable push consumer (deliver subject, flow control, heartbeats)",
	}[kind]
	msgsHelp := "--msgs is the total the clients share."
	if fanout {
		msgsHelp = "--msgs is per client: every client expects all of them, as nats bench does."
	}
	cmd := &cobra.Command{
		Use:   kind,
		Short: short,
		Long: short + `.
` + msgsHelp + ` A stream that is missing or holds fewer messages is created and filled first
(setup, not measured); with --purge or --deliver new nothing is filled and the consumers wait
for publishers (another 'natsperf js pub'). Latency is end to end, from the stamps, for messages
published after the consumers started; replayed messages count for throughput only. A client
that gets nothing for --idle-timeout ends with partial results (from the start when the
messages were already there).`,
		Example: "  natsperf js " + kind + " --clients 2 --msgs 10000",
		Args:    exactArgs(0, "no arguments"),
		RunE: a.specRunE(func(cmd *cobra.Command, _ []string) (*specRun, error) {
			f := cmd.Flags()
			if err := bf.validate(f); err != nil {
				return nil, err
			}
			if err := sf.validate(); err != nil {
				return nil, err
			}
			if err := cf.validate(); err != nil {
				return nil, err
			}
			if bf.Msgs == 0 {
				return nil, usagef("--msgs must be at least 1")
			}
			spc := a.newSpec(bf, f, bf.Clients, cf.spec(kind, bf, sf, f))
			return &specRun{spec: withStream(spc, &sf, f), hist: bf.Hist}, nil
		}),
	}
	a.specCommand(cmd)
	f := cmd.Flags()
	bf.register(f, false, true)
	sf.register(f)
	cf.register(f, !fanout, kind == js.Push)
	registerHist(f, &bf.Hist)
	return cmd
}

func (a *app) jsGetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "get",
		Short: "Direct gets by sequence, one at a time (sync) or in batches (batch), without a consumer",
		Example: `  natsperf js get sync --msgs 1000
  natsperf js get batch --clients 2 --msgs 10000`,
	}
	for _, batch := range []bool{false, true} {
		cmd.AddCommand(a.jsGetModeCmd(batch))
	}
	return cmd
}

func (a *app) jsGetModeCmd(batched bool) *cobra.Command {
	var bf benchFlags
	var sf streamFlags
	var filter string
	var batch int
	mode := "sync"
	if batched {
		mode = "batch"
	}
	cmd := &cobra.Command{
		Use:   mode,
		Short: "Read the stream with " + map[bool]string{false: "one direct get per message", true: "batched direct gets of --batch messages (nats-server 2.11+)"}[batched],
		Long: `Read the stream by sequence with direct gets (the stream must allow direct access; streams
natsperf creates do). --msgs is per client: every client reads all of them from the stream's
first message, as nats bench does. A missing or short stream natsperf created is filled first.
Latency is each get's round trip (batch: from the request to each message).`,
		Example: "  natsperf js get " + mode + " --clients 2 --msgs 10000",
		Args:    exactArgs(0, "no arguments"),
		RunE: a.specRunE(func(cmd *cobra.Command, _ []string) (*specRun, error) {
			f := cmd.Flags()
			if err := bf.validate(f); err != nil {
				return nil, err
			}
			if err := sf.validate(); err != nil {
				return nil, err
			}
			if batch < 1 {
				return nil, usagef("--batch must be at least 1")
			}
			if filter != "" {
				if err := checkSubject("--filter", filter); err != nil {
					return nil, err
				}
			}
			if bf.Msgs == 0 {
				return nil, usagef("--msgs must be at least 1")
			}
			get := spec.JSGetSync{Stream: sf.Stream, Size: size(bf, f), Filter: filter, AckTimeout: ackTimeout(sf, f)}
			var cfg spec.Config = &get
			if batched {
				b := &spec.JSGetBatch{JSGetSync: get}
				if f.Changed("batch") {
					b.Batch = batch
				}
				cfg = b
			}
			spc := a.newSpec(bf, f, bf.Clients, cfg)
			return &specRun{spec: withStream(spc, &sf, f), hist: bf.Hist}, nil
		}),
	}
	a.specCommand(cmd)
	f := cmd.Flags()
	bf.register(f, false, false)
	sf.register(f)
	f.StringVar(&filter, "filter", "", "get only messages on this subject (the next one at or after each sequence)")
	f.IntVar(&batch, "batch", 500, "messages per batched direct get (also --get-batch)")
	aliasFlag(f, "get-batch", "batch")
	registerHist(f, &bf.Hist)
	if !batched {
		_ = f.MarkHidden("batch")
	}
	return cmd
}
