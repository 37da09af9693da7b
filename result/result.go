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
	// Schema is the document's format and version: Schema (or SchemaV1 in an older file that Read
	// accepted).
	Schema string `json:"schema"`
	// Tool is the build that wrote the document: natsperf, or natsperf-rust for a Result of Rust
	// clients.
	Tool Tool `json:"tool"`
	// Command is the benchmark command that ran: "pub", "pubsub", "service
	// request", "js pub async" ...
	Command string `json:"command"`
	// Settings are the resolved run settings as free-form JSON (snake_case keys at every depth;
	// durations in nanoseconds), secrets replaced by "[redacted]"; docs/result-format.md lists
	// the keys.
	Settings json.RawMessage `json:"settings,omitempty"`
	// Servers are what each server a client connected to said in its INFO, one entry per server
	// (every node natsperf started, for nats-server processes it ran); empty when no client
	// connected.
	Servers []Server `json:"servers,omitempty"`
	// Network is the topology of the servers natsperf ran and the conditions of their links;
	// nil for servers natsperf did not start.
	Network *Network `json:"network,omitempty"`
	// Host is the machine that generated the load (in a merged Result, the first part's; each Part
	// names its own).
	Host Host `json:"host"`
	// Start is when the clients passed the start barrier (RFC 3339 in JSON); every offset in the
	// document (series, gaps, events, faults) counts from it.
	Start time.Time `json:"start"`
	// End is when the last client ended.
	End time.Time `json:"end"`
	// Stop says why the run ended: Stop.Reason is one of StopCompleted, StopInterrupted, StopFailed
	// or StopIdle.
	Stop Stop `json:"stop"`
	// Groups are the run's kinds of clients, one Group each (a pubsub run has "pub" and "sub"), in
	// the order the workloads made them.
	Groups []Group `json:"groups"`
	// Streams are the JetStream streams (and KV buckets' streams) the run used, as the server
	// reported them after the run; empty for core NATS.
	Streams []StreamState `json:"streams,omitempty"`
	// Warnings are what the reader should know that is not a number (a setting that made the
	// figures less exact, a part lost), one sentence each; empty when there is nothing to say.
	Warnings []string `json:"warnings,omitempty"`
	// Verify is the delivery check of a --verify run; nil without --verify.
	Verify *Verify `json:"verify,omitempty"`
	// Faults is the fault timeline and what it cost, with --fault or --fault-exec; nil without
	// faults.
	Faults *Faults `json:"faults,omitempty"`
	// Windows are the phases of a run with faults (before, during, after each), with each group's
	// latency in each; empty without faults.
	Windows []Window `json:"windows,omitempty"`
	// Failovers tell each failover once: the new leader, each client's time without success
	// and why, and the latency peak; empty when no stream leader failed.
	Failovers []Failover `json:"failovers,omitempty"`
	// Parts are the processes whose Results Merge joined into this one; empty in a Result one
	// process wrote.
	Parts []Part `json:"parts,omitempty"`
	// CPU is what the natsperf process spent while its clients ran (getrusage); nil when it was
	// not measured.
	CPU *CPU `json:"cpu,omitempty"`
	// Distributed is how a run over natsperf agents went (--agents): the agents, their
	// clocks, the start skew and the agents lost; nil for a run in one process.
	Distributed *Distributed `json:"distributed,omitempty"`
	// LoadSteps are the steps of a run with --steps (or the intervals of a --ramp): offered
	// rate, and each group's count, rate and latency percentiles in each; empty without a shape.
	LoadSteps []LoadStep `json:"load_steps,omitempty"`
	// SLO are the verdicts of the run's thresholds (--slo), in the order given; empty without.
	SLO []Verdict `json:"slo,omitempty"`
	// Telemetry is the servers' own series during the run; nil when natsperf had no way to
	// sample them (servers it did not start, with no monitoring endpoint or system account
	// given: docs/telemetry.md).
	Telemetry *Telemetry `json:"telemetry,omitempty"`
	// Events are what happened on the run's clock (advisories, leader changes, reconnects, faults),
	// sorted by Event.At; empty when nothing was seen or the run had no telemetry.
	Events []Event `json:"events,omitempty"`
}

// Verdict is one threshold (--slo) judged on a run.
type Verdict struct {
	SLO string `json:"slo"` // as given: "p99<5ms"
	// Metric, P and Op are the threshold as read ("p", 99, "<"), so what judges a verdict
	// again (capacity) need not read its text: Metric is "p" (latency percentile P), "loss" or
	// "rate". Results from before they were recorded lack them.
	Metric string  `json:"metric,omitempty"`
	P      float64 `json:"p,omitempty"`  // the percentile of a "p" threshold (99 for p99); 0 otherwise
	Op     string  `json:"op,omitempty"` // the comparison: "<", "<=", ">", ">=" or "="
	Value  float64 `json:"value"`        // the measured value: ns for a latency, a count or a ratio
	Limit  float64 `json:"limit"`        // the threshold, in the same unit
	// Pass: Value is within Limit (false too when Missing says there was nothing to judge).
	Pass bool `json:"pass"`
	// Missing: the run measured nothing to judge (no latency recorded, no fixed rate); the
	// threshold fails.
	Missing string `json:"missing,omitempty"`
}

// Distributed is a run that natsperf agents ran, as its coordinator saw it.
type Distributed struct {
	// Agents are the agents that took part, one per part of the run.
	Agents []Agent `json:"agents"`
	// StartNS is the start instant the coordinator chose, in Unix nanoseconds on its clock.
	StartNS int64 `json:"start_ns"`
	// StartSkewNS is the spread of the agents' actual start instants on the coordinator's
	// clock (each corrected by its clock offset), in nanoseconds: only as good as the offsets'
	// uncertainty.
	StartSkewNS int64 `json:"start_skew_ns"`
	// Lost names the agents that stopped answering during the run: the Result lacks their
	// data (partial).
	Lost []string `json:"lost,omitempty"`
	// OnAgentLoss is what the run did when an agent was lost: stop or continue.
	OnAgentLoss string `json:"on_agent_loss"`
}

// Agent is one agent of a distributed run.
type Agent struct {
	// Name is the agent's name, as each of its client rows names it in Client.Part (default
	// HOST-PID).
	Name string `json:"name"`
	// ID is the agent's unique id (its micro service instance id).
	ID string `json:"id"`
	// Host is the machine it ran on; empty when it did not say.
	Host string `json:"host,omitempty"`
	// Version is the natsperf (or natsperf-rust) version of the agent.
	Version string `json:"version"`
	Client  string `json:"client,omitempty"` // go, rust
	// Part is the share of the run it ran (1-based, of Parts).
	Part int `json:"part"`
	// Parts is how many parts the run was split into.
	Parts int `json:"parts"`
	// ClockOffsetNS is the agent's clock minus the coordinator's, in nanoseconds.
	ClockOffsetNS int64 `json:"clock_offset_ns"`
	// ClockUncertaintyNS bounds ClockOffsetNS's error, in nanoseconds: half the best round
	// trip of the clock exchange.
	ClockUncertaintyNS int64 `json:"clock_uncertainty_ns"`
	// StartOffsetNS is when its clients started, on the coordinator's clock, after the chosen
	// start instant.
	StartOffsetNS int64 `json:"start_offset_ns"`
	// Lost: it stopped answering (or never sent its Result); its data is missing.
	Lost bool `json:"lost,omitempty"`
	// Error says why it was lost, or its own failure; empty when it ran its part.
	Error string `json:"error,omitempty"`
}

// CPU is the natsperf process's CPU time during the run, from the start barrier until every
// client was done (setup not included). With the embedded server it includes the server's.
type CPU struct {
	// UserSeconds is the process's user CPU time in the run, in seconds.
	UserSeconds float64 `json:"user_seconds"`
	// SysSeconds is the process's system (kernel) CPU time in the run, in seconds.
	SysSeconds float64 `json:"sys_seconds"`
	Seconds    float64 `json:"seconds"` // user + sys
	// WallSeconds is the run's wall-clock time over which the CPU was measured, in seconds.
	WallSeconds float64 `json:"wall_seconds"`
	Cores       int     `json:"cores"`      // GOMAXPROCS: the cores the process may use
	CoreShare   float64 `json:"core_share"` // seconds / (wall x cores), 0..1
	// Msgs is every message the clients handled, sent plus received (a message published and
	// received in one process counts twice); MsgsPerCPUSecond is Msgs over Seconds.
	Msgs int64 `json:"msgs"`
	// MsgsPerCPUSecond is Msgs over Seconds: messages handled per CPU second (0 when no CPU time
	// was measured).
	MsgsPerCPUSecond float64 `json:"msgs_per_cpu_second"`
	// Saturated: the process used more than 90% of its cores, so the client, not the
	// server, may have limited the run.
	Saturated bool `json:"saturated,omitempty"`
}

// StreamState is a JetStream stream (or the stream behind a KV bucket) as the server reported it
// after the run, with the storage a publisher run should have used next to it.
type StreamState struct {
	// Name is the stream's name (KV_<bucket> for a bucket's).
	Name    string `json:"name"`
	Bucket  string `json:"bucket,omitempty"` // the KV bucket the stream holds
	Storage string `json:"storage"`          // "file" or "memory"
	// Replicas is the stream's replication factor.
	Replicas int `json:"replicas"`
	// Messages is how many messages the stream held after the run.
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
	Published int64 `json:"published,omitempty"`
	// MsgSize is the publishers' payload size in bytes (publishers only, else 0).
	MsgSize int64 `json:"msg_size,omitempty"`
	// ExpectedBytes is Published x Replicas x MsgSize: the payload bytes the replicas should hold
	// at least (publishers only, else 0).
	ExpectedBytes int64 `json:"expected_bytes,omitempty"`
	// StoredBytes is Bytes x Replicas, to set against ExpectedBytes (publishers only, else 0).
	StoredBytes uint64 `json:"stored_bytes,omitempty"`
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
	// Name is "natsperf", or "natsperf-rust" for a Result the Rust client wrote.
	Name string `json:"name"`
	// Version is the build's version (a module version, or "devel" with its VCS revision).
	Version string `json:"version"`
	// Go is the Go version the build was compiled with; empty for natsperf-rust.
	Go string `json:"go"`
}

// Server is what a server said about itself in its INFO when a client connected.
type Server struct {
	// Name is the server's name (its server_name, or its id when it has none).
	Name string `json:"name"`
	// ID is the server's unique id (the server's public key).
	ID string `json:"id"`
	// Version is the nats-server version, e.g. "2.11.4".
	Version string `json:"version"`
	// Cluster is the name of the server's cluster; empty for a server not in a cluster.
	Cluster string `json:"cluster,omitempty"`
	// JetStream: the server answered $JS.API.INFO (JetStream is on for the account).
	JetStream bool   `json:"jetstream"`
	URL       string `json:"url"` // as connected, credentials removed
	// Embedded: natsperf started the server in its own process.
	Embedded bool `json:"embedded,omitempty"`
	// Encryption is how the server encrypts its JetStream store at rest: "aes" or "chacha"
	// (nats-server's ciphers), "none", or "unknown" for a server natsperf did not start (no
	// monitoring endpoint or $SYS reply of nats-server says). Absent in older Results.
	Encryption string `json:"encryption,omitempty"`
	// Process is set for a nats-server process natsperf ran (--server-bin, --server-version),
	// with its executable and what natsperf set in its config beyond names and ports.
	Process bool `json:"process,omitempty"`
	// Binary is the nats-server executable natsperf ran (Process only, else empty).
	Binary string `json:"binary,omitempty"`
	// Options are what natsperf set in the process's config beyond names and ports, by config key
	// ("jetstream.max_memory_store": bytes); empty for servers natsperf did not run as a process.
	Options map[string]any `json:"options,omitempty"`
	// SyncInterval is how natsperf's embedded server fsyncs its JetStream store: "always" or a
	// duration ("2m0s", nats-server's default). Absent for other servers and older Results.
	SyncInterval string `json:"sync_interval,omitempty"`
}

// EncryptionUnknown is Server.Encryption for a server that does not say.
const EncryptionUnknown = "unknown"

// Host is the machine that generated the load.
type Host struct {
	// Hostname is the machine's host name; empty when it could not be read.
	Hostname string `json:"hostname,omitempty"`
	// OS is the operating system, as Go's GOOS names it ("linux").
	OS string `json:"os"`
	// Arch is the architecture, as Go's GOARCH names it ("amd64").
	Arch string `json:"arch"`
	// CPUs is the number of logical CPUs the machine has.
	CPUs int `json:"cpus"`
	// Go is the Go runtime version; empty for natsperf-rust.
	Go string `json:"go"`
}

// Stop says why the run ended.
type Stop struct {
	// Reason is why the run ended: StopCompleted, StopInterrupted, StopFailed or StopIdle.
	Reason string `json:"reason"`
	// Error says what failed and why (StopFailed), or what ended the run early; empty for a
	// completed run.
	Error string `json:"error,omitempty"`
}

// Group is a set of clients doing the same thing, e.g. the publishers of a pubsub run.
type Group struct {
	Name     string `json:"name"`     // short id: "pub", "sub", "request", "serve"
	Kind     string `json:"kind"`     // as printed: "Core NATS publisher"
	Expected int64  `json:"expected"` // messages the group meant to handle in total (0: unknown)
	// Clients are the group's connections, one Client each, in id order.
	Clients []Client `json:"clients"`
	// Aggregate is the group as a whole: totals, rates, merged latency and correctness.
	Aggregate Aggregate `json:"aggregate"`
	// Series is the group's per-interval series (--interval, 1s by default), its clients merged;
	// empty when the run was shorter than one interval or recorded none.
	Series []Interval `json:"series,omitempty"`

	// TargetRate is the fixed rate the group was asked for, msgs/sec across its clients (--rate);
	// absent when it ran as fast as it could. Compare it with Aggregate.MsgsPerSec.
	TargetRate float64 `json:"target_rate,omitempty"`
	// PacePrecision is the pacing precision its fixed-rate senders ran at (the Spec's
	// pace_precision, --pace-precision, or the client's default): sends due closer together
	// went in one batch, up to this late, which the send lateness includes (from the slot);
	// the latency counts from the batch's planned wake-up (the intended send time). Absent
	// without a fixed rate (and in older Results).
	PacePrecision time.Duration `json:"pace_precision_ns,omitempty"`
	// PacePrecisionChosen marks a PacePrecision the client chose from the rate, none being set:
	// the time in which about 10 messages fall due for one wake-up (a sender's own rate, or
	// the summed rate of the senders one pacer wakes together), from 200us to 1ms in Go's
	// client (docs/latency.md, "The pacer").
	PacePrecisionChosen bool `json:"pace_precision_chosen,omitempty"`
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
	// Version is the library's version ("1.41.2").
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
	ID int `json:"id"` // 1-based, as printed in [N]
	// Expected is the messages this client meant to handle (its share of the group's); 0 when
	// open-ended.
	Expected int64 `json:"expected"`
	// Msgs is the messages the client handled (sent, received, or requests answered), warm-up
	// excluded.
	Msgs int64 `json:"msgs"`
	// Bytes is the payload bytes actually sent or received (headers not counted), warm-up excluded.
	Bytes int64 `json:"bytes"`
	// Start is the client's first counted message (or its first paced slot); the zero time when it
	// handled none.
	Start time.Time `json:"start,omitzero"`
	// End is the client's last counted message (a paced sender on schedule: the slot after its
	// last); the zero time when it handled none.
	End time.Time `json:"end,omitzero"`
	// MsgsPerSec is Msgs over End-Start, in messages per second (0 when Start equals End).
	MsgsPerSec float64 `json:"msgs_per_sec"`
	// BytesPerSec is Bytes over End-Start, in bytes per second.
	BytesPerSec float64 `json:"bytes_per_sec"`
	// Latency is the client's latency (end to end for receivers, the round trip for requesters,
	// from the intended send time at a fixed rate); nil when the client recorded none (an unpaced
	// publisher).
	Latency *Latency `json:"latency,omitempty"`
	// Breakdown splits a JetStream consumer's latency at the moment the stream stored each message;
	// nil for other clients.
	Breakdown *Breakdown `json:"breakdown,omitempty"`
	// Correctness is what the receiver's sequence tracking saw (lost, duplicated, out of order);
	// nil for senders.
	Correctness *Correctness `json:"correctness,omitempty"`
	// Events counts the anomalies the client met (errors, timeouts, reconnects...); all zero
	// (omitted in JSON) when none.
	Events Events `json:"events,omitzero"`
	// SendLateness is how late a fixed-rate sender sent its messages against their intended
	// times (actual minus intended), one per send past the warm-up: a P99 far above the gaps
	// of the schedule means the load generator, not the server, could not keep up.
	SendLateness *Latency `json:"send_lateness,omitempty"`
	// Gap is the longest time between two consecutive messages (or acks) of this client.
	Gap *Gap `json:"gap,omitempty"`
	// Gaps are its stretches without success of GapMin or more (FaultGapMin in a fault run:
	// Result.KeptGapMin) in time order, the MaxGaps longest when there were more (Gap and an
	// open one among them): each failover's own.
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
	// Duration is To - From (a time.Duration; nanoseconds in JSON).
	Duration time.Duration `json:"duration_ns"`
	// From is the last success before the gap, from the run's start.
	From time.Duration `json:"from_ns"`
	// To is the first success after it (or the client's end when Open), from the run's start.
	To    time.Duration `json:"to_ns"`
	Group string        `json:"group,omitempty"` // in Faults and Verify: the client it was seen on
	// Client is the id of that client in its group (in Faults and Verify; 0 elsewhere).
	Client int `json:"client,omitempty"`
	// Open: the stretch was still going on when the client ended (not recovered by the end of
	// the run); To is then when it ended.
	Open bool `json:"open,omitempty"`
}

// Aggregate is the group as a whole: totals over the union of the clients' intervals, and the
// spread of the per-client rates as nats bench prints it.
type Aggregate struct {
	// Msgs is the group's messages, summed over its clients, warm-up excluded.
	Msgs int64 `json:"msgs"`
	// Bytes is the group's payload bytes, summed over its clients.
	Bytes int64 `json:"bytes"`
	// Start is the earliest client Start; the zero time when no client handled a message.
	Start time.Time `json:"start,omitzero"`
	// End is the latest client End.
	End time.Time `json:"end,omitzero"`
	// MsgsPerSec is Msgs over End-Start (the union of the clients' intervals), in messages per
	// second.
	MsgsPerSec float64 `json:"msgs_per_sec"`
	// BytesPerSec is Bytes over End-Start, in bytes per second.
	BytesPerSec float64 `json:"bytes_per_sec"`
	Rates       Spread  `json:"rates"`        // msgs/sec across clients
	TimePerMsg  Spread  `json:"time_per_msg"` // ns per message (inverse rate) across clients
	// Latency is the clients' latency histograms merged exactly; nil when no client recorded
	// latency.
	Latency *Latency `json:"latency,omitempty"`
	// Breakdown is the clients' breakdowns merged (JetStream consumers only; nil otherwise).
	Breakdown *Breakdown `json:"breakdown,omitempty"`
	// Correctness is the receivers' counts together, gaps judged per publisher on the union for a
	// shared group; nil for senders.
	Correctness *Correctness `json:"correctness,omitempty"`
	// Events is the clients' anomaly counts summed.
	Events Events `json:"events,omitzero"`
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
	// PublishToStored is the latency from the (intended) publish to the stream's stored timestamp:
	// the publish, replication and storage.
	PublishToStored *Latency `json:"publish_to_stored"`
	// StoredToDelivered is the latency from the stored timestamp to the consumer's receipt: the
	// delivery.
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
	OffsetNS int64 `json:"offset_ns"`
	// UncertaintyNS bounds OffsetNS's error, in nanoseconds (0 with ClockExact or
	// ClockUncorrected).
	UncertaintyNS int64 `json:"uncertainty_ns,omitempty"`
	// Note says why a split is uncorrected.
	Note string `json:"note,omitempty"`
}

// Spread is min/avg/max/stddev of one value across clients.
type Spread struct {
	// Min is the lowest client's value.
	Min float64 `json:"min"`
	// Avg is the mean over the clients.
	Avg float64 `json:"avg"`
	// Max is the highest client's value.
	Max float64 `json:"max"`
	// StdDev is the population standard deviation over the clients (0 for one client).
	StdDev float64 `json:"stddev"`
}

// Latency summarises one HdrHistogram of nanoseconds.
type Latency struct {
	// Count is the number of latencies recorded (one per message, request or ack).
	Count int64 `json:"count"`
	// Min is the lowest latency, in nanoseconds.
	Min int64 `json:"min_ns"`
	// Mean is the mean latency, in nanoseconds.
	Mean float64 `json:"mean_ns"`
	// Max is the highest latency, in nanoseconds.
	Max int64 `json:"max_ns"`
	// StdDev is the standard deviation of the latencies, in nanoseconds.
	StdDev float64 `json:"stddev_ns"`
	// Percentiles is the percentile table, ascending by P: 10, 25, 50, 75, 90, 95, 99, 99.9 ...
	// 99.99999 and 100. At reads any percentile, from Histogram when there is one.
	Percentiles []Percentile `json:"percentiles"`
	// Histogram is the full histogram in HdrHistogram's compressed base64 encoding, readable by
	// any HdrHistogram implementation and mergeable exactly.
	Histogram string `json:"histogram,omitempty"`
	// Uncorrected, set at fixed rates, is measured from the actual send instead of the intended one.
	Uncorrected *Latency `json:"uncorrected,omitempty"`
}

// Percentile is one row of a percentile table.
type Percentile struct {
	// P is the percentile, 0-100 (99.9 for P99.9).
	P float64 `json:"p"`
	// Ns is the latency at P, in nanoseconds: P percent of the values are at most this.
	Ns int64 `json:"ns"`
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
	// OutOfOrder counts messages that arrived after a higher sequence of the same publisher.
	OutOfOrder int64 `json:"out_of_order"`
	// Expected is the unique messages the receivers waited for (0: open-ended). What of it
	// never arrived beyond each publisher's highest sequence seen is NotReceived, not Lost:
	// a receiver cannot tell messages never sent (a publisher stopped or killed) from ones
	// lost at the end.
	Expected int64 `json:"expected,omitempty"`
	// NotReceived is the part of Expected that never arrived beyond the publishers' highest
	// sequences seen (0 when open-ended).
	NotReceived int64 `json:"not_received,omitempty"`
	// HighestSeqMin and HighestSeqMax are the lowest and highest of the publishers' last
	// sequence numbers seen: where they went silent, as far as the receivers know.
	HighestSeqMin uint64 `json:"highest_seq_min,omitempty"`
	// HighestSeqMax: see HighestSeqMin.
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
	// Errors counts the operations that failed with an error (a publish refused, a request
	// answered with an error status).
	Errors int64 `json:"errors,omitempty"`
	// Timeouts counts requests or acknowledgements that did not come within their timeout.
	Timeouts int64 `json:"timeouts,omitempty"`
	// Disconnects counts the times the client's connection was lost.
	Disconnects int64 `json:"disconnects,omitempty"`
	// Reconnects counts the times the client library connected again.
	Reconnects int64 `json:"reconnects,omitempty"`
	// SlowConsumers counts the client library's slow-consumer errors.
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
	MaxInflight int64 `json:"max_inflight,omitempty"`
	// InflightFull counts the sends that waited because MaxInflight operations were awaiting
	// answers.
	InflightFull int64 `json:"inflight_full,omitempty"`
	// SendBlocked counts the open model's sends whose call took 1ms or more: the connection's
	// buffers were full because the system was not taking the bytes (or the host stalled
	// inside the call). The sends behind such a call leave late.
	SendBlocked int64 `json:"send_blocked,omitempty"`
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
	e.SendBlocked += o.SendBlocked
}

// Interval is one slice of the per-interval series of a group.
type Interval struct {
	Offset time.Duration `json:"offset_ns"` // start of the interval, from the run's start
	// Msgs is the group's messages in the interval.
	Msgs int64 `json:"msgs"`
	// Bytes is the group's payload bytes in the interval.
	Bytes int64 `json:"bytes"`
	// P50 is the interval's median latency, in nanoseconds (0 when it recorded none).
	P50 int64 `json:"p50_ns,omitempty"`
	// P90 is the interval's 90th percentile latency, in nanoseconds (0 when none).
	P90 int64 `json:"p90_ns,omitempty"`
	// P99 is the interval's 99th percentile latency, in nanoseconds (0 when none).
	P99 int64 `json:"p99_ns,omitempty"`
	// Max is the interval's highest latency, in nanoseconds (0 when none).
	Max int64 `json:"max_ns,omitempty"`
	// MaxUncorrected, at a fixed rate, is the largest latency from the actual send: when it
	// stays low while P99 jumps, the messages waited before they were sent (the load
	// generator fell behind its schedule), not in the servers.
	MaxUncorrected int64 `json:"max_uncorrected_ns,omitempty"`
	// Histogram is the interval's latency histogram (HdrHistogram V2, base64), so series
	// merge exactly.
	Histogram string `json:"histogram,omitempty"`
}
