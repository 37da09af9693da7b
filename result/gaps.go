package result

import "time"

// Refusals are a client's operations that failed fast for one reason within a stretch of
// time (refused by the server, "no responders" while a stream had no leader, never sent),
// unlike the ones that timed out: how many, the first and the last.
type Refusals struct {
	Reason string        `json:"reason"`  // the error's text, or one of the Reason constants
	Count  int64         `json:"count"`   // how many operations failed for it
	From   time.Duration `json:"from_ns"` // the first, from the run's start
	To     time.Duration `json:"to_ns"`   // the last
}

// AddByReason adds r to rs, one entry per reason in the order each first came: r's count joins
// its reason's, and its time widens the reason's from-to.
func AddByReason(rs []Refusals, r Refusals) []Refusals {
	for i := range rs {
		if rs[i].Reason == r.Reason {
			rs[i].Count += r.Count
			rs[i].From, rs[i].To = min(rs[i].From, r.From), max(rs[i].To, r.To)
			return rs
		}
	}
	return append(rs, r)
}

// Refusals' reasons that no error text gives.
const (
	// ReasonNoResponders: no server took the operation (nats "no responders", status 503):
	// the stream had no leader to store it, as during an election.
	ReasonNoResponders = "no responders"
	// ReasonConnLost: the connection dropped with the operation sent and unanswered. Unlike
	// the other reasons its outcome is unknown: the server may have stored it.
	ReasonConnLost = "connection lost"
	// ReasonNotSent: a fixed-rate send never went out, its window all awaiting acks.
	ReasonNotSent = "not sent"
	// ReasonTimedOut: given up unanswered at the timeout (Client.TimedOut's runs).
	ReasonTimedOut = "timed out"
)

// GapMin is the shortest stretch without success a client keeps in Client.Gaps, and MaxGaps
// how many it keeps (the longest, when more).
const (
	GapMin  = 100 * time.Millisecond // shorter stretches are not kept
	MaxGaps = 16                     // at most this many stretches per client
)

// FaultGapMin is the shortest stretch without success a client keeps in a fault run: a client
// back 40 ms after a failover has that stretch told in the failover's block (a good result),
// while runs without faults keep Client.Gaps to GapMin and up.
const FaultGapMin = 10 * time.Millisecond

// KeptGapMin is the shortest stretch the Result's clients kept in Client.Gaps: FaultGapMin
// when the run recorded it (Faults.GapMin), else GapMin.
func (r *Result) KeptGapMin() time.Duration {
	if r.Faults != nil && r.Faults.GapMin > 0 {
		return r.Faults.GapMin
	}
	return GapMin
}

// Stretches are the client's stretches without success of GapMin or more: the ones it kept
// (Gaps), else its longest when that long (a Result from before Gaps, or a client that keeps
// only that).
func (c *Client) Stretches() []Gap {
	if len(c.Gaps) > 0 {
		return c.Gaps
	}
	if c.Gap != nil && c.Gap.Duration >= GapMin {
		return []Gap{*c.Gap}
	}
	return nil
}
