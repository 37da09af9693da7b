package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// setupTeardownTimeout bounds deleting what the setup created, also after Ctrl-C.
const setupTeardownTimeout = 30 * time.Second

// maker makes one kind of setup item (spec.Item) on a server: how it is made (and what is
// said when an existing one can only be used as it is) and how it is undone after. A new
// kind of resource (an object store) is its spec type and one maker here, named in makerOf.
// The streams and buckets a workload names are set up by its kind.
type maker interface {
	// make creates it on jsc; warning says why an existing one is used as it is; undo, when
	// not nil, deletes it after the run (what this run created and was asked to delete).
	make(ctx context.Context, jsc jetstream.JetStream) (warning string, undo func(context.Context), err error)
}

// makerOf is the maker of one setup item of s.
func makerOf(it spec.Item, s *spec.Spec) maker {
	switch it := it.(type) {
	case *spec.Stream:
		st := setupStream{Stream: *it}
		st.atomic, st.batched = batchesInto(s, it.Name)
		return st
	case *spec.Bucket:
		return setupBucket(*it)
	}
	panic(fmt.Sprintf("engine: no maker for setup %s %s", it.Kind(), it.ID())) // a spec type without its maker: a programming error
}

// setupStream is a setup stream: recreated, so the run starts empty with these settings,
// allowing atomic or fast batches when a workload of the run publishes so into it.
type setupStream struct {
	spec.Stream
	atomic, batched bool
}

// batchesInto reports whether a workload of s publishes atomic batches (js pub atomic) or fast
// batches (js pub fast) into stream name.
func batchesInto(s *spec.Spec, name string) (atomic, batched bool) {
	for _, w := range s.Workloads {
		mode, c, _ := jsPublishOf(w.Config)
		if c == nil || strOr(c.Stream, DefaultStream) != name {
			continue
		}
		atomic, batched = atomic || mode == js.Batch, batched || mode == js.Fast
	}
	return atomic, batched
}

// make replaces a stream natsperf created earlier; someone else's is used as it is.
func (st setupStream) make(ctx context.Context, jsc jetstream.JetStream) (string, func(context.Context), error) {
	if old, err := jsc.Stream(ctx, st.Name); err == nil {
		if !js.Marked(old.CachedInfo().Config.Metadata) {
			return fmt.Sprintf("stream %s exists and was not created by natsperf: used as it is", st.Name), nil, nil
		}
		if err := jsc.DeleteStream(ctx, st.Name); err != nil {
			return "", nil, fmt.Errorf("replace stream %s: %w", st.Name, err)
		}
	}
	ss := streamSpec(st.Stream, st.Subjects, true)
	ss.Atomic, ss.Batched = st.atomic, st.batched
	if _, _, err := js.EnsureStream(ctx, jsc, ss); err != nil {
		return "", nil, err
	}
	waitLeader(ctx, jsc, st.Name)
	if !st.DeleteAfter {
		return "", nil, nil
	}
	name := st.Name
	return "", func(ctx context.Context) { _ = jsc.DeleteStream(ctx, name) }, nil
}

// setupBucket is a setup KV bucket: created when missing.
type setupBucket spec.Bucket

func (b setupBucket) make(ctx context.Context, jsc jetstream.JetStream) (string, func(context.Context), error) {
	storage, _ := js.ParseStorage(strOr(b.Storage, "file"))
	bk, _, err := js.EnsureBucket(ctx, jsc, js.BucketSpec{Name: b.Name, Storage: storage, Replicas: max(b.Replicas, 1), History: max(b.History, 1)})
	if err != nil || !bk.Created || !b.DeleteAfter {
		return "", nil, err
	}
	name := b.Name
	return "", func(ctx context.Context) { _ = jsc.DeleteKeyValue(ctx, name) }, nil
}

// needsSetup reports whether s asks for setup of its own before the workloads are built.
func needsSetup(s *spec.Spec) bool {
	for _, it := range s.Setup.Items() {
		if it.Wanted() {
			return true
		}
	}
	return false
}

// setup makes s's wanted resources before the workloads are built; what it could only use as
// it is comes back as warnings (kept for the Result). The returned teardown deletes what this
// run created and asked to be deleted after (DeleteAfter).
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
	for _, it := range s.Setup.Items() {
		if !it.Wanted() {
			continue
		}
		warning, undo, err := makerOf(it, s).make(sctx, jsc)
		if warning != "" {
			warnings = append(warnings, warning)
		}
		if undo != nil {
			created = append(created, undo)
		}
		if err != nil {
			return warnings, teardown, err
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
	c.Setup = s.Setup.Clone()
	for _, it := range c.Setup.Items() {
		it.Made()
	}
	return &c
}
