package cli

import (
	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/spec"
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
	var st storeFlags
	var bucket string
	var maxInflight int
	var history int
	var randomize int64
	var maxBytes int64
	use := "get"
	long := `--msgs is the total, split across --clients. Keys are "0".."N-1": the message number, or with
--randomize N a random one of N keys. A missing bucket is created (marked created-by=natsperf);
for get, a bucket natsperf created that lacks the keys is filled first (setup, not measured).
Latency is each operation's round trip; a get of a missing key counts as an error.`
	example := "  natsperf kv " + use + " --clients 4 --randomize 1000 --msgs 10000"
	if put {
		use = "put"
		long += `

Puts take a fixed rate (--rate, latency then counted from each put's intended time) or a load
shape: --rate A..B --ramp D, --steps R1,R2,... --step-duration D, --arrivals poisson; the
Result and the text then give each step's rate and percentiles (docs/capacity.md), and
'natsperf capacity kv put ...' searches the bucket's capacity.`
		example = "  natsperf kv put --clients 4 --randomize 1000 --msgs 10000\n  natsperf kv put --clients 4 --steps 200,400 --step-duration 1s --duration 2s"
	}
	cmd := &cobra.Command{
		Use:     use,
		Short:   map[bool]string{true: "Put values into a KV bucket, one at a time", false: "Get values from a KV bucket, one at a time"}[put],
		Long:    long,
		Example: example,
		Args:    exactArgs(0, "no arguments"),
		RunE: a.specRunE(func(cmd *cobra.Command, _ []string) (*specRun, error) {
			f := cmd.Flags()
			if err := bf.validate(f); err != nil {
				return nil, err
			}
			if err := st.validate(); err != nil {
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
			spc := withMaxInflight(a.newSpec(bf, f, bf.Clients, cfg), f, maxInflight)
			spc.Setup.Buckets = []spec.Bucket{bk}
			return &specRun{spec: spc, hist: bf.Hist}, nil
		}),
	}
	a.specCommand(cmd)
	f := cmd.Flags()
	bf.register(f, put, false)
	if put {
		registerMaxInflight(f, &maxInflight)
	}
	registerHist(f, &bf.Hist)
	f.StringVar(&bucket, "bucket", "benchbucket", "KV bucket to use")
	st.register(f)
	f.IntVar(&history, "history", 1, "history (values kept per key) of a bucket natsperf creates")
	f.Var((*sizeValue)(&maxBytes), "maxbytes", "maximum size of a bucket natsperf creates (size units; 0: unlimited)")
	f.Int64Var(&randomize, "randomize", 0, "use random keys among this many instead of the message number")
	return cmd
}
