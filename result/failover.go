package result

import "time"

// Failover is one failover told once: what caused it, the stream's new leader and when,
// each client's longest time without success in it (and why it was longer than the
// election), and the latency peak, read from the rest of the Result after the run.
type Failover struct {
	// Cause is the fault that began it ("2s:kill-leader"), or "server_silent" when a server
	// that led a stream stopped answering the telemetry without a fault of natsperf's (a node
	// killed from outside).
	Cause string        `json:"cause"`
	At    time.Duration `json:"at_ns"`          // when it began, from the run's start
	Node  string        `json:"node,omitempty"` // the leader that failed (or was made to step down)
	Until time.Duration `json:"until_ns"`       // the end of its window: the next failover, or the run's end
	// Silent is when the failed server was first missed by the telemetry (0: it was not).
	Silent time.Duration `json:"silent_ns,omitempty"`
	// Leaders are the streams the failed node led and who leads them after.
	Leaders []NewLeader `json:"leaders,omitempty"`
	// Clients are the clients whose longest time without success fell in this failover.
	Clients []ClientOutage `json:"clients,omitempty"`
	// Peaks are each group's highest interval P99 in the failover, with the run's median
	// for scale.
	Peaks []LatencyPeak `json:"peaks,omitempty"`
}

// NewLeader is one stream's leader after a failover.
type NewLeader struct {
	// Stream is the stream's name.
	Stream string        `json:"stream"`
	Leader string        `json:"leader,omitempty"` // "" when none was elected within the run
	At     time.Duration `json:"at_ns,omitempty"`  // from the run's start
	// After is At minus the failover's start (Failover.At).
	After time.Duration `json:"after_ns,omitempty"`
	// Kept: no other leader was elected and the failed one led the stream again by the end of
	// the failover's window (a paused leader that came back before an election).
	Kept bool `json:"kept,omitempty"`
	// Source is what said so: "advisory" (its leader-elected advisory), "jsz" (the first
	// sample that showed it) or "stream info" (the fault timeline's own polling).
	Source string `json:"source,omitempty"`
}

// ClientOutage is a client's longest time without success within a failover (of its Gaps). For
// a JetStream publisher, TimedOut publishes sent from TimedOutFrom were never answered and
// held its acks back until they timed out (AckTimeout), which can make its outage longer than
// the election.
type ClientOutage struct {
	// Group is the client's group name.
	Group string `json:"group"`
	// Client is its client id in the group.
	Client int `json:"client"`
	// Duration is To - From.
	Duration time.Duration `json:"duration_ns"`
	From     time.Duration `json:"from_ns"` // its last success before
	To       time.Duration `json:"to_ns"`   // its first success after, or its end when Open
	// Open: no success came after From before the client ended (not recovered).
	Open bool `json:"open,omitempty"`
	// TimedOut is how many of its publishes (or puts) were given up at their timeout that this
	// failover holds: sent from its last success before the failover (or the failover's
	// start) to the same point of the next one, so each is told in one failover (JetStream
	// publishers and KV putters; else 0).
	TimedOut int64 `json:"timed_out,omitempty"`
	// TimedOutFrom is when the first of those was sent, from the run's start.
	TimedOutFrom time.Duration `json:"timed_out_from_ns,omitempty"`
	// TimedOutWait is the part of the outage spent waiting on those publishes' acks.
	TimedOutWait time.Duration `json:"timed_out_wait_ns,omitempty"`
	// AckTimeout is the publisher's --ack-timeout.
	AckTimeout time.Duration `json:"ack_timeout_ns,omitempty"`
	// Refused are its operations that failed fast in the failover (their first failure from
	// At to Until), by reason: errors, not the timeouts above. A client with such errors but
	// no stretch without success kept (Faults.GapMin, else GapMin) has only these (Duration 0).
	Refused []Refusals `json:"refused,omitempty"`
}

// LatencyPeak is a group's highest interval P99 in a window.
type LatencyPeak struct {
	// Group is the group's name.
	Group string `json:"group"`
	// From is the start of the interval with the highest P99, from the run's start.
	From time.Duration `json:"from_ns"`
	// To is that interval's end, from the run's start.
	To time.Duration `json:"to_ns"`
	// P99 is that interval's P99 latency, in nanoseconds.
	P99 int64 `json:"p99_ns"`
	// Max is that interval's highest latency, in nanoseconds.
	Max    int64 `json:"max_ns,omitempty"`
	Median int64 `json:"median_p99_ns"` // the run's median interval P99
}
