package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/spec"
)

// setupTeardownTimeout bounds deleting what the setup created, also after Ctrl-C.
const setupTeardownTimeout = 30 * time.Second

// needsSetup reports whether s asks for setup of its own before the workloads are built:
// streams to recreate, buckets to create (a scenario cell's setup). The streams and buckets
// a workload names are set up by its kind.
func needsSetup(s *spec.Spec) bool {
	for _, st := range s.Setup.Streams {
		if st.Recreate {
			return true
		}
	}
	for _, b := range s.Setup.Buckets {
		if b.Create {
			return true
		}
	}
	return false
}

// setup creates s's Recreate streams and Create buckets before the workloads are built. A
// stream natsperf created earlier is replaced, so the run starts empty with these settings;
// someone else's is used as it is, with a warning (kept for the Result). The returned teardown
// deletes what this run created and asked to be deleted after (DeleteAfter).
func setup(ctx context.Context, t *Target, s *spec.Spec) (warnings []string, teardown func(), err error) {
	sctx, cancel := setupCtx(ctx)
	defer cancel()
	nc, err := t.Dialer()(sctx, "natsperf-setup")
	if err != nil {
		return nil, func() {}, fmt.Errorf("setup: connect: %w", err)
	}
	jsc, err := t.Settings.JS.New(nc)
	if err != nil {
		nc.Close()
		return nil, func() {}, fmt.Errorf("setup: %w", err)
	}
	var created []func(context.Context)
	teardown = func() {
		tctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), setupTeardownTimeout)
		for _, d := range created {
			d(tctx)
		}
		cancel()
		nc.Close()
	}
	for _, st := range s.Setup.Streams {
		if !st.Recreate {
			continue
		}
		if old, err := jsc.Stream(sctx, st.Name); err == nil {
			if !js.Marked(old.CachedInfo().Config.Metadata) {
				warnings = append(warnings, fmt.Sprintf("stream %s exists and was not created by natsperf: used as it is", st.Name))
				continue
			}
			if err := jsc.DeleteStream(sctx, st.Name); err != nil {
				return warnings, teardown, fmt.Errorf("replace stream %s: %w", st.Name, err)
			}
		}
		if _, _, err := js.EnsureStream(sctx, jsc, streamSpec(st, st.Subjects, true)); err != nil {
			return warnings, teardown, err
		}
		waitLeader(sctx, jsc, st.Name)
		if st.DeleteAfter {
			name := st.Name
			created = append(created, func(ctx context.Context) { _ = jsc.DeleteStream(ctx, name) })
		}
	}
	for _, b := range s.Setup.Buckets {
		if !b.Create {
			continue
		}
		storage, _ := js.ParseStorage(strOr(b.Storage, "file"))
		bk, _, err := js.EnsureBucket(sctx, jsc, js.BucketSpec{Name: b.Name, Storage: storage, Replicas: max(b.Replicas, 1), History: max(b.History, 1)})
		if err != nil {
			return warnings, teardown, err
		}
		if bk.Created && b.DeleteAfter {
			name := b.Name
			created = append(created, func(ctx context.Context) { _ = jsc.DeleteKeyValue(ctx, name) })
		}
	}
	return warnings, teardown, nil
}

// waitLeader waits (bounded by ctx) until a new replicated stream has elected its leader:
// consumers created before that fail with "no responders".
func waitLeader(ctx context.Context, jsc jetstream.JetStream, name string) {
	for ctx.Err() == nil {
		if st, err := jsc.Stream(ctx, name); err == nil {
			if c := st.CachedInfo().Cluster; c == nil || c.Leader != "" {
				return
			}
		}
		select {
		case <-ctx.Done():
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// mergeStreams folds the states several workload instances report of one stream into one:
// what each instance published adds up, the server's figures are the latest.
func mergeStreams(in []result.StreamState) []result.StreamState {
	var out []result.StreamState
	at := map[string]int{}
	for _, s := range in {
		i, ok := at[s.Name]
		if !ok {
			at[s.Name] = len(out)
			out = append(out, s)
			continue
		}
		o := &out[i]
		o.Published += s.Published
		o.ExpectedBytes += s.ExpectedBytes
		o.Messages, o.Bytes, o.StoredBytes = s.Messages, s.Bytes, s.StoredBytes
	}
	return out
}

// NeedsSetup reports whether s has setup of its own (streams to recreate, buckets to
// create): a distributed run does it once, in the coordinator, before the agents start.
func NeedsSetup(s *spec.Spec) bool { return needsSetup(s) }

// Setup does s's own setup on t (see setup); teardown deletes what it created and was asked
// to delete after the run.
func Setup(ctx context.Context, t *Target, s *spec.Spec) (warnings []string, teardown func(), err error) {
	return setup(ctx, t, s)
}

// WithoutSetup is s with its own setup marked done: the streams and buckets are used as they
// are (the parts of a distributed run, once the coordinator did the setup).
func WithoutSetup(s *spec.Spec) *spec.Spec {
	c := *s
	c.Setup.Streams = append([]spec.Stream(nil), s.Setup.Streams...)
	c.Setup.Buckets = append([]spec.Bucket(nil), s.Setup.Buckets...)
	for i := range c.Setup.Streams {
		c.Setup.Streams[i].Recreate, c.Setup.Streams[i].DeleteAfter = false, false
	}
	for i := range c.Setup.Buckets {
		c.Setup.Buckets[i].Create, c.Setup.Buckets[i].DeleteAfter = false, false
	}
	return &c
}
