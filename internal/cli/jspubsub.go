package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/spec"
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

// validate checks the --js flags as a usage error before anything connects.
func (j *jsPubsubFlags) validate() error {
	switch j.Kind {
	case js.Ordered, "pull", js.Consume, js.Push:
	default:
		return usagef("--consumer-kind must be ordered, pull or push, got %q", j.Kind)
	}
	if j.Batch < 1 {
		return usagef("--batch must be at least 1")
	}
	sf := j.sf
	sf.MaxBytes, sf.DedupWindow = 0, 2*time.Minute // unlimited: pubsub streams grow with --msgs
	return sf.validate()
}

// spec is the --js flags as the pubsub config's js part (defaults left zero).
func (j *jsPubsubFlags) spec(f *pflag.FlagSet) *spec.PubSubJS {
	out := &spec.PubSubJS{Stream: j.sf.Stream, SyncPub: j.SyncPub}
	if f.Changed("consumer-kind") {
		out.ConsumerKind = j.Kind
	}
	if f.Changed("batch") {
		out.Batch = j.Batch
	}
	if f.Changed("ack-timeout") {
		out.AckTimeout = spec.Duration(j.sf.AckTimeout)
	}
	return out
}
