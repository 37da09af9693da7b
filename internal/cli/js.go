package cli

import (
	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/js"
)

func (a *app) jsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "js",
		Short: "JetStream benchmarks: publish, consume (ordered, consume, fetch, push) and direct get",
		Long: `JetStream benchmarks at nats bench parity. natsperf marks every stream and consumer it
creates (metadata created-by=natsperf) and never purges or deletes anything it did not create
unless --force; 'natsperf clean' removes what it created. A read benchmark whose stream is
missing or holds fewer messages than asked creates and fills it first (setup, not measured).`,
		Example: `  natsperf js pub async jsfoo --create --storage memory
  natsperf js pub batch jsfoo --batch 100 --purge --msgs 10000
  natsperf js ordered --clients 4
  natsperf js consume --clients 4 --acks explicit
  natsperf js fetch --clients 2 --acks none
  natsperf js push --clients 2 --deliver-group workers
  natsperf js get batch --clients 2`,
	}
	cmd.AddCommand(a.jsPubCmd(), a.jsConsumerCmd(js.Ordered), a.jsConsumerCmd(js.Consume),
		a.jsConsumerCmd(js.Fetch), a.jsConsumerCmd(js.Push), a.jsGetCmd())
	return cmd
}

func (a *app) jsPubCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "pub",
		Short: "Publish to a stream: sync (one at a time), async (windows of acks), atomic (atomic batches) or fast (fast batch)",
		Example: `  natsperf js pub sync jsfoo --msgs 1000
  natsperf js pub async jsfoo --create --storage memory --msgs 10000
  natsperf js pub async jsfoo --compression s2 --payload-fill zeros --size 1kb --msgs 20000   # the Result gives the bytes on disk
  natsperf js pub async jsfoo --js-encryption aes --msgs 10000                               # the embedded server's store encrypted at rest
  natsperf js pub async jsfoo --sync-interval always --msgs 5000                             # the embedded server fsyncs every write (docs/durability.md)
  natsperf js pub fast jsfast --create --storage memory --msgs 10000 --batch 100
  natsperf js pub sync jsr3 --create --replicas 3 --link-delay 5ms --msgs 200                 # 5 ms one way on every route: P50 >= 10 ms
  natsperf js pub sync jsz --create --replicas 3 --zones 3 --zone-delay 1ms --msgs 200         # zones 1 ms apart
  natsperf js pub async jscut --create --replicas 3 --rate 500 --duration 6s --verify --fault 2s:partition --fault 4s:heal
  natsperf js pub async jsfoo --replicas 3 --server-version v2.15.3 --cluster 3 --msgs 10000 # three nats-server 2.15.3 processes (built once with go install)`,
	}
	for _, mode := range []string{js.Sync, js.Async, js.Batch, js.Fast} {
		cmd.AddCommand(a.jsPubModeCmd(mode))
	}
	return cmd
}

func (a *app) jsPubModeCmd(mode string) *cobra.Command {
	short := map[string]string{
		js.Sync:  "Publish one message at a time, waiting for each ack (latency)",
		js.Async: "Publish windows of --batch messages asynchronously, then wait for their acks (throughput)",
		js.Batch: "Publish atomic batches of --batch messages (nats-server 2.12+, stream allowing atomic publish; also 'batch')",
		js.Fast:  "Publish each client's share as one fast batch, acked every --batch messages (nats-server 2.14+, orbit.go's FastPublisher)",
	}[mode]
	use, aliases := mode, []string(nil)
	if mode == js.Batch {
		use, aliases = "atomic", []string{js.Batch} // nats bench 0.5's name; natsperf's first one stays
	}
	cmd := &cobra.Command{
		Use:     use + " SUBJECT",
		Aliases: aliases,
		Short:   short,
		Long: short + `.` + map[string]string{js.Batch: `
Differs from nats bench: --persistasync is refused (the server forbids async persistence on a
stream that allows atomic batches).`}[mode] + `
--msgs is the total, split across --clients. Latency is each message's own publish-to-ack time
(for atomic: to the commit's ack; for fast: to the flow ack that covers it). A missing stream is created with --create (always on the
embedded server) with subjects SUBJECT and SUBJECT.>; an existing one is used as it is.`,
		Example: "  natsperf js pub " + use + " jsfoo --create --storage memory --size 16 --msgs 10000",
	}
	return a.benchCommand(cmd, "js pub "+use)
}

func (a *app) jsConsumerCmd(kind string) *cobra.Command {
	fanout := kind == js.Ordered
	short := map[string]string{
		js.Ordered: "Replay the stream with an ordered ephemeral consumer per client (each client gets every message)",
		js.Consume: "Consume with a durable pull consumer shared by the clients, through the Consume callback",
		js.Fetch:   "Consume with a durable pull consumer shared by the clients, in Fetch batches",
		js.Push:    "Consume with a durable push consumer (deliver subject, flow control, heartbeats)",
	}[kind]
	msgsHelp := "--msgs is the total the clients share."
	if fanout {
		msgsHelp = "--msgs is per client: every client expects all of them, as nats bench does."
	}
	cmd := &cobra.Command{
		Use:   kind,
		Short: short,
		Long: short + `.
` + msgsHelp + ` A stream that is missing or holds fewer messages is created and filled first
(setup, not measured); with --purge or --deliver new nothing is filled and the consumers wait
for publishers (another 'natsperf js pub'). Latency is end to end, from the stamps, for messages
published after the consumers started; replayed messages count for throughput only. A client
that gets nothing for --idle-timeout ends with partial results (from the start when the
messages were already there).`,
		Example: "  natsperf js " + kind + " --clients 2 --msgs 10000",
	}
	return a.benchCommand(cmd, "js "+kind)
}

func (a *app) jsGetCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "get",
		Short: "Direct gets by sequence, one at a time (sync) or in batches (batch), without a consumer",
		Example: `  natsperf js get sync --msgs 1000
  natsperf js get batch --clients 2 --msgs 10000`,
	}
	for _, batch := range []bool{false, true} {
		cmd.AddCommand(a.jsGetModeCmd(batch))
	}
	return cmd
}

func (a *app) jsGetModeCmd(batched bool) *cobra.Command {
	mode := "sync"
	if batched {
		mode = "batch"
	}
	cmd := &cobra.Command{
		Use:   mode,
		Short: "Read the stream with " + map[bool]string{false: "one direct get per message", true: "batched direct gets of --batch messages (nats-server 2.11+)"}[batched],
		Long: `Read the stream by sequence with direct gets (the stream must allow direct access; streams
natsperf creates do). --msgs is per client: every client reads all of them from the stream's
first message, as nats bench does. A missing or short stream natsperf created is filled first.
Latency is each get's round trip (batch: from the request to each message).`,
		Example: "  natsperf js get " + mode + " --clients 2 --msgs 10000",
	}
	return a.benchCommand(cmd, "js get "+mode)
}
