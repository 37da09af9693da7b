package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/internal/units"
)

func (a *app) kvCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "kv",
		Short: "JetStream Key-Value benchmarks: synchronous put and get",
		Example: `  natsperf kv put --msgs 10000
  natsperf kv get --clients 16 --randomize 10000 --msgs 10000`,
	}
	cmd.AddCommand(a.kvOpCmd(true), a.kvOpCmd(false))
	return cmd
}

func (a *app) kvOpCmd(put bool) *cobra.Command {
	var bf benchFlags
	var bucket, storage string
	var replicas, history int
	var randomize int64
	var purge, force bool
	var timeout = js.DefaultAckTimeout
	use, kind := "get", "JetStream KV getter"
	if put {
		use, kind = "put", "JetStream KV putter"
	}
	cmd := &cobra.Command{
		Use:   use,
		Short: map[bool]string{true: "Put values into a KV bucket, one at a time", false: "Get values from a KV bucket, one at a time"}[put],
		Long: `--msgs is the total, split across --clients. Keys are "0".."N-1": the message number, or with
--randomize N a random one of N keys. A missing bucket is created (marked created-by=natsperf);
for get, a bucket natsperf created that lacks the keys is filled first (setup, not measured).
Latency is each operation's round trip; a get of a missing key counts as an error.`,
		Example: "  natsperf kv " + use + " --clients 4 --randomize 1000 --msgs 10000",
		Args:    exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			f := cmd.Flags()
			if err := bf.validate(f); err != nil {
				return err
			}
			st, err := js.ParseStorage(storage)
			switch {
			case err != nil:
				return usageError{err}
			case checkBucketName(bucket) != nil:
				return checkBucketName(bucket)
			case replicas < 1 || replicas > 5:
				return usagef("--replicas must be 1 to 5, got %d", replicas)
			case history < 1 || history > 64:
				return usagef("--history must be 1 to 64, got %d", history)
			case randomize < 0:
				return usagef("--randomize must not be negative")
			case bf.Msgs == 0:
				return usagef("--msgs must be at least 1")
			case timeout <= 0:
				return usagef("--ack-timeout must be positive")
			}
			s, err := a.openJS(cmd, replicas)
			if err != nil {
				return err
			}
			defer s.close()
			nkeys := bf.Msgs
			if randomize > 0 {
				nkeys = randomize
			}
			keys := js.Keys(nkeys)
			if err := s.kvBucket(cmd, js.BucketSpec{
				Name: bucket, Storage: st, Replicas: replicas, History: history,
				Asked: map[string]bool{"storage": f.Changed("storage"), "replicas": f.Changed("replicas"), "history": f.Changed("history")},
			}, keys, put, purge, force, bf.Size); err != nil {
				return err
			}
			acked := js.NewTally(0)
			cfg := js.KVConfig{Bucket: bucket, Size: int(bf.Size), Randomize: randomize, Sleep: bf.Sleep, AckTimeout: timeout, Keys: keys, IDs: stamp.NewIDs(), Acked: acked}
			rep := streamReport{name: "KV_" + bucket}
			if put {
				rep.published, rep.size = acked, bf.Size
			}
			s.report = append(s.report, rep)
			kv := commonParams(bf)
			kv["bucket"] = bucket
			if put {
				kv["purge"] = strconv.FormatBool(purge)
			} else {
				kv["randomize"] = units.Comma(randomize)
			}
			verb := "publishing"
			if !put {
				verb = "trying to get"
			}
			plan := &bench.Plan{
				Command: "kv " + use, Title: kind + " benchmark", Params: params(kv), Settings: cfg,
				Groups: []*bench.Group{{
					Name: use, Kind: kind, Verb: verb, Clients: bf.Clients, Shares: split(bf.Msgs, bf.Clients), Producer: put,
					New: func(int) bench.Client { return js.NewKV(cfg, put) },
				}},
			}
			return a.runJS(cmd, s, plan, bf)
		},
	}
	f := cmd.Flags()
	bf.register(f, false, false)
	registerHist(f, &bf.Hist)
	f.StringVar(&bucket, "bucket", "benchbucket", "KV bucket to use")
	f.StringVar(&storage, "storage", "file", "storage of a bucket natsperf creates: file or memory")
	f.IntVar(&replicas, "replicas", 1, "replicas of a bucket natsperf creates (above 1 with no server given: an embedded cluster)")
	f.IntVar(&history, "history", 1, "history (values kept per key) of a bucket natsperf creates")
	f.Int64Var(&randomize, "randomize", 0, "use random keys among this many instead of the message number")
	f.DurationVar(&timeout, "ack-timeout", js.DefaultAckTimeout, "how long to wait for each operation; a timeout is counted")
	f.BoolVar(&force, "force", false, "allow purging a bucket natsperf did not create")
	if put {
		f.BoolVar(&purge, "purge", false, "purge the bucket first (only a bucket natsperf created, unless --force)")
	}
	return cmd
}

// kvBucket makes the bucket ready: created when missing, purged when asked and allowed, and for
// get, filled when natsperf created it and a key is missing.
func (s *jsSession) kvBucket(cmd *cobra.Command, spec js.BucketSpec, keys []string, put, purge, force bool, size int64) error {
	ctx, cancel := setupCtx(cmd)
	defer cancel()
	b, diffs, err := js.EnsureBucket(ctx, s.js, spec)
	if err != nil {
		return err
	}
	if b.Created {
		s.logf("Created KV bucket %s (%s, R%d, history %d, %s=%s)", spec.Name, js.StorageName(spec.Storage), spec.Replicas, spec.History, js.MarkKey, js.MarkValue)
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
	return js.FillBucket(ctx, s.js, spec.Name, keys, int(size))
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
