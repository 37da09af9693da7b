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
	// Publishers' side: messages sent (core) and acknowledged (JetStream).
	Sent  int64 `json:"sent"`
	Acked int64 `json:"acked,omitempty"`
	// Read back from the stream: distinct messages of this run found, acknowledged ones not
	// found, extra copies (one publisher+sequence stored at more than one stream sequence),
	// and messages stored whose acknowledgement never arrived (normal around a failover).
	Stored          int64 `json:"stored"`
	AckedButMissing int64 `json:"acked_but_missing"`
	Duplicates      int64 `json:"duplicates"`
	StoredNotAcked  int64 `json:"stored_not_acked"`
	// Receivers' side, from the stamps (all receivers together).
	Delivered  int64 `json:"delivered"`
	Lost       int64 `json:"lost"`
	Duplicated int64 `json:"duplicated"`
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
	Unreadable   []SeqRange `json:"unreadable,omitempty"`
	AckedNotRead int64      `json:"acked_not_read,omitempty"`
	// ReadRetries is how often the read-back started again from the last sequence it read (its
	// consumer stalled or failed, e.g. across a leader change); ReadByGet how many sequences it
	// read one by one with gets by sequence.
	ReadRetries int   `json:"read_retries,omitempty"`
	ReadByGet   int64 `json:"read_by_get,omitempty"`
	// Replicas are each node's own copy of the stream after recovery (natsperf's embedded
	// cluster), and Diverged the nodes whose copy disagrees with the most common one (split
	// brain: messages present on some nodes, not on others).
	Replicas []Replica `json:"replicas,omitempty"`
	Diverged []string  `json:"diverged,omitempty"`
	// Note qualifies the figures, e.g. when the stream's own limits removed messages of the run.
	Note       string            `json:"note,omitempty"`
	Publishers []PublisherVerify `json:"publishers,omitempty"`
}

// Replica is one node's own copy of a stream, read from that node.
type Replica struct {
	Node     string `json:"node"`
	Present  bool   `json:"present"` // the node holds the stream
	Down     bool   `json:"down,omitempty"`
	Msgs     uint64 `json:"messages"`
	FirstSeq uint64 `json:"first_seq"`
	LastSeq  uint64 `json:"last_seq"`
}

// SeqRange is the stream sequences First to Last, both included.
type SeqRange struct {
	First uint64 `json:"first"`
	Last  uint64 `json:"last"`
}

// PublisherVerify is one publisher's part of the read-back.
type PublisherVerify struct {
	ID              uint32 `json:"id"`               // the publisher id in the stamps
	Sent            int64  `json:"sent,omitempty"`   // publishes attempted
	Failed          int64  `json:"failed,omitempty"` // never acknowledged and not stored
	Acked           int64  `json:"acked"`
	Stored          int64  `json:"stored"`
	AckedButMissing int64  `json:"acked_but_missing"`
	Duplicates      int64  `json:"duplicates"`
	StoredNotAcked  int64  `json:"stored_not_acked"`
}

// Faults is what was done to the servers during the run and what it cost.
type Faults struct {
	Timeline []FaultEvent `json:"timeline"`
	// Unavailable is the longest time without a successful ack or delivery on any client;
	// ByGroup the longest per group (publishers and consumers recover at different times).
	Unavailable Gap   `json:"unavailable"`
	ByGroup     []Gap `json:"by_group,omitempty"`
	// NotRecovered is the longest time without success still open when its client ended:
	// the cluster had not recovered (for that client) by the end of the run. nil: recovered.
	NotRecovered *Gap `json:"not_recovered,omitempty"`
	// Publishers is, per JetStream publisher whose longest time without acks spans a fault,
	// that outage split into the wait on acks that timed out and the rest.
	Publishers []PublisherOutage `json:"publishers,omitempty"`
	// AckTimeout is the JetStream publishers' --ack-timeout (0: none published).
	AckTimeout time.Duration `json:"ack_timeout_ns,omitempty"`
}

// PublisherOutage is one publisher's longest time without acknowledgements around a fault:
// from its last ack before to its first ack after. Most of it is often the client waiting out
// --ack-timeout on publishes sent to the old leader (TimedOutWait), not the failover itself;
// the stream's new leader is in the fault's timeline event.
type PublisherOutage struct {
	Group         string        `json:"group"`
	Client        int           `json:"client"`
	Fault         string        `json:"fault"` // the fault it began after
	LastAckBefore time.Duration `json:"last_ack_before_ns"`
	FirstAckAfter time.Duration `json:"first_ack_after_ns"`
	WithoutAcks   time.Duration `json:"without_acks_ns"`   // FirstAckAfter - LastAckBefore
	TimedOutWait  time.Duration `json:"timed_out_wait_ns"` // of it, waiting on acks that timed out
	AckTimeout    time.Duration `json:"ack_timeout_ns"`    // the publishers' --ack-timeout
	// TimedOut publishes were given up within it, the first of them sent at TimedOutFrom.
	TimedOut     int64         `json:"timed_out,omitempty"`
	TimedOutFrom time.Duration `json:"timed_out_from_ns,omitempty"`
	// NotRecovered: no ack came after LastAckBefore; FirstAckAfter is then the publisher's end.
	NotRecovered bool `json:"not_recovered,omitempty"`
	// Refused are its publishes within it that failed fast, by reason (not timeouts).
	Refused []Refusals `json:"refused,omitempty"`
}

// FaultEvent is one action of the timeline.
type FaultEvent struct {
	Spec    string        `json:"spec"` // as given: "4s:kill-leader"
	Kind    string        `json:"kind"`
	At      time.Duration `json:"at_ns"`      // when it was planned, from the start of the run
	Started time.Duration `json:"started_ns"` // when it began
	Took    time.Duration `json:"took_ns"`    // until the action returned (a restart: until the node is current)
	Node    string        `json:"node,omitempty"`
	// NewLeader is the stream leader elected after the fault, NewLeaderAfter how long after the
	// action began the stream had it.
	NewLeader      string        `json:"new_leader,omitempty"`
	NewLeaderAfter time.Duration `json:"new_leader_after_ns,omitempty"`
	Detail         string        `json:"detail,omitempty"` // a command's output
	Error          string        `json:"error,omitempty"`
	Skipped        bool          `json:"skipped,omitempty"` // the run ended before its time
}

// Window is a part of the run, with each group's latency in it (the phases around faults).
// Its edges are rounded to the series' --interval.
type Window struct {
	Label  string        `json:"label"`
	From   time.Duration `json:"from_ns"`
	To     time.Duration `json:"to_ns"`
	Groups []WindowGroup `json:"groups,omitempty"`
}

// WindowGroup is one group's messages and latency within a Window.
type WindowGroup struct {
	Name    string   `json:"name"`
	Msgs    int64    `json:"msgs"`
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
