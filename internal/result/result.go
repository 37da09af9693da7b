// Package result defines the Result document: the one JSON record of a natsperf run that every
// reporter, `report`, `compare` and the distributed coordinator read. It is plain data; the
// fields are documented in docs/result-format.md and versioned by Schema.
package result

import (
	"encoding/json"
	"sort"
	"strings"
	"time"
)

// Schema names this document format. Bump the version on any incompatible change.
// The JSON Schema of this version is schema/result.schema.json.
const Schema = "natsperf.result/v2"

// SchemaV1 is the previous version, which Read still accepts: it differs only in the core
// workloads' settings keys (settings.workload.Subject, IDs, ... before v2 made them snake_case).
const SchemaV1 = "natsperf.result/v1"

// Stop reasons.
const (
	StopCompleted   = "completed"   // every client did its share
	StopInterrupted = "interrupted" // the user pressed Ctrl-C (or the context was cancelled)
	StopFailed      = "failed"      // a connection was lost, a server died, or a client failed
	StopIdle        = "idle"        // receivers stopped after --idle-timeout without their share
)

// Result is one run.
type Result struct {
	Schema   string          `json:"schema"`
	Tool     Tool            `json:"tool"`
	Command  string          `json:"command"`            // e.g. "pub", "pubsub", "service request"
	Settings json.RawMessage `json:"settings,omitempty"` // the resolved run settings, secrets redacted
	Servers  []Server        `json:"servers,omitempty"`
	Network  *Network        `json:"network,omitempty"` // the servers natsperf ran: topology and links
	Host     Host            `json:"host"`
	Start    time.Time       `json:"start"`
	End      time.Time       `json:"end"`
	Stop     Stop            `json:"stop"`
	Groups   []Group         `json:"groups"`
	Streams  []StreamState   `json:"streams,omitempty"` // JetStream: the streams (and KV buckets) after the run
	Warnings []string        `json:"warnings,omitempty"`
	// Verify is the delivery check of a --verify run; Faults the fault timeline of a run with
	// --fault or --fault-exec; Windows the latencies per phase of such a run.
	Verify  *Verify  `json:"verify,omitempty"`
	Faults  *Faults  `json:"faults,omitempty"`
	Windows []Window `json:"windows,omitempty"`
	// Failovers tell each failover once (internal/failover): the new leader, each client's
	// time without success and why, and the latency peak.
	Failovers []Failover `json:"failovers,omitempty"`
	// Parts are the processes whose Results Merge joined into this one (merge.go).
	Parts []Part `json:"parts,omitempty"`
	// CPU is what the natsperf process spent while its clients ran (getrusage).
	CPU *CPU `json:"cpu,omitempty"`
	// Distributed is how a run over natsperf agents went (--agents): the agents, their
	// clocks, the start skew and the agents lost.
	Distributed *Distributed `json:"distributed,omitempty"`
	// LoadSteps are the steps of a run with --steps (or the intervals of a --ramp): offered
	// rate, and each group's count, rate and latency percentiles in each.
	LoadSteps []LoadStep `json:"load_steps,omitempty"`
	// SLO are the verdicts of the run's thresholds (--slo), in the order given.
	SLO []Verdict `json:"slo,omitempty"`
	// Telemetry is the servers' own series during the run; Events what happened on the
	// run's clock (advisories, leader changes, reconnects, faults), sorted by time.
	Telemetry *Telemetry `json:"telemetry,omitempty"`
	Events    []Event    `json:"events,omitempty"`
}

// Verdict is one threshold (--slo) judged on a run.
type Verdict struct {
	SLO   string  `json:"slo"`   // as given: "p99<5ms"
	Value float64 `json:"value"` // the measured value: ns for a latency, a count or a ratio
	Limit float64 `json:"limit"` // the threshold, in the same unit
	Pass  bool    `json:"pass"`
	// Missing: the run measured nothing to judge (no latency recorded, no fixed rate); the
	// threshold fails.
	Missing string `json:"missing,omitempty"`
}

// Distributed is a run that natsperf agents ran, as its coordinator saw it.
type Distributed struct {
	Agents []Agent `json:"agents"`
	// StartNS is the start instant the coordinator chose (Unix ns, its clock); StartSkewNS the
	// spread of the agents' actual start instants on the coordinator's clock (each corrected
	// by its clock offset), so it is only as good as the offsets' uncertainty.
	StartNS     int64 `json:"start_ns"`
	StartSkewNS int64 `json:"start_skew_ns"`
	// Lost names the agents that stopped answering during the run: the Result lacks their
	// data (partial).
	Lost []string `json:"lost,omitempty"`
	// OnAgentLoss is what the run did when an agent was lost: stop or continue.
	OnAgentLoss string `json:"on_agent_loss"`
}

// Agent is one agent of a distributed run.
type Agent struct {
	Name    string `json:"name"`
	ID      string `json:"id"`
	Host    string `json:"host,omitempty"`
	Version string `json:"version"`
	Client  string `json:"client,omitempty"` // go, rust
	// Part is the share of the run it ran (1-based, of Parts).
	Part  int `json:"part"`
	Parts int `json:"parts"`
	// ClockOffsetNS is the agent's clock minus the coordinator's; ClockUncertaintyNS bounds
	// its error (half the best round trip of the clock exchange).
	ClockOffsetNS      int64 `json:"clock_offset_ns"`
	ClockUncertaintyNS int64 `json:"clock_uncertainty_ns"`
	// StartOffsetNS is when its clients started, on the coordinator's clock, after the chosen
	// start instant.
	StartOffsetNS int64 `json:"start_offset_ns"`
	// Lost: it stopped answering (or never sent its Result); Error: why, or its own failure.
	Lost  bool   `json:"lost,omitempty"`
	Error string `json:"error,omitempty"`
}

// CPU is the natsperf process's CPU time during the run, from the start barrier until every
// client was done (setup not included). With the embedded server it includes the server's.
type CPU struct {
	UserSeconds float64 `json:"user_seconds"`
	SysSeconds  float64 `json:"sys_seconds"`
	Seconds     float64 `json:"seconds"` // user + sys
	WallSeconds float64 `json:"wall_seconds"`
	Cores       int     `json:"cores"`      // GOMAXPROCS: the cores the process may use
	CoreShare   float64 `json:"core_share"` // seconds / (wall x cores), 0..1
	// Msgs is every message the clients handled, sent plus received (a message published and
	// received in one process counts twice); MsgsPerCPUSecond is Msgs over Seconds.
	Msgs             int64   `json:"msgs"`
	MsgsPerCPUSecond float64 `json:"msgs_per_cpu_second"`
	// Saturated: the process used more than 90% of its cores, so the client, not the
	// server, may have limited the run.
	Saturated bool `json:"saturated,omitempty"`
}

// StreamState is a JetStream stream (or the stream behind a KV bucket) as the server reported it
// after the run, with the storage a publisher run should have used next to it.
type StreamState struct {
	Name     string `json:"name"`
	Bucket   string `json:"bucket,omitempty"` // the KV bucket the stream holds
	Storage  string `json:"storage"`          // "file" or "memory"
	Replicas int    `json:"replicas"`
	Messages uint64 `json:"messages"`
	Bytes    uint64 `json:"bytes"` // as the server reports it, for one replica (before compression)
	// Compression is the stream's compression at rest from its configuration: "s2" or "none"
	// (absent in Results before it was recorded).
	Compression string `json:"compression,omitempty"`
	// DiskBytes is what the stream's message blocks occupy on disk, every replica, after
	// compression and encryption: read from the store directory, so only for natsperf's
	// embedded server (absent for other servers, whose disks natsperf cannot see).
	DiskBytes uint64 `json:"disk_bytes,omitempty"`
	// CreatedByNatsperf is set when natsperf created the stream (natsperf clean removes it).
	CreatedByNatsperf bool `json:"created_by_natsperf,omitempty"`
	// For publishers: messages acknowledged in this run, their payload size, and the estimate
	// published x replicas x size against the server's bytes x replicas.
	Published     int64  `json:"published,omitempty"`
	MsgSize       int64  `json:"msg_size,omitempty"`
	ExpectedBytes int64  `json:"expected_bytes,omitempty"`
	StoredBytes   uint64 `json:"stored_bytes,omitempty"`
}

// PacePrecision is the coarsest pacing precision of the Result's paced groups (0: none was
// paced, or the Result predates the record).
func (r *Result) PacePrecision() time.Duration {
	var d time.Duration
	for _, g := range r.Groups {
		d = max(d, g.PacePrecision)
	}
	return d
}

// Complete reports whether the run finished its work.
func (r *Result) Complete() bool { return r.Stop.Reason == StopCompleted }

// Tool identifies the natsperf build that wrote the document.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
	Go      string `json:"go"`
}

// Server is what a server said about itself in its INFO when a client connected.
type Server struct {
	Name      string `json:"name"`
	ID        string `json:"id"`
	Version   string `json:"version"`
	Cluster   string `json:"cluster,omitempty"`
	JetStream bool   `json:"jetstream"`
	URL       string `json:"url"` // as connected, credentials removed
	Embedded  bool   `json:"embedded,omitempty"`
	// Encryption is how the server encrypts its JetStream store at rest: "aes" or "chacha"
	// (nats-server's ciphers), "none", or "unknown" for a server natsperf did not start (no
	// monitoring endpoint or $SYS reply of nats-server says). Absent in older Results.
	Encryption string `json:"encryption,omitempty"`
	// Process is set for a nats-server process natsperf ran (--server-bin, --server-version),
	// with its executable and what natsperf set in its config beyond names and ports.
	Process bool           `json:"process,omitempty"`
	Binary  string         `json:"binary,omitempty"`
	Options map[string]any `json:"options,omitempty"`
	// SyncInterval is how natsperf's embedded server fsyncs its JetStream store: "always" or a
	// duration ("2m0s", nats-server's default). Absent for other servers and older Results.
	SyncInterval string `json:"sync_interval,omitempty"`
}

// EncryptionUnknown is Server.Encryption for a server that does not say.
const EncryptionUnknown = "unknown"

// Host is the machine that generated the load.
type Host struct {
	Hostname string `json:"hostname,omitempty"`
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPUs     int    `json:"cpus"`
	Go       string `json:"go"`
}

// Stop says why the run ended.
type Stop struct {
	Reason string `json:"reason"`
	Error  string `json:"error,omitempty"`
}

// Group is a set of clients doing the same thing, e.g. the publishers of a pubsub run.
type Group struct {
	Name      string     `json:"name"`     // short id: "pub", "sub", "request", "serve"
	Kind      string     `json:"kind"`     // as printed: "Core NATS publisher"
	Expected  int64      `json:"expected"` // messages the group meant to handle in total (0: unknown)
	Clients   []Client   `json:"clients"`
	Aggregate Aggregate  `json:"aggregate"`
	Series    []Interval `json:"series,omitempty"`

	// TargetRate is the fixed rate the group was asked for, msgs/sec across its clients (--rate);
	// absent when it ran as fast as it could. Compare it with Aggregate.MsgsPerSec.
	TargetRate float64 `json:"target_rate,omitempty"`
	// PacePrecision is the pacing precision its fixed-rate senders ran at (the Spec's
	// pace_precision, --pace-precision, or the client's default): sends due closer together
	// went in one batch, up to this late, which the send lateness includes (from the slot);
	// the latency counts from the batch's planned wake-up (the intended send time). Absent
	// without a fixed rate (and in older Results).
	PacePrecision time.Duration `json:"pace_precision_ns,omitempty"`
	// Shared marks a queue group (or a shared durable consumer): the clients split the
	// messages, so losses are judged on the group's total.
	Shared bool `json:"shared,omitempty"`
	// Estimated marks an Expected that only says when to stop (a receiver's default --msgs):
	// losses are then judged by sequence gaps alone.
	Estimated bool `json:"estimated,omitempty"`
	// Client is the client library every client of the group used; absent in a merged group
	// whose clients used different ones (each client row names its own).
	Client *ClientLib `json:"client,omitempty"`
}

// ClientLib is the NATS client library a client measured through, and its version.
type ClientLib struct {
	Library string `json:"library"` // "nats.go", "async-nats"
	Version string `json:"version"`
}

// Libraries returns the client libraries of the Result's clients, sorted and joined with
// "+" ("async-nats+nats.go" for a merged Go and Rust run). Results written before the
// libraries were recorded are named by their tool: natsperf is nats.go, natsperf-rust
// async-nats.
func (r *Result) Libraries() string {
	seen := map[string]bool{}
	for _, g := range r.Groups {
		if g.Client != nil {
			seen[g.Client.Library] = true
		}
		for _, c := range g.Clients {
			if c.Client != nil {
				seen[c.Client.Library] = true
			}
		}
	}
	if len(seen) == 0 {
		switch r.Tool.Name {
		case "natsperf-rust":
			return "async-nats"
		case "natsperf":
			return "nats.go"
		}
		return ""
	}
	libs := make([]string, 0, len(seen))
	for l := range seen {
		libs = append(libs, l)
	}
	sort.Strings(libs)
	return strings.Join(libs, "+")
}

// Client is one connection's share of the work.
type Client struct {
	ID          int          `json:"id"` // 1-based, as printed in [N]
	Expected    int64        `json:"expected"`
	Msgs        int64        `json:"msgs"`
	Bytes       int64        `json:"bytes"`
	Start       time.Time    `json:"start,omitzero"`
	End         time.Time    `json:"end,omitzero"`
	MsgsPerSec  float64      `json:"msgs_per_sec"`
	BytesPerSec float64      `json:"bytes_per_sec"`
	Latency     *Latency     `json:"latency,omitempty"`
	Breakdown   *Breakdown   `json:"breakdown,omitempty"`
	Correctness *Correctness `json:"correctness,omitempty"`
	Events      Events       `json:"events,omitzero"`
	// SendLateness is how late a fixed-rate sender sent its messages against their intended
	// times (actual minus intended), one per send past the warm-up: a P99 far above the gaps
	// of the schedule means the load generator, not the server, could not keep up.
	SendLateness *Latency `json:"send_lateness,omitempty"`
	// Gap is the longest time between two consecutive messages (or acks) of this client.
	Gap *Gap `json:"gap,omitempty"`
	// Gaps are its stretches without success of GapMin or more in time order, the MaxGaps
	// longest when there were more (Gap and an open one among them): each failover's own.
	Gaps []Gap `json:"gaps,omitempty"`
	// Refused are its operations that failed fast (not timeouts), in runs of one reason, in
	// time order: a fault run's JetStream publishers, for the failover story.
	Refused []Refusals `json:"refused,omitempty"`
	// TimedOut are its operations given up at their timeout, in runs whose waits overlapped
	// (From: the first one's send, To: the last one's give-up), in time order: the same runs.
	TimedOut []Refusals `json:"timed_out,omitempty"`
	// NotRecovered is the client's time without success that was still open when it ended:
	// operations failed after its last success (a publisher whose acks stopped and never came
	// back within the run).
	NotRecovered *Gap `json:"not_recovered,omitempty"`
	// Part names the process the client ran in, in a merged Result (Result.Parts).
	Part string `json:"part,omitempty"`
	// Client is the client library this connection used.
	Client *ClientLib `json:"client,omitempty"`
}

// Gap is a stretch of time without a successful operation, as offsets from the run's start.
type Gap struct {
	Duration time.Duration `json:"duration_ns"`
	From     time.Duration `json:"from_ns"`
	To       time.Duration `json:"to_ns"`
	Group    string        `json:"group,omitempty"`  // in Faults and Verify: the client it was seen on
	Client   int           `json:"client,omitempty"` //
	// Open: the stretch was still going on when the client ended (not recovered by the end of
	// the run); To is then when it ended.
	Open bool `json:"open,omitempty"`
}

// Aggregate is the group as a whole: totals over the union of the clients' intervals, and the
// spread of the per-client rates as nats bench prints it.
type Aggregate struct {
	Msgs        int64        `json:"msgs"`
	Bytes       int64        `json:"bytes"`
	Start       time.Time    `json:"start,omitzero"`
	End         time.Time    `json:"end,omitzero"`
	MsgsPerSec  float64      `json:"msgs_per_sec"`
	BytesPerSec float64      `json:"bytes_per_sec"`
	Rates       Spread       `json:"rates"`        // msgs/sec across clients
	TimePerMsg  Spread       `json:"time_per_msg"` // ns per message (inverse rate) across clients
	Latency     *Latency     `json:"latency,omitempty"`
	Breakdown   *Breakdown   `json:"breakdown,omitempty"`
	Correctness *Correctness `json:"correctness,omitempty"`
	Events      Events       `json:"events,omitzero"`
	// SendLateness merges the clients' (Client.SendLateness).
	SendLateness *Latency `json:"send_lateness,omitempty"`
}

// Breakdown splits a JetStream consumer's end-to-end latency at the moment the stream stored
// each message (the timestamp in its metadata): publish -> stored (the publish, replication
// and storage) and stored -> delivered (the consumer's delivery). Per message the two add up
// to the end-to-end latency; their percentiles do not add. The stream's timestamp is the
// server's clock: exact on one host; across hosts put on natsperf's clock by the server's
// estimated clock offset (Clock).
type Breakdown struct {
	PublishToStored   *Latency `json:"publish_to_stored"`
	StoredToDelivered *Latency `json:"stored_to_delivered"`
	// Clock says how the split point (the server's clock) was put on natsperf's; nil in a
	// Result written before natsperf said so.
	Clock *StoredClock `json:"clock,omitempty"`
}

// The bases of a StoredClock.
const (
	ClockExact       = "exact"       // the servers share natsperf's clock (embedded)
	ClockEstimated   = "estimated"   // corrected by the server's estimated clock offset
	ClockUncorrected = "uncorrected" // no estimate: split on the server's clock as it is
)

// StoredClock is how a breakdown's split point, a stream's timestamp on the server's clock,
// was put on natsperf's clock: the offset subtracted from every timestamp, and how well it is
// known.
type StoredClock struct {
	// Basis is ClockExact, ClockEstimated or ClockUncorrected.
	Basis string `json:"basis"`
	// Server is the server whose clock offset was applied: the leader of the stream, which
	// stamps its messages (estimated).
	Server string `json:"server,omitempty"`
	// OffsetNS is that server's clock minus natsperf's, estimated from its monitoring reply's
	// "now" and the request's round trip before the run; UncertaintyNS bounds the estimate's
	// error (half the round trip). The true split is within UncertaintyNS of the one printed.
	OffsetNS      int64 `json:"offset_ns"`
	UncertaintyNS int64 `json:"uncertainty_ns,omitempty"`
	// Note says why a split is uncorrected.
	Note string `json:"note,omitempty"`
}

// Spread is min/avg/max/stddev of one value across clients.
type Spread struct {
	Min    float64 `json:"min"`
	Avg    float64 `json:"avg"`
	Max    float64 `json:"max"`
	StdDev float64 `json:"stddev"`
}

// Latency summarises one HdrHistogram of nanoseconds.
type Latency struct {
	Count       int64        `json:"count"`
	Min         int64        `json:"min_ns"`
	Mean        float64      `json:"mean_ns"`
	Max         int64        `json:"max_ns"`
	StdDev      float64      `json:"stddev_ns"`
	Percentiles []Percentile `json:"percentiles"`
	// Histogram is the full histogram in HdrHistogram's compressed base64 encoding, readable by
	// any HdrHistogram implementation and mergeable exactly.
	Histogram string `json:"histogram,omitempty"`
	// Uncorrected, set at fixed rates, is measured from the actual send instead of the intended one.
	Uncorrected *Latency `json:"uncorrected,omitempty"`
}

// Percentile is one row of a percentile table.
type Percentile struct {
	P  float64 `json:"p"`
	Ns int64   `json:"ns"`
}

// Correctness is what the sequence numbers in the stamps say about delivery.
type Correctness struct {
	Received   int64 `json:"received"`   // stamped messages received
	Unstamped  int64 `json:"unstamped"`  // messages without a natsperf stamp (too small or foreign)
	Publishers int   `json:"publishers"` // distinct publishers seen
	Lost       int64 `json:"lost"`       // sequence gaps below the highest sequence seen
	// Failed are gaps that were publishes known to have failed and never been stored (the
	// publishers were told, and a --verify read-back did not find them): not lost.
	Failed int64 `json:"failed,omitempty"`
	// NotConsumed are gaps a complete --verify read-back found in the stream: messages it
	// holds that this receiver did not consume before it ended; not lost.
	NotConsumed int64 `json:"not_consumed,omitempty"`
	Duplicated  int64 `json:"duplicated"` // seen more than once
	OutOfOrder  int64 `json:"out_of_order"`
	// Expected is the unique messages the receivers waited for (0: open-ended). What of it
	// never arrived beyond each publisher's highest sequence seen is NotReceived, not Lost:
	// a receiver cannot tell messages never sent (a publisher stopped or killed) from ones
	// lost at the end.
	Expected    int64 `json:"expected,omitempty"`
	NotReceived int64 `json:"not_received,omitempty"`
	// HighestSeqMin and HighestSeqMax are the lowest and highest of the publishers' last
	// sequence numbers seen: where they went silent, as far as the receivers know.
	HighestSeqMin uint64 `json:"highest_seq_min,omitempty"`
	HighestSeqMax uint64 `json:"highest_seq_max,omitempty"`
	// PerPublisher, on a group's aggregate, is what the receivers together saw of each
	// publisher (sorted by id), so the Results of several processes merge exactly: a publisher
	// heard in two parts is counted once, and a queue group's gaps are judged on the union.
	PerPublisher []PublisherSeen `json:"per_publisher,omitempty"`
}

// PublisherSeen is what a group's receivers saw of one publisher's sequence.
type PublisherSeen struct {
	ID       uint32 `json:"id"`          // the publisher id in the stamps
	Highest  uint64 `json:"highest_seq"` // the highest sequence any receiver saw
	Distinct int64  `json:"distinct"`    // distinct sequences, added up over the receivers
}

// Events counts the anomalies a client met; they are data, not log lines.
type Events struct {
	Errors        int64 `json:"errors,omitempty"`
	Timeouts      int64 `json:"timeouts,omitempty"`
	Disconnects   int64 `json:"disconnects,omitempty"`
	Reconnects    int64 `json:"reconnects,omitempty"`
	SlowConsumers int64 `json:"slow_consumers,omitempty"`
	Dropped       int64 `json:"dropped,omitempty"` // messages the client library dropped
	// NotSent are a fixed-rate JetStream publisher's sends that could not go out at their
	// scheduled time because its whole window of publishes was still awaiting acks (the acks
	// stopped): counted as sent and failed, never stored.
	NotSent int64 `json:"not_sent,omitempty"`
	// MaxInflight is the open model's bound on operations awaiting answers (service request,
	// js pub sync, kv put at a fixed rate), summed over the clients; InflightFull counts the
	// sends that waited for an answer because the bound was reached: they left late, and the
	// latency from the intended send time includes the wait.
	MaxInflight  int64 `json:"max_inflight,omitempty"`
	InflightFull int64 `json:"inflight_full,omitempty"`
}

// Add accumulates o into e.
func (e *Events) Add(o Events) {
	e.Errors += o.Errors
	e.Timeouts += o.Timeouts
	e.Disconnects += o.Disconnects
	e.Reconnects += o.Reconnects
	e.SlowConsumers += o.SlowConsumers
	e.Dropped += o.Dropped
	e.NotSent += o.NotSent
	e.MaxInflight += o.MaxInflight
	e.InflightFull += o.InflightFull
}

// Interval is one slice of the per-interval series of a group.
type Interval struct {
	Offset time.Duration `json:"offset_ns"` // start of the interval, from the run's start
	Msgs   int64         `json:"msgs"`
	Bytes  int64         `json:"bytes"`
	P50    int64         `json:"p50_ns,omitempty"`
	P90    int64         `json:"p90_ns,omitempty"`
	P99    int64         `json:"p99_ns,omitempty"`
	Max    int64         `json:"max_ns,omitempty"`
	// MaxUncorrected, at a fixed rate, is the largest latency from the actual send: when it
	// stays low while P99 jumps, the messages waited before they were sent (the load
	// generator fell behind its schedule), not in the servers.
	MaxUncorrected int64 `json:"max_uncorrected_ns,omitempty"`
	// Histogram is the interval's latency histogram (HdrHistogram V2, base64), so series
	// merge exactly.
	Histogram string `json:"histogram,omitempty"`
}
