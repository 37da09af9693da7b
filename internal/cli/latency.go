package cli

import (
	"github.com/spf13/cobra"
)

func (a *app) latencyCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "latency",
		Short: "End-to-end latency at a fixed rate, publishing on server A and receiving on server B (latency-tests)",
		Long: `Publish --rate messages per second for --duration on one connection to server A (-s) and
receive them on one connection to server B (--server-b, default the same), then print
latency-tests' report: both server RTTs, the HdrHistogram percentiles, the achieved rate and
the wall times. Latency counts from each message's intended send time (start + i/rate), so a
publisher or server that falls behind shows in the percentiles; with --size 24 or more the
latency from the actual send is printed as well. Lost messages are counted, never waited for.
Both ends run in this process on one clock, so A and B may be on any hosts (docs/latency.md).
On an embedded supercluster (--gateways) server B is the second cluster (docs/network.md).
Server telemetry is sampled as on every benchmark command (the embedded server by default;
A and B through --server-metrics or the system account): the report then ends with what the
servers counted and the latency spikes named with what happened then (docs/telemetry.md).
The rate takes a load shape as the other fixed-rate senders do: --rate A..B --ramp D, --steps
R1,R2,... --step-duration D, --arrivals poisson; the Result and the text then give each step's
rate and percentiles (docs/capacity.md).`,
		Example: `  natsperf latency                                        # embedded server, 1000 msgs/s for 5s
  natsperf latency -s nats://a:4222 --server-b nats://b:4222 --rate 1000 --duration 5s --size 512
  natsperf latency -s tls://demo.nats.io:4443 --tls-insecure --hist latency.hgrm
  natsperf latency -s nats://a:4222 --server-b nats://b:4222 --server-metrics http://a:8222,http://b:8222
  natsperf latency --steps 500,1000 --step-duration 1s --duration 2s      # a latency-vs-load curve
  natsperf latency --duration 2s --interval 250ms       # a finer series: spike lines in a short run
  natsperf latency --client-delay 5ms --duration 2s     # 5 ms one way between the clients and the server: P50 >= 10 ms
  natsperf latency --gateways 2 --gateway-delay 5ms --duration 2s   # a supercluster: publish on cluster 1, receive on cluster 2, a 5 ms gateway away`,
	}
	return a.benchCommand(cmd, "latency")
}
