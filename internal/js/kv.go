package js

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/internal/stamp"
)

// BucketSpec is the KV bucket a command asks for.
type BucketSpec struct {
	Name     string
	Storage  jetstream.StorageType
	Replicas int
	History  int
	// Compression compresses the bucket's stream (s2).
	Compression jetstream.StoreCompression
	MaxBytes    int64           // of a bucket natsperf creates (0: unlimited)
	Asked       map[string]bool // "storage", "replicas", "history", "compression" given explicitly
}

// Bucket is a bucket ready for a run.
type Bucket struct {
	jetstream.KeyValue
	Stream  *Stream // the bucket's stream, KV_<name>
	Created bool
}

// EnsureBucket opens the bucket, creating it (marked) when missing. An existing bucket is used
// as it is; its differences from what was asked are returned.
func EnsureBucket(ctx context.Context, js jetstream.JetStream, spec BucketSpec) (*Bucket, []string, error) {
	kv, err := js.KeyValue(ctx, spec.Name)
	created := false
	switch {
	case err == nil:
	case errors.Is(err, jetstream.ErrBucketNotFound):
		kv, err = js.CreateKeyValue(ctx, jetstream.KeyValueConfig{
			Bucket: spec.Name, Storage: spec.Storage, Replicas: max(spec.Replicas, 1),
			History: uint8(max(spec.History, 1)), MaxBytes: bucketMaxBytes(spec.MaxBytes), Metadata: mark(), Compression: spec.Compression == jetstream.S2Compression,
		})
		if err != nil {
			return nil, nil, fmt.Errorf("create bucket %s: %w", spec.Name, err)
		}
		created = true
	default:
		return nil, nil, fmt.Errorf("open bucket %s: %w", spec.Name, err)
	}
	s, err := js.Stream(ctx, "KV_"+spec.Name)
	if err != nil {
		return nil, nil, fmt.Errorf("bucket %s: %w", spec.Name, err)
	}
	info := s.CachedInfo()
	b := &Bucket{KeyValue: kv, Stream: &Stream{Stream: s, Info: info, Created: created, Ours: Marked(info.Config.Metadata)}, Created: created}
	var diffs []string
	diff := func(key, got, want string) {
		if spec.Asked[key] && got != want {
			diffs = append(diffs, fmt.Sprintf("%s %s (asked %s)", key, got, want))
		}
	}
	diff("storage", StorageName(info.Config.Storage), StorageName(spec.Storage))
	diff("replicas", fmt.Sprint(info.Config.Replicas), fmt.Sprint(max(spec.Replicas, 1)))
	diff("history", fmt.Sprint(info.Config.MaxMsgsPerSubject), fmt.Sprint(max(spec.History, 1)))
	diff("compression", CompressionName(info.Config.Compression), CompressionName(spec.Compression))
	return b, diffs, nil
}

// Keys are the bench's keys "0".."n-1", built once so the hot loop formats nothing.
func Keys(n int64) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

// FillBucket puts keys with stamped values of size bytes, before a get benchmark.
func FillBucket(ctx context.Context, js jetstream.JetStream, bucket string, keys []string, size int, f stamp.Fill) error {
	prefix := "$KV." + bucket + "."
	return fill(ctx, js, "fill bucket "+bucket, int64(len(keys)), size, f, func(i int64) string { return prefix + keys[i] })
}

// KVConfig configures KV putters and getters.
type KVConfig struct {
	Bucket     string        `json:"bucket"`
	Size       int           `json:"size"`
	Randomize  int64         `json:"randomize,omitempty"` // random keys among this many; 0: key = message number
	Sleep      time.Duration `json:"sleep,omitempty"`
	Rate       float64       `json:"rate,omitempty"`     // puts: total per second across clients (--rate, --throughput)
	Shape      pace.Shape    `json:"shape,omitzero"`     // puts: ramp, steps, Poisson arrivals around Rate
	Duration   time.Duration `json:"duration,omitempty"` // puts: run this long (--duration)
	AckTimeout time.Duration `json:"timeout"`
	Keys       []string      `json:"-"` // shared, read only
	IDs        stamp.IDs     `json:"-"`
	Acked      *Tally        `json:"-"`
	Fill       stamp.Fill    `json:"fill,omitempty"` // what follows the stamp (zero: text)
	// MaxInflight bounds the puts awaiting acks at a fixed rate, across putters (the open
	// model, open.go); 0: one at a time.
	MaxInflight int `json:"max_inflight,omitempty"`
	// RideOut (a fault run) keeps putting through "no responders" (the bucket's stream has no
	// leader for a while) instead of ending the client, as PubConfig.RideOut.
	RideOut bool `json:"ride_out,omitempty"`
	// AckWaits, when set (a fault run), records each putter's puts that timed out or failed
	// fast, for the failover story.
	AckWaits *AckWaits `json:"-"`
}

// NewKV returns a putter (put) or getter.
func NewKV(cfg KVConfig, put bool) harness.Client {
	if cfg.AckTimeout <= 0 {
		cfg.AckTimeout = DefaultAckTimeout
	}
	return &kvClient{cfg: cfg, put: put}
}

type kvClient struct {
	cfg    KVConfig
	put    bool
	conn   *harness.Conn
	kv     jetstream.KeyValue
	buf    []byte
	offset int64 // first key of the client's share when not randomized
	rng    *rand.Rand
	waits  *ackWait // a putter's failures, in a fault run
}

// ride is how a putter counts its failed puts (rideOut).
func (k *kvClient) ride(env *harness.Env) rideOut {
	return rideOut{on: k.cfg.RideOut, rec: env.Rec, waits: k.waits, start: env.Start}
}

func (k *kvClient) Prepare(ctx context.Context, env *harness.Env) error {
	conn, js, err := dial(ctx, env, jetstream.WithDefaultTimeout(k.cfg.AckTimeout))
	if err != nil {
		return err
	}
	k.conn = conn
	if k.kv, err = js.KeyValue(ctx, k.cfg.Bucket); err != nil {
		return fmt.Errorf("bucket %s: %w", k.cfg.Bucket, err)
	}
	k.buf = k.cfg.Fill.Payload(k.cfg.Size)
	k.offset = int64(env.Index) * env.Share
	k.rng = rand.New(rand.NewPCG(rand.Uint64(), uint64(env.ID)))
	if k.put {
		k.waits = k.cfg.AckWaits.publisher(env.ID)
	}
	return nil
}

func (k *kvClient) key(i int64) string {
	if k.cfg.Randomize > 0 {
		return k.cfg.Keys[k.rng.Int64N(int64(len(k.cfg.Keys)))]
	}
	return k.cfg.Keys[(k.offset+i)%int64(len(k.cfg.Keys))]
}

// Run puts or gets the share one at a time, recording each round trip. A get of a missing key
// counts as an error.
func (k *kvClient) Run(ctx context.Context, env *harness.Env) error {
	clk, rec := env.Clock, env.Rec
	id := k.cfg.IDs.For(env.Index)
	stamped := len(k.buf) >= stamp.Size
	sched := loop.NewSchedule(env, k.cfg.Rate, k.cfg.Shape, k.cfg.Duration)
	defer sched.Close()
	if ok, err := k.open(ctx, env, sched); ok {
		return err
	}
	ride := k.ride(env)
	rec.Begin(sched.Begin())
	for {
		seq, _, sent, ok, err := sched.Next(ctx)
		if err != nil || !ok {
			rec.End(sched.End())
			return err
		}
		i := int64(seq)
		key := k.key(i)
		n := len(k.buf)
		if k.put {
			if stamped {
				stamp.Put(k.buf, id, uint64(i+1), sent)
			}
			_, err = k.kv.Put(ctx, key, k.buf)
		} else {
			var e jetstream.KeyValueEntry
			if e, err = k.kv.Get(ctx, key); err == nil {
				n = len(e.Value())
			}
		}
		now := clk.Now()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if ride.fatal(err) || errors.Is(err, jetstream.ErrBucketNotFound) {
				return k.conn.Explain("kv", err)
			}
			if !k.put {
				count(&rec.Events, err) // a missing key: an error, not an outage
				continue
			}
			ride.failedErr(now, sent, err)
			ride.pauseUnpaced(ctx, sched)
			continue
		}
		rec.Op(now, n, now-sent)
		if k.put && k.cfg.Acked != nil {
			k.cfg.Acked.Add(1)
		}
		if err := sched.Pause(ctx, k.cfg.Sleep); err != nil {
			return err
		}
	}
}

func (k *kvClient) Close() {}

// bucketMaxBytes is the server's "unlimited" (-1) for 0.
func bucketMaxBytes(n int64) int64 {
	if n <= 0 {
		return -1
	}
	return n
}
