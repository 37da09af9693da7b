package cli

import (
	"github.com/spf13/cobra"
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
'natsperf capacity kv put ...' searches the bucket's capacity.

With --fault or --fault-exec (docs/faults.md) a leader fault acts on the bucket's stream, and
the putters ride out a bucket without a leader: a "no responders" answer is a failed put (the
failover's block names it by reason, with the puts given up at --ack-timeout), not the end of
the run.`
		example = "  natsperf kv put --clients 4 --randomize 1000 --msgs 10000\n  natsperf kv put --clients 4 --steps 200,400 --step-duration 1s --duration 2s\n  natsperf kv put --replicas 3 --rate 500 --duration 4s --fault 1s:kill-leader --fault 2s:restart"
	}
	cmd := &cobra.Command{
		Use:     use,
		Short:   map[bool]string{true: "Put values into a KV bucket, one at a time", false: "Get values from a KV bucket, one at a time"}[put],
		Long:    long,
		Example: example,
	}
	return a.benchCommand(cmd, "kv "+use)
}
