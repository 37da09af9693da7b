package engine

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/spec"
)

// The JetStream KV kinds.
func init() {
	Register("kv put", buildKV)
	Register("kv get", buildKV)
}

// DefaultBucket is the KV kinds' bucket unless the config names one.
const DefaultBucket = "benchbucket"

// bucket is the setup bucket name refers to (name zero: the default bucket); a bucket the
// setup does not list asks for nothing but its name.
func (b *Build) bucket(name string) spec.Bucket {
	name = strOr(name, DefaultBucket)
	for _, bk := range b.Spec.Setup.Buckets {
		if bk.Name == name {
			return bk
		}
	}
	return spec.Bucket{Name: name}
}

func buildKV(ctx context.Context, b *Build) (*Built, error) {
	var c *spec.KV
	put := false
	switch x := b.Workload.Config.(type) {
	case *spec.KVPut:
		c, put = &x.KV, true
	case *spec.KVGet:
		c = &x.KV
	default:
		return nil, fmt.Errorf("workload kind %q: config is %T", b.Workload.Kind(), b.Workload.Config)
	}
	use, kind, verb := "get", "JetStream KV getter", "trying to get"
	if put {
		use, kind, verb = "put", "JetStream KV putter", "publishing"
	}
	n, size, msgs := b.Clients(), sizeOr(c.Size, DefaultSize), b.Msgs()
	bk := b.bucket(c.Bucket)
	storage, _ := js.ParseStorage(strOr(bk.Storage, "file"))
	nkeys := msgs
	if put && nkeys == 0 { // a duration bounds the puts: keys cycle through as many as a rate gives
		nkeys = max(Sum(b.SenderShares(n)), DefaultMsgs)
	}
	if c.Randomize > 0 {
		nkeys = c.Randomize
	}
	keys := js.Keys(nkeys)
	s, err := b.openJS(ctx)
	if err != nil {
		return nil, err
	}
	if err := s.kvBucket(ctx, js.BucketSpec{
		Name: bk.Name, Storage: storage, Replicas: max(bk.Replicas, 1), History: max(bk.History, 1), Compression: compressionOf(bk.Compression), MaxBytes: int64(bk.MaxBytes),
		Asked: map[string]bool{"storage": bk.Storage != "", "replicas": bk.Replicas != 0, "history": bk.History != 0, "compression": bk.Compression != ""},
	}, keys, put, bk.Purge, bk.Force, size); err != nil {
		s.close()
		return nil, err
	}
	acked := js.NewTally(0)
	cfg := js.KVConfig{
		Bucket: bk.Name, Size: int(size), Randomize: c.Randomize, Sleep: b.Workload.Pacing.Sleep.D(),
		AckTimeout: b.ackTimeout(c.AckTimeout), Keys: keys, IDs: b.NewIDs(), Acked: acked, Fill: b.Fill(),
	}
	shares := Split(msgs, n)
	if put {
		p := b.Workload.Pacing
		cfg.Rate, cfg.Shape, cfg.Duration, shares = p.Rate, shapeOf(p), p.Duration.D(), b.SenderShares(n)
		cfg.MaxInflight = maxInflight(b)
		if len(b.Faults.Plan) > 0 { // ride out a bucket without a leader, as js pub sync does
			cfg.RideOut, cfg.AckWaits = true, js.NewAckWaits()
		}
	}
	rep := streamReport{name: "KV_" + bk.Name}
	if put {
		rep.published, rep.size = acked, size
	}
	s.report = append(s.report, rep)
	kv := b.CommonParams(n, size)
	kv["bucket"] = bk.Name
	if put {
		kv["purge"] = strconv.FormatBool(bk.Purge)
	} else {
		kv["randomize"] = units.Comma(c.Randomize)
	}
	g := &harness.Group{
		Name: use, Kind: kind, Verb: verb, Clients: n, Shares: shares, Producer: put,
		New: func(int) harness.Client { return js.NewKV(cfg, put) },
	}
	var ref *StreamRef
	if put { // a leader fault acts on the bucket's stream
		ref = &StreamRef{NC: s.nc, JS: s.js, Name: "KV_" + bk.Name, Replicas: replicasOf(b.Target, "KV_"+bk.Name)}
	}
	return s.built(&Built{
		Title: kind + " benchmark", Params: kv, Settings: cfg, Size: size,
		Corrected: put && cfg.Rate > 0, // the open model records latency from the intended sends too
		Groups:    []*harness.Group{b.Faults.Track(g, cfg.AckWaits, cfg.AckTimeout)},
		Stream:    ref,
	}), nil
}

// kvBucket makes the bucket ready: created when missing, purged when asked and allowed, and for
// get, filled when natsperf created it and a key is missing.
func (s *jsSession) kvBucket(ctx context.Context, spec js.BucketSpec, keys []string, put, purge, force bool, size int64) error {
	ctx, cancel := setupCtx(ctx)
	defer cancel()
	b, diffs, err := js.EnsureBucket(ctx, s.js, spec)
	if err != nil {
		return err
	}
	s.checkCompression(b.Stream.Info.Config, size)
	if b.Created {
		s.logf("Created KV bucket %s (%s, R%d, history %d, compression %s, %s=%s)", spec.Name, js.StorageName(spec.Storage), spec.Replicas, spec.History, js.CompressionName(spec.Compression), js.MarkKey, js.MarkValue)
	} else {
		s.logf("Using KV bucket: %s", spec.Name)
		if len(diffs) > 0 {
			s.warn("KV bucket %s exists with another configuration and is used as it is: %s", spec.Name, strings.Join(diffs, ", "))
		}
	}
	if put && !b.Stream.Ours && !force {
		// Putting keys 0..N-1 overwrites whatever a user kept under them.
		return fmt.Errorf("refusing to put keys 0..%d into KV bucket %s: natsperf did not create it (no %s=%s metadata) and its values there would be overwritten; pass --force to use it anyway", len(keys)-1, spec.Name, js.MarkKey, js.MarkValue)
	}
	if purge {
		if err := b.Stream.RefusePurge(force); err != nil {
			return err
		}
		s.logf("Purging the bucket")
		if err := b.Stream.Purge(ctx, force); err != nil {
			return err
		}
	}
	if put || !missingKey(ctx, b, keys) {
		return nil
	}
	if !b.Stream.Ours {
		s.warn("KV bucket %s lacks some of the keys 0..%d and natsperf fills only buckets it created: missing keys count as errors", spec.Name, len(keys)-1)
		return nil
	}
	s.logf("Filling KV bucket %s with %s keys of %s (setup, not measured)", spec.Name, units.Comma(int64(len(keys))), units.FormatSize(size))
	return js.FillBucket(ctx, s.js, spec.Name, keys, int(size), s.payload)
}

// missingKey checks the first and last keys, which the fill writes first and last.
func missingKey(ctx context.Context, b *js.Bucket, keys []string) bool {
	for _, k := range []string{keys[0], keys[len(keys)-1]} {
		if _, err := b.Get(ctx, k); err != nil {
			return true
		}
	}
	return false
}
