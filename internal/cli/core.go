package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"
)

func (a *app) pubCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pub SUBJECT",
		Short: "Publish core NATS messages as fast as possible or at a fixed rate",
		Long: `Publish --msgs messages of --size bytes, split across --clients publishers, each on
its own connection. Every message of 16 bytes or more starts with a stamp (publisher, sequence,
send time) so a 'natsperf sub' can measure end-to-end latency and count lost messages.`,
		Example: `  natsperf pub foo --size 16 --msgs 1000000
  natsperf pub foo --clients 4 --msgs 100k --size 16kb
  natsperf pub foo --rate 10000 --duration 3s      # fixed rate, for latency
  natsperf pub foo --rate 1000..5000 --ramp 2s --duration 2s --slo 'rate>=0.9'   # a ramp, judged
  natsperf pub foo --multisubject --multisubject-max 100`,
	}
	return a.benchCommand(cmd, "pub")
}

func (a *app) subCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "sub SUBJECT",
		Short: "Receive core NATS messages and measure throughput, latency and loss",
		Long: `Start --clients subscribers, each on its own connection and each expecting --msgs
messages (with --queue they share the messages in a queue group, so --msgs is then the total).
Measurement starts at the first message. A subscriber that gets nothing for --idle-timeout ends
and reports what arrived and what is missing; one that received none of what it expected exits
1. Run it against a
server (-s), then start a publisher in another terminal: 'natsperf server' runs one.`,
		Example: `  natsperf server &                                   # an embedded server on :4222
  natsperf sub foo -s nats://127.0.0.1:4222 --size 16 --msgs 1000000 &
  natsperf pub foo -s nats://127.0.0.1:4222 --size 16 --msgs 1000000
  natsperf sub bar -s nats://127.0.0.1:4222 --clients 4 --queue workers &   # share 100,000
  natsperf pub bar -s nats://127.0.0.1:4222 --clients 2`,
	}
	return a.benchCommand(cmd, "sub")
}

func (a *app) pubsubCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pubsub SUBJECT",
		Short: "Publishers and subscribers in one process: throughput and end-to-end latency on one clock",
		Long: `Run --pub publishers and --sub subscribers in this process (the form of the older
'nats bench SUBJECT --pub N --sub M'). --msgs is the total the publishers send; every subscriber
expects all of them (with --queue, the subscribers share them). Latency is end to end, from the
stamp in each message, on one clock.`,
		Example: `  natsperf pubsub foo --pub 1 --sub 1 --size 16 --msgs 1000000
  natsperf pubsub foo --pub 1 --sub 5 --size 16
  natsperf pubsub foo --pub 2 --sub 2 --rate 20000 --duration 3s
  natsperf pubsub foo --steps 1000,2000,4000 --step-duration 1s --duration 3s --slo 'loss=0'   # per-step results
  natsperf pubsub foo --rate 2000 --arrivals poisson --arrivals-seed 7 --duration 2s --slo 'p99.9<1s'`,
	}
	return a.benchCommand(cmd, "pubsub")
}

func (a *app) serviceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "service",
		Short: "Request-reply benchmarks: serve answers requests, request sends them",
		Example: `  natsperf server &                                   # an embedded server on :4222
  natsperf service serve foo --clients 2 -s nats://127.0.0.1:4222 &
  natsperf service request foo --clients 50 --msgs 10000 --no-progress -s nats://127.0.0.1:4222`,
	}
	cmd.AddCommand(a.serveCmd(), a.requestCmd())
	return cmd
}

func (a *app) serveCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "serve SUBJECT",
		Short: "Answer requests on SUBJECT with --clients responders in a queue group",
		Long: `Start --clients responders in the queue group "natsperf-service". Each echoes the request
payload back after --sleep (simulated processing time). They serve until Ctrl-C (or SIGTERM),
or until --msgs requests are served in total when --msgs is given, then print what they served.`,
		Example: `  natsperf service serve foo --clients 2 -s nats://127.0.0.1:4222      # until Ctrl-C
  natsperf service serve foo --sleep 1ms -s nats://127.0.0.1:4222 --msgs 10000`,
	}
	return a.benchCommand(cmd, "service serve")
}

func (a *app) requestCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "request SUBJECT",
		Short: "Send synchronous requests to SUBJECT and measure each round trip",
		Long: `Start --clients requesters, each sending its share of --msgs requests one at a time and
recording each round trip in a latency histogram. With --rate the requests follow a fixed
schedule and latency counts from each request's intended send time, so a slow service shows
in the percentiles instead of silently lowering the rate.`,
		Example: `  natsperf service serve foo -s nats://127.0.0.1:4222 &               # responders, until Ctrl-C
  natsperf service request foo -s nats://127.0.0.1:4222 --msgs 10000
  natsperf service request foo --clients 50 --size 16 --msgs 10000 --no-progress -s nats://127.0.0.1:4222
  natsperf service request foo --rate 2000 --duration 3s -s nats://127.0.0.1:4222
  natsperf service request foo --rate 2000 --duration 3s --max-inflight 200 --slo 'p99<50ms' -s nats://127.0.0.1:4222`,
	}
	return a.benchCommand(cmd, "service request")
}

// warnPrivate says, for a command that needs a second process (a publisher, a responder, a
// requester), that the embedded server it just started is reachable by nobody else: a user
// who ran 'sub' and 'pub' in two terminals without -s otherwise waits forever or reads
// "no responders" and blames the subject.
func warnPrivate(w io.Writer, embedded bool, command string) {
	if !embedded {
		return
	}
	other, ok := map[string]string{
		"sub":             "publish to it, so this subscriber receives nothing and ends after --idle-timeout (exit 1)",
		"service serve":   "send requests to it, so these responders wait until Ctrl-C",
		"service request": "answer on it, so every request finds no responders",
	}[command]
	if !ok {
		return
	}
	fmt.Fprintf(w, "natsperf: this embedded server is private to this process: no other natsperf can %s. For two terminals, run 'natsperf server' and pass -s nats://127.0.0.1:4222 to both commands.\n", other)
}
