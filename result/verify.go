package result

import (
	"strings"
	"time"
)

// Verify is the delivery check of a --verify run. For JetStream publishers natsperf reads the
// stream back after the run and reconciles what it holds against the acknowledgements; for
// core NATS it is what the receivers' sequence tracking saw.
type Verify struct {
	Stream string `json:"stream,omitempty"` // JetStream: the stream read back
	// Sent is what the publishers sent (core), or every publish attempted, acknowledged or not
	// (JetStream).
	Sent int64 `json:"sent"`
	// Acked is the distinct messages acknowledged (JetStream; 0 for core NATS).
	Acked int64 `json:"acked,omitempty"`
	// Stored is the distinct messages of this run found in the stream when it was read back
	// (this run's publisher ids and subjects, from the sequence the run started at); 0 when
	// the read-back failed (Error).
	Stored int64 `json:"stored"`
	// AckedButMissing is acknowledged messages not in the stream: data loss.
	AckedButMissing int64 `json:"acked_but_missing"`
	// Duplicates is the extra copies in the stream (one publisher+sequence stored at more than one
	// stream sequence).
	Duplicates int64 `json:"duplicates"`
	// StoredNotAcked is messages in the stream whose acknowledgement the publisher never got
	// (normal around a failover).
	StoredNotAcked int64 `json:"stored_not_acked"`
	// Delivered is the messages the receivers got, from the stamps (all receivers together).
	Delivered int64 `json:"delivered"`
	// Lost is the sequence gaps the receivers saw (0 with a complete JetStream read-back: see
	// NotConsumed).
	Lost int64 `json:"lost"`
	// Duplicated is messages the receivers saw more than once.
	Duplicated int64 `json:"duplicated"`
	// OutOfOrder is messages the receivers saw after a higher sequence of the same publisher.
	OutOfOrder int64 `json:"out_of_order"`
	// NotConsumed (JetStream, read back) is how many deliveries of messages the stream holds
	// the consumers did not make before they ended: not lost, the stream still has them. Lost
	// then counts none of those.
	NotConsumed int64 `json:"not_consumed,omitempty"`
	// Unavailable is the longest time without a successful ack or delivery on any client,
	// including one still open when the run ended (NotRecovered).
	Unavailable time.Duration `json:"unavailable_ns"`
	// NotRecovered: a client's time without success was still open when the run ended (a
	// publisher's acks stopped and never came back within the run).
	NotRecovered bool `json:"not_recovered,omitempty"`
	// Failed (JetStream) is the publishes attempted that were never acknowledged and are not
	// in the stream: timed out, refused or not sent (Sent = Acked + StoredNotAcked + Failed,
	// unless acknowledged ones are missing). The publisher knew; they are not data loss.
	Failed int64 `json:"failed,omitempty"`
	// Error says why the stream could not be read back; the stored figures are then unknown.
	Error string `json:"error,omitempty"`
	// Unreadable are the stream sequences the read-back could not read after every retry and
	// fallback. While there are any, an acknowledged message not found is counted in
	// AckedNotRead (it may be in them), never in AckedButMissing.
	Unreadable []SeqRange `json:"unreadable,omitempty"`
	// AckedNotRead is acknowledged messages not among the sequences read: they may be in Unreadable
	// (0 when every sequence was read).
	AckedNotRead int64 `json:"acked_not_read,omitempty"`
	// ReadRetries is how often the read-back started again from the last sequence it read (its
	// consumer stalled or failed, e.g. across a leader change); ReadByGet how many sequences it
	// read one by one with gets by sequence.
	ReadRetries int `json:"read_retries,omitempty"`
	// ReadByGet is how many sequences the read-back read one by one (see ReadRetries).
	ReadByGet int64 `json:"read_by_get,omitempty"`
	// Replicas are each node's own copy of the stream after recovery (natsperf's embedded
	// cluster), and Diverged the nodes whose copy disagrees with the most common one (split
	// brain: messages present on some nodes, not on others).
	Replicas []Replica `json:"replicas,omitempty"`
	// Diverged names the nodes whose copy differs from the one most nodes hold; empty when they
	// agree.
	Diverged []string `json:"diverged,omitempty"`
	// Note qualifies the figures, e.g. when the stream's own limits removed messages of the run.
	Note string `json:"note,omitempty"`
	// Publishers is the read-back per publisher id; empty for core NATS.
	Publishers []PublisherVerify `json:"publishers,omitempty"`
}

// Replica is one node's own copy of a stream, read from that node.
type Replica struct {
	// Node is the server's name.
	Node    string `json:"node"`
	Present bool   `json:"present"` // the node holds the stream
	// Down: the node could not be asked (not running, or not answering).
	Down bool `json:"down,omitempty"`
	// Msgs is the messages in the node's copy.
	Msgs uint64 `json:"messages"`
	// FirstSeq is the first stream sequence in the node's copy.
	FirstSeq uint64 `json:"first_seq"`
	// LastSeq is the last stream sequence in the node's copy.
	LastSeq uint64 `json:"last_seq"`
}

// SeqRange is the stream sequences First to Last, both included.
type SeqRange struct {
	// First is the first stream sequence of the range.
	First uint64 `json:"first"`
	// Last is the last stream sequence of the range (included).
	Last uint64 `json:"last"`
}

// PublisherVerify is one publisher's part of the read-back.
type PublisherVerify struct {
	ID     uint32 `json:"id"`               // the publisher id in the stamps
	Sent   int64  `json:"sent,omitempty"`   // publishes attempted
	Failed int64  `json:"failed,omitempty"` // never acknowledged and not stored
	// Acked is the distinct messages acknowledged to this publisher.
	Acked int64 `json:"acked"`
	// Stored is the distinct messages of this publisher found in the stream.
	Stored int64 `json:"stored"`
	// AckedButMissing is its acknowledged messages not in the stream: data loss.
	AckedButMissing int64 `json:"acked_but_missing"`
	// Duplicates is the extra copies of its messages in the stream.
	Duplicates int64 `json:"duplicates"`
	// StoredNotAcked is its messages in the stream whose acknowledgement it never got.
	StoredNotAcked int64 `json:"stored_not_acked"`
}

// Faults is what was done to the servers during the run and what it cost.
type Faults struct {
	// Timeline is each fault action in the order planned.
	Timeline []FaultEvent `json:"timeline"`
	// Unavailable is the longest time without a successful ack or delivery on any client;
	// ByGroup the longest per group (publishers and consumers recover at different times).
	Unavailable Gap `json:"unavailable"`
	// ByGroup is the longest time without success per group (see Unavailable); empty when no client
	// went without.
	ByGroup []Gap `json:"by_group,omitempty"`
	// NotRecovered is the longest time without success still open when its client ended:
	// the cluster had not recovered (for that client) by the end of the run. nil: recovered.
	NotRecovered *Gap `json:"not_recovered,omitempty"`
	// Publishers is, per JetStream publisher whose longest time without acks spans a fault,
	// that outage split into the wait on acks that timed out and the rest.
	Publishers []PublisherOutage `json:"publishers,omitempty"`
	// AckTimeout is the JetStream publishers' --ack-timeout (0: none published).
	AckTimeout time.Duration `json:"ack_timeout_ns,omitempty"`
	// GapMin is the shortest stretch without success the clients kept in Client.Gaps
	// (FaultGapMin; 0: a Result from before, which kept GapMin and up).
	GapMin time.Duration `json:"gap_min_ns,omitempty"`
}

// PublisherOutage is one publisher's longest time without acknowledgements around a fault:
// from its last ack before to its first ack after. Most of it is often the client waiting out
// --ack-timeout on publishes sent to the old leader (TimedOutWait), not the failover itself;
// the stream's new leader is in the fault's timeline event.
type PublisherOutage struct {
	// Group is the publisher's group name.
	Group string `json:"group"`
	// Client is the publisher's client id in its group.
	Client int    `json:"client"`
	Fault  string `json:"fault"` // the fault it began after
	// LastAckBefore is its last acknowledgement before the outage, from the run's start.
	LastAckBefore time.Duration `json:"last_ack_before_ns"`
	// FirstAckAfter is its first acknowledgement after it (its end when NotRecovered), from the
	// run's start.
	FirstAckAfter time.Duration `json:"first_ack_after_ns"`
	WithoutAcks   time.Duration `json:"without_acks_ns"`   // FirstAckAfter - LastAckBefore
	TimedOutWait  time.Duration `json:"timed_out_wait_ns"` // of it, waiting on acks that timed out
	AckTimeout    time.Duration `json:"ack_timeout_ns"`    // the publishers' --ack-timeout
	// TimedOut publishes were given up within it, the first of them sent at TimedOutFrom.
	TimedOut int64 `json:"timed_out,omitempty"`
	// TimedOutFrom is when the first of them was sent, from the run's start (0 when none timed
	// out).
	TimedOutFrom time.Duration `json:"timed_out_from_ns,omitempty"`
	// NotRecovered: no ack came after LastAckBefore; FirstAckAfter is then the publisher's end.
	NotRecovered bool `json:"not_recovered,omitempty"`
	// Refused are its publishes within it that failed fast, by reason (not timeouts).
	Refused []Refusals `json:"refused,omitempty"`
}

// FaultEvent is one action of the timeline.
type FaultEvent struct {
	Spec string `json:"spec"` // as given: "4s:kill-leader"
	// Kind is the action: kill-leader, kill, restart, pause, stepdown, exec, partition, heal,
	// delay, power-fail or corrupt (docs/faults.md).
	Kind    string        `json:"kind"`
	At      time.Duration `json:"at_ns"`      // when it was planned, from the start of the run
	Started time.Duration `json:"started_ns"` // when it began
	Took    time.Duration `json:"took_ns"`    // until the action returned (a restart: until the node is current)
	// Node is the server acted on; empty for actions on no one node (a command).
	Node string `json:"node,omitempty"`
	// NewLeader is the stream leader elected after the fault, NewLeaderAfter how long after the
	// action began the stream had it.
	NewLeader string `json:"new_leader,omitempty"`
	// NewLeaderAfter is how long after Started the stream had NewLeader (0 when none was seen).
	NewLeaderAfter time.Duration `json:"new_leader_after_ns,omitempty"`
	Detail         string        `json:"detail,omitempty"` // a command's output
	// Error says why the action failed; empty when it succeeded.
	Error   string `json:"error,omitempty"`
	Skipped bool   `json:"skipped,omitempty"` // the run ended before its time
}

// Window is a part of the run, with each group's latency in it (the phases around faults).
// Its edges are rounded to the series' --interval.
type Window struct {
	// Label names the phase: "before faults", "during 4s:kill-leader", "after 4s:kill-leader".
	Label string `json:"label"`
	// From is the window's start, from the run's start.
	From time.Duration `json:"from_ns"`
	// To is the window's end, from the run's start.
	To time.Duration `json:"to_ns"`
	// Groups are each group's messages and latency in the window; empty when none handled any.
	Groups []WindowGroup `json:"groups,omitempty"`
}

// WindowGroup is one group's messages and latency within a Window.
type WindowGroup struct {
	// Name is the group's name (Group.Name).
	Name string `json:"name"`
	// Msgs is the group's messages in the window.
	Msgs int64 `json:"msgs"`
	// Latency is the group's latency in the window; nil when it recorded none.
	Latency *Latency `json:"latency,omitempty"`
}

// Add adds the delivery check of another part of the run, one that read back its own
// publishers (another process's, another workload's), to v: counts add up, the longest
// unavailability and every error stay.
func (v *Verify) Add(pv *Verify, part string) { v.add(pv, part) }

func (v *Verify) add(pv *Verify, part string) {
	if pv.Stream != "" && !strings.Contains(","+v.Stream+",", ","+pv.Stream+",") {
		v.Stream = joinNonEmpty(v.Stream, pv.Stream, ",")
	}
	v.Sent += pv.Sent
	v.Acked += pv.Acked
	v.Stored += pv.Stored
	v.AckedButMissing += pv.AckedButMissing
	v.Duplicates += pv.Duplicates
	v.StoredNotAcked += pv.StoredNotAcked
	v.Delivered += pv.Delivered
	v.Lost += pv.Lost
	v.Duplicated += pv.Duplicated
	v.OutOfOrder += pv.OutOfOrder
	v.NotConsumed += pv.NotConsumed
	v.AckedNotRead += pv.AckedNotRead
	v.ReadRetries += pv.ReadRetries
	v.ReadByGet += pv.ReadByGet
	v.Unreadable = unionRanges(v.Unreadable, pv.Unreadable)
	v.Unavailable = max(v.Unavailable, pv.Unavailable)
	v.NotRecovered = v.NotRecovered || pv.NotRecovered
	v.Failed += pv.Failed
	if pv.Error != "" {
		v.Error = joinNonEmpty(v.Error, part+": "+pv.Error, "; ")
	}
	if pv.Note != "" && !strings.Contains(v.Note, pv.Note) {
		v.Note = joinNonEmpty(v.Note, pv.Note, "; ")
	}
	v.Publishers = append(v.Publishers, pv.Publishers...)
}
