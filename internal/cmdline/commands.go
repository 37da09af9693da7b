package cmdline

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/spec"
)

// The benchmark commands, each with its flags registered in one place: the function that
// registers them returns the command's Spec builder, which reads the values they were bound to.
var commands = []def{
	{"pub", 1, "one SUBJECT", pubFlags},
	{"sub", 1, "one SUBJECT", subFlags},
	{"pubsub", 1, "one SUBJECT", pubsubFlags},
	{"service serve", 1, "one SUBJECT", serveFlags},
	{"service request", 1, "one SUBJECT", requestFlags},
	{"js pub sync", 1, "one SUBJECT", jsPubFlags(js.Sync)},
	{"js pub async", 1, "one SUBJECT", jsPubFlags(js.Async)},
	{"js pub atomic", 1, "one SUBJECT", jsPubFlags(js.Batch)},
	{"js pub fast", 1, "one SUBJECT", jsPubFlags(js.Fast)},
	{"js ordered", 0, "no arguments", jsConsumerFlags(js.Ordered)},
	{"js consume", 0, "no arguments", jsConsumerFlags(js.Consume)},
	{"js fetch", 0, "no arguments", jsConsumerFlags(js.Fetch)},
	{"js push", 0, "no arguments", jsConsumerFlags(js.Push)},
	{"js get sync", 0, "no arguments", jsGetFlags(false)},
	{"js get batch", 0, "no arguments", jsGetFlags(true)},
	{"kv put", 0, "no arguments", kvFlags(true)},
	{"kv get", 0, "no arguments", kvFlags(false)},
	{"latency", 0, "no arguments", latencyFlags},
}

// aliases are other names of a command's path, as its cobra command's Aliases give them.
var aliases = map[string]string{"js pub batch": "js pub atomic"}

// rustPaths are the commands natsperf-rust runs, which take --client: runner.RustKinds (a cli
// test holds the two equal; this package sits below runner, which scenario's import would cycle).
var rustPaths = []string{"pub", "sub", "service serve", "service request", "latency", "js pub sync", "js pub async", "kv put", "kv get"}

// def is a benchmark command: its path, its positional arguments (how many, as the usage
// error says them) and the function that registers its flags and returns its builder.
type def struct {
	path  string
	nargs int
	what  string
	flags func(f *pflag.FlagSet) builder
}

// builder makes a parsed command line's Line; bad input is a UsageError.
type builder func(in *input) (*Line, error)

// input is what a builder reads beside its own flags.
type input struct {
	args []string
	f    *pflag.FlagSet // the command's flags, to tell which were given
	conn *Conn
	env  connect.Env
	// notices are the Line's Notices (noEffect).
	notices []string
}

func pubFlags(f *pflag.FlagSet) builder {
	var bf benchFlags
	var sf subjectFlags
	var pf payloadFlags
	bf.register(f, true, false)
	sf.register(f, true)
	registerPayloadFill(f)
	pf.register(f)
	return func(in *input) (*Line, error) {
		if err := firstErr(bf.validate(in.f), validateSubjects(sf), pf.validate(in.f), checkPublishSubject("SUBJECT", in.args[0])); err != nil {
			return nil, err
		}
		cfg := &spec.Pub{Subject: in.args[0], Size: size(bf, in.f), MultiSubject: sf.MultiSubject, MultiSubjectMax: multiMax(sf, in.f), MultiSubjectRandomize: sf.Randomize, Payload: pf.spec()}
		return in.line(in.newSpec(bf, bf.Clients, cfg), bf.Hist), nil
	}
}

func subFlags(f *pflag.FlagSet) builder {
	var bf benchFlags
	var sf subjectFlags
	var queue string
	var pend pendingFlags
	bf.register(f, false, true)
	sf.register(f, false)
	f.StringVar(&queue, "queue", "", "join this queue group: the subscribers share the messages")
	registerHist(f, &bf.Hist)
	pend.register(f)
	f.Lookup("sleep").Usage = "simulated processing time per received message, a slow subscriber (also --sub-sleep, as in pubsub)"
	aliasFlag(f, "sub-sleep", "sleep")
	return func(in *input) (*Line, error) {
		if err := firstErr(bf.validate(in.f), pend.validate(), checkSubject("SUBJECT", in.args[0])); err != nil {
			return nil, err
		}
		cfg := &spec.Sub{
			Subject: in.args[0], Size: size(bf, in.f), Queue: queue, MultiSubject: sf.MultiSubject, IdleTimeout: idle(bf, in.f),
			PendingMsgs: int(pendingLimit(int64(pend.Msgs))), PendingBytes: spec.Size(pendingLimit(pend.Bytes)),
		}
		return in.line(in.newSpec(bf, bf.Clients, cfg), bf.Hist), nil
	}
}

func pubsubFlags(f *pflag.FlagSet) builder {
	var bf benchFlags
	var sf subjectFlags
	var pubs, subs int
	var queue string
	var pf payloadFlags
	var pend pendingFlags
	var subSleep time.Duration
	var ff faultFlags
	bf.register(f, true, true)
	sf.register(f, true)
	f.IntVar(&pubs, "pub", 1, "number of publishers")
	f.IntVar(&subs, "sub", 1, "number of subscribers")
	f.StringVar(&queue, "queue", "", "subscribers join this queue group and share the messages")
	jsf := registerJSPubsub(f) // --js and its flags (jspubsub.go)
	pf.register(f)
	registerHist(f, &bf.Hist)
	pend.register(f)
	f.DurationVar(&subSleep, "sub-sleep", 0, "core NATS: simulated processing time per message in each subscriber (a slow subscriber)")
	ff.register(f)
	_ = f.MarkHidden("clients")
	return func(in *input) (*Line, error) {
		if err := firstErr(bf.validate(in.f), validateSubjects(sf)); err != nil {
			return nil, err
		}
		if in.f.Changed("clients") { // registered with the common flags, hidden: it used to be ignored
			return nil, usagef("pubsub counts its clients with --pub and --sub, not --clients")
		}
		if pubs < 1 || subs < 1 {
			return nil, usagef("--pub and --sub must each be at least 1 (got %d and %d)", pubs, subs)
		}
		if pubs > maxClients || subs > maxClients {
			return nil, usagef("--pub %d and --sub %d: each may be at most %d, as --clients", pubs, subs, maxClients)
		}
		if err := firstErr(checkPublishSubject("SUBJECT", in.args[0]), pend.validate()); err != nil {
			return nil, err
		}
		if subSleep < 0 {
			return nil, usagef("--sub-sleep must not be negative")
		}
		if err := checkVerifySize(&ff, bf.Size); err != nil {
			return nil, err
		}
		if err := ff.parse(in, jsf.JS, ff.faultNodes(jsf.sf.Replicas)); err != nil {
			return nil, err
		}
		cfg := &spec.PubSub{
			Subject: in.args[0], Size: size(bf, in.f), Pubs: pubs, Subs: subs, Queue: queue,
			MultiSubject: sf.MultiSubject, MultiSubjectMax: multiMax(sf, in.f), MultiSubjectRandomize: sf.Randomize,
			IdleTimeout: idle(bf, in.f),
			PendingMsgs: int(pendingLimit(int64(pend.Msgs))), PendingBytes: spec.Size(pendingLimit(pend.Bytes)),
			SubSleep: spec.Duration(subSleep), Payload: pf.spec(),
		}
		if err := pf.validate(in.f); err != nil {
			return nil, err
		}
		s := in.newSpec(bf, 0, cfg)
		if jsf.JS {
			if err := jsf.validate(); err != nil {
				return nil, err
			}
			cfg.JS = jsf.spec(in.f)
			s.Setup.Streams = []spec.Stream{jsf.sf.setupStream(in.f)}
		}
		return in.line(withFaults(s, &ff, in.f), bf.Hist), nil
	}
}

func serveFlags(f *pflag.FlagSet) builder {
	var bf benchFlags
	bf.register(f, false, false)
	return func(in *input) (*Line, error) {
		if err := firstErr(bf.validate(in.f), checkSubject("SUBJECT", in.args[0])); err != nil {
			return nil, err
		}
		cfg := &spec.ServiceServe{Subject: in.args[0], Size: size(bf, in.f)}
		return in.line(in.newSpec(bf, bf.Clients, cfg), bf.Hist), nil
	}
}

func requestFlags(f *pflag.FlagSet) builder {
	var bf benchFlags
	var timeout time.Duration
	var maxInflight int
	var pf payloadFlags
	bf.register(f, true, false)
	registerMaxInflight(f, &maxInflight)
	f.DurationVar(&timeout, "timeout", 5*time.Second, "how long to wait for each reply; a timeout is counted and the requester goes on (also --ack-timeout)")
	// --ack-timeout (and so nats bench's --jstimeout) is what the JetStream and KV commands call it.
	f.DurationVar(&timeout, "ack-timeout", 5*time.Second, "the same as --timeout")
	_ = f.MarkHidden("ack-timeout")
	registerHist(f, &bf.Hist)
	pf.register(f)
	return func(in *input) (*Line, error) {
		if err := bf.validate(in.f); err != nil {
			return nil, err
		}
		if timeout <= 0 {
			return nil, usagef("--timeout must be positive")
		}
		if err := firstErr(checkPublishSubject("SUBJECT", in.args[0]), pf.validate(in.f)); err != nil {
			return nil, err
		}
		cfg := &spec.ServiceRequest{Subject: in.args[0], Size: size(bf, in.f), Payload: pf.spec()}
		if timeout != 5*time.Second { // --timeout or --ack-timeout
			cfg.Timeout = spec.Duration(timeout)
		}
		return in.line(withMaxInflight(in.newSpec(bf, bf.Clients, cfg), in.f, maxInflight), bf.Hist), nil
	}
}

func jsPubFlags(mode string) func(f *pflag.FlagSet) builder {
	return func(f *pflag.FlagSet) builder {
		var bf benchFlags
		var sf streamFlags
		var subj subjectFlags
		var pf payloadFlags
		var batch, outstanding, maxInflight int
		var dedup bool
		var ff faultFlags
		bf.register(f, true, false)
		sf.register(f)
		subj.register(f, true)
		pf.register(f)
		f.IntVar(&batch, "batch", js.DefaultAsyncWindow, "async: messages published before waiting for their acks (also --async-window); batch: messages per atomic batch, default 100, at most 1000 (also --batch-size)")
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
			// nats bench's js pub takes --batch for every mode; sync publishing has no window.
			f.Lookup("batch").Usage = "no effect: sync publishing waits for each ack (accepted, as nats bench's js pub sync takes it)"
			_ = f.MarkHidden("batch")
		}
		return func(in *input) (*Line, error) {
			f := in.f
			if err := firstErr(bf.validate(f), sf.validate(), validateSubjects(subj), pf.validate(f), checkPublishSubject("SUBJECT", in.args[0])); err != nil {
				return nil, err
			}
			if mode == js.Sync {
				in.noEffect("batch", "js pub sync: each publish waits for its ack, one at a time per client (js pub async's window is --batch)")
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
			if err := ff.parse(in, true, ff.faultNodes(sf.Replicas)); err != nil {
				return nil, err
			}
			pub := spec.JSPublish{
				Stream: sf.Stream, Subject: in.args[0], Size: size(bf, f), MultiSubject: subj.MultiSubject,
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
			s := withStream(withMaxInflight(in.newSpec(bf, bf.Clients, cfg), f, maxInflight), &sf, f)
			return in.line(withFaults(s, &ff, f), bf.Hist), nil
		}
	}
}

func jsConsumerFlags(kind string) func(f *pflag.FlagSet) builder {
	return func(f *pflag.FlagSet) builder {
		var bf benchFlags
		var sf streamFlags
		var cf consumerFlags
		bf.register(f, false, true)
		sf.register(f)
		cf.register(f, kind != js.Ordered, kind == js.Push)
		registerHist(f, &bf.Hist)
		return func(in *input) (*Line, error) {
			if err := firstErr(bf.validate(in.f), sf.validate(), cf.validate()); err != nil {
				return nil, err
			}
			if bf.Msgs == 0 {
				return nil, usagef("--msgs must be at least 1")
			}
			s := in.newSpec(bf, bf.Clients, cf.spec(kind, bf, sf, in.f))
			return in.line(withStream(s, &sf, in.f), bf.Hist), nil
		}
	}
}

func jsGetFlags(batched bool) func(f *pflag.FlagSet) builder {
	return func(f *pflag.FlagSet) builder {
		var bf benchFlags
		var sf streamFlags
		var filter string
		var batch int
		bf.register(f, false, false)
		sf.register(f)
		f.StringVar(&filter, "filter", "", "get only messages on this subject (the next one at or after each sequence)")
		f.IntVar(&batch, "batch", 500, "messages per batched direct get (also --get-batch)")
		aliasFlag(f, "get-batch", "batch")
		registerHist(f, &bf.Hist)
		if !batched {
			f.Lookup("batch").Usage = "no effect: each sync get reads one message (accepted for js get batch's command lines)"
			_ = f.MarkHidden("batch")
		}
		return func(in *input) (*Line, error) {
			f := in.f
			if err := firstErr(bf.validate(f), sf.validate()); err != nil {
				return nil, err
			}
			if batch < 1 {
				return nil, usagef("--batch must be at least 1")
			}
			if !batched {
				in.noEffect("batch", "js get sync: each get reads one message (js get batch's gets take --batch)")
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
			return in.line(withStream(in.newSpec(bf, bf.Clients, cfg), &sf, f), bf.Hist), nil
		}
	}
}

func kvFlags(put bool) func(f *pflag.FlagSet) builder {
	return func(f *pflag.FlagSet) builder {
		var bf benchFlags
		var st storeFlags
		var bucket string
		var maxInflight, history int
		var randomize, maxBytes int64
		var ff faultFlags
		bf.register(f, put, false)
		if put {
			registerMaxInflight(f, &maxInflight)
			ff.registerFaults(f)
		}
		registerHist(f, &bf.Hist)
		f.StringVar(&bucket, "bucket", "benchbucket", "KV bucket to use")
		st.register(f)
		f.IntVar(&history, "history", 1, "history (values kept per key) of a bucket natsperf creates")
		f.Var((*sizeValue)(&maxBytes), "maxbytes", "maximum size of a bucket natsperf creates (size units; 0: unlimited)")
		f.Int64Var(&randomize, "randomize", 0, "use random keys among this many instead of the message number")
		return func(in *input) (*Line, error) {
			f := in.f
			if err := firstErr(bf.validate(f), st.validate()); err != nil {
				return nil, err
			}
			switch {
			case checkBucketName(bucket) != nil:
				return nil, checkBucketName(bucket)
			case history < 1 || history > 64:
				return nil, usagef("--history must be 1 to 64, got %d", history)
			case randomize < 0:
				return nil, usagef("--randomize must not be negative")
			case bf.Msgs == 0 && !put:
				return nil, usagef("--msgs must be at least 1")
			}
			if put {
				if err := ff.parse(in, true, ff.faultNodes(st.Replicas)); err != nil {
					return nil, err
				}
			}
			bk := spec.Bucket{Name: bucket, Purge: st.Purge, Force: st.Force}
			if f.Changed("storage") {
				bk.Storage = st.Storage
			}
			if f.Changed("replicas") {
				bk.Replicas = st.Replicas
			}
			if f.Changed("compression") {
				bk.Compression = st.Compression
			}
			if f.Changed("history") {
				bk.History = history
			}
			if f.Changed("maxbytes") {
				bk.MaxBytes = spec.Size(maxBytes)
			}
			c := spec.KV{Bucket: bucket, Size: size(bf, f), Randomize: randomize}
			if f.Changed("ack-timeout") {
				c.AckTimeout = spec.Duration(st.AckTimeout)
			}
			var cfg spec.Config = &spec.KVGet{KV: c}
			if put {
				cfg = &spec.KVPut{KV: c}
			}
			s := withMaxInflight(in.newSpec(bf, bf.Clients, cfg), f, maxInflight)
			s.Setup.Buckets = []spec.Bucket{bk}
			if put {
				s = withFaults(s, &ff, f)
			}
			return in.line(s, bf.Hist), nil
		}
	}
}

// firstErr is the first of errs that is not nil: checks made in order, the first failing one
// reported.
func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
