package result

import (
	"sort"
	"time"
)

// Telemetry is what the servers said about themselves during the run, sampled every
// Interval on the run's clock (offsets from Start, as the groups' series): one series per
// server whatever the number of clients or agents.
type Telemetry struct {
	// Source is where the samples came from: "embedded" (the servers in this process, read
	// in-process), "monitor" (HTTP monitoring endpoints, --server-metrics) or "sys" (the system
	// account's $SYS.REQ.SERVER.PING requests, --sys-user/--sys-creds or --server-metrics sys).
	Source   string         `json:"source"`
	Interval time.Duration  `json:"interval_ns"`
	Servers  []ServerSeries `json:"servers"`
	// Stalls are the intervals in which natsperf's own process stalled (a 20 ms timer fired
	// at least 5 ms late; the worst per interval): the load generator's host, not the servers
	// (though embedded servers share the process and stall with it).
	Stalls []Stall `json:"stalls,omitempty"`
	// Errors are the sampling failures (a monitoring endpoint that did not answer), each
	// once with how many times it happened.
	Errors []string `json:"errors,omitempty"`
}

// Stall is how natsperf's own process was held up in one interval: the worst delay of its
// timer, and the most any one of its threads waited runnable for a CPU (Linux: a thread the
// host kept off its CPU stalls the goroutine it runs, which a timer elsewhere does not see).
type Stall struct {
	Offset   time.Duration `json:"offset_ns"` // the interval's start
	Max      time.Duration `json:"max_ns"`
	RunQueue time.Duration `json:"run_queue_ns,omitempty"`
}

// ServerSeries is one server's samples.
type ServerSeries struct {
	Name string `json:"name"`
	URL  string `json:"url,omitempty"` // its monitoring endpoint (monitor source)
	// ClockOffsetNS is the server's clock minus natsperf's, estimated from its /varz "now"
	// and the request's round trip; ClockUncertaintyNS bounds the estimate's error (half the
	// best round trip). Absent for embedded servers (one clock).
	ClockOffsetNS      int64          `json:"clock_offset_ns,omitempty"`
	ClockUncertaintyNS int64          `json:"clock_uncertainty_ns,omitempty"`
	Samples            []ServerSample `json:"samples"`
}

// ServerSample is one server at one instant. Counters (messages, bytes, slow consumers,
// JetStream API) are the server's totals since it started; a series' deltas are what
// happened between two samples (Counters).
type ServerSample struct {
	Offset        time.Duration `json:"offset_ns"`
	CPU           float64       `json:"cpu_percent"` // of one core, as /varz says
	Mem           int64         `json:"mem_bytes"`   // resident memory
	Connections   int           `json:"connections"`
	SlowConsumers int64         `json:"slow_consumers"`
	InMsgs        int64         `json:"in_msgs"`
	OutMsgs       int64         `json:"out_msgs"`
	InBytes       int64         `json:"in_bytes"`
	OutBytes      int64         `json:"out_bytes"`
	JSAPITotal    uint64        `json:"js_api_total,omitempty"`
	JSAPIErrors   uint64        `json:"js_api_errors,omitempty"`
	// MaxPending is the most bytes the server held for one client connection, not yet
	// written to it (connz sorted by pending): a slow consumer in the making.
	MaxPending int64          `json:"max_pending_bytes,omitempty"`
	Streams    []StreamSample `json:"streams,omitempty"`
}

// StreamSample is one stream as one server (a replica) saw it.
type StreamSample struct {
	Name   string `json:"name"`
	Leader string `json:"leader,omitempty"`
	Msgs   uint64 `json:"msgs"`
	Bytes  uint64 `json:"bytes"`
	// Lag is the largest replica lag (operations behind the leader) the leader reported.
	Lag uint64 `json:"lag,omitempty"`
}

// Counters are message and byte totals.
type Counters struct {
	InMsgs, OutMsgs, InBytes, OutBytes int64
	SlowConsumers                      int64
	JSAPITotal, JSAPIErrors            uint64
}

// Counters is what every server counted between its first and last sample, added up over
// the servers. A counter that went down (the server restarted) counts from zero again.
func (t *Telemetry) Counters() Counters {
	var c Counters
	for _, s := range t.Servers {
		for i := 1; i < len(s.Samples); i++ {
			a, b := &s.Samples[i-1], &s.Samples[i]
			c.InMsgs += grew(a.InMsgs, b.InMsgs)
			c.OutMsgs += grew(a.OutMsgs, b.OutMsgs)
			c.InBytes += grew(a.InBytes, b.InBytes)
			c.OutBytes += grew(a.OutBytes, b.OutBytes)
			c.SlowConsumers += grew(a.SlowConsumers, b.SlowConsumers)
			c.JSAPITotal += uint64(grew(int64(a.JSAPITotal), int64(b.JSAPITotal)))
			c.JSAPIErrors += uint64(grew(int64(a.JSAPIErrors), int64(b.JSAPIErrors)))
		}
	}
	return c
}

// grew is how much a counter grew from a to b; after a restart (b < a) it is b.
func grew(a, b int64) int64 {
	if b < a {
		return b
	}
	return b - a
}

// Event is something that happened during the run, on the run's clock: what the servers
// announced (JetStream advisories), what the samples showed (a stream leader change, slow
// consumers), what natsperf's clients met (disconnects, reconnects) and the faults it
// injected.
type Event struct {
	At time.Duration `json:"at_ns"` // from the run's start
	// Kind: leader_elected, quorum_lost, consumer_leader_elected, consumer_quorum_lost,
	// max_deliveries, nak, terminated, slow_consumer, leader_change, disconnect, reconnect,
	// fault, server_silent (a server that answered the telemetry stopped answering: Stream
	// names the streams it led at its last answer).
	Kind string `json:"kind"`
	// Source: advisory ($JS.EVENT.ADVISORY.>), jsz or varz (seen between two samples: At is
	// the sample that showed it), client, fault, telemetry (server_silent: At is when the
	// reading it did not answer was asked for).
	Source   string `json:"source"`
	Server   string `json:"server,omitempty"`
	Stream   string `json:"stream,omitempty"`
	Consumer string `json:"consumer,omitempty"`
	Client   string `json:"client,omitempty"` // "pub 1": the group and client id
	// Detail says what changed: "n2 -> n3" for a leader, the fault's spec, a count.
	Detail string `json:"detail,omitempty"`
}

// SortEvents orders events by time, keeping the order of simultaneous ones.
func SortEvents(ev []Event) {
	sort.SliceStable(ev, func(a, b int) bool { return ev[a].At < ev[b].At })
}

// mergeEvents are the parts' events on the merged Result's clock (each part's offsets are
// from its own start), in time order; a part's client is named after the part. Telemetry
// is not merged: whoever holds the target samples it, never a part.
func mergeEvents(in []Input, start time.Time) []Event {
	var out []Event
	for _, p := range in {
		shift := p.Result.Start.Sub(start)
		for _, e := range p.Result.Events {
			e.At += shift
			if e.Client != "" && len(in) > 1 {
				e.Client = p.Name + " " + e.Client
			}
			out = append(out, e)
		}
	}
	SortEvents(out)
	return out
}
