package cmdline

import (
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
	f.BoolVar(&j.JS, "js", false, "JetStream: publish to a stream and consume it (the stream flags --stream, --storage, ..., --syncpub and --consumer-kind apply with --js)")
	f.BoolVar(&j.SyncPub, "syncpub", false, "with --js: publish synchronously (default: async windows of --batch)")
	f.StringVar(&j.Kind, "consumer-kind", js.Ordered, "with --js: ordered (every subscriber gets every message), pull or push (the subscribers share a durable consumer)")
	f.IntVar(&j.Batch, "batch", js.DefaultAsyncWindow, "with --js: async publish window, and messages per pull")
	j.sf.register(f) // the js commands' stream flags, used with --js
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
	return j.sf.validate()
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
