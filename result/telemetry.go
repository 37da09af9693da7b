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
	Source string `json:"source"`
	// Interval is the time between two samples (a time.Duration; nanoseconds in JSON).
	Interval time.Duration `json:"interval_ns"`
	// Servers are the sampled servers, one series each; empty when no server could be sampled
	// (Errors says why).
	Servers []ServerSeries `json:"servers"`
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
	Offset time.Duration `json:"offset_ns"` // the interval's start
	// Max is the worst lateness of natsperf's 20 ms timer in the interval when 5 ms or more;
	// 0 when only RunQueue was.
	Max time.Duration `json:"max_ns"`
	// RunQueue is, on Linux, the longest any of natsperf's threads waited runnable for a CPU in the
	// interval, when 5 ms or more; 0 otherwise and elsewhere.
	RunQueue time.Duration `json:"run_queue_ns,omitempty"`
}

// ServerSeries is one server's samples.
type ServerSeries struct {
	// Name is the server's name.
	Name string `json:"name"`
	URL  string `json:"url,omitempty"` // its monitoring endpoint (monitor source)
	// ClockOffsetNS is the server's clock minus natsperf's, estimated from its /varz "now"
	// and the request's round trip; ClockUncertaintyNS bounds the estimate's error (half the
	// best round trip). Absent for embedded servers (one clock).
	ClockOffsetNS int64 `json:"clock_offset_ns,omitempty"`
	// ClockUncertaintyNS bounds ClockOffsetNS's error, in nanoseconds.
	ClockUncertaintyNS int64 `json:"clock_uncertainty_ns,omitempty"`
	// Samples are the server's readings in time order, the first just before the start barrier and
	// the last after every client ended.
	Samples []ServerSample `json:"samples"`
}

// ServerSample is one server at one instant. Counters (messages, bytes, slow consumers,
// JetStream API) are the server's totals since it started; a series' deltas are what
// happened between two samples (Counters).
type ServerSample struct {
	// Offset is when the sample was taken, from the run's start (0 for the one taken just before
	// the start barrier).
	Offset time.Duration `json:"offset_ns"`
	CPU    float64       `json:"cpu_percent"` // of one core, as /varz says
	Mem    int64         `json:"mem_bytes"`   // resident memory
	// Connections is the server's client connections at that instant.
	Connections int `json:"connections"`
	// SlowConsumers is the server's running total of slow consumers.
	SlowConsumers int64 `json:"slow_consumers"`
	// InMsgs is the server's running total of messages received from clients and routes.
	InMsgs int64 `json:"in_msgs"`
	// OutMsgs is the server's running total of messages sent.
	OutMsgs int64 `json:"out_msgs"`
	// InBytes is the server's running total of bytes received.
	InBytes int64 `json:"in_bytes"`
	// OutBytes is the server's running total of bytes sent.
	OutBytes int64 `json:"out_bytes"`
	// JSAPITotal is the server's running total of JetStream API requests (0 without JetStream).
	JSAPITotal uint64 `json:"js_api_total,omitempty"`
	// JSAPIErrors is the server's running total of JetStream API requests that failed.
	JSAPIErrors uint64 `json:"js_api_errors,omitempty"`
	// MaxPending is the most bytes the server held for one client connection, not yet
	// written to it (connz sorted by pending): a slow consumer in the making.
	MaxPending int64 `json:"max_pending_bytes,omitempty"`
	// Streams are the streams this server holds a replica of, as it sees them; empty without
	// JetStream.
	Streams []StreamSample `json:"streams,omitempty"`
}

// StreamSample is one stream as one server (a replica) saw it.
type StreamSample struct {
	// Name is the stream's name.
	Name string `json:"name"`
	// Leader is the server that leads the stream as this one sees it; empty when it knows none.
	Leader string `json:"leader,omitempty"`
	// Msgs is the messages in this server's copy of the stream.
	Msgs uint64 `json:"msgs"`
	// Bytes is the bytes of this server's copy of the stream.
	Bytes uint64 `json:"bytes"`
	// Lag is the largest replica lag (operations behind the leader) the leader reported.
	Lag uint64 `json:"lag,omitempty"`
}

// Counters are message and byte totals, what Telemetry.Counters adds up over the servers.
type Counters struct {
	// InMsgs is the messages the servers received (from clients, routes, gateways, leaf nodes).
	InMsgs int64
	// OutMsgs is the messages the servers sent.
	OutMsgs int64
	// InBytes is the bytes the servers received.
	InBytes int64
	// OutBytes is the bytes the servers sent.
	OutBytes int64
	// SlowConsumers is the slow consumers the servers counted.
	SlowConsumers int64
	// JSAPITotal is the JetStream API requests the servers handled (0 without JetStream).
	JSAPITotal uint64
	// JSAPIErrors is the JetStream API requests that failed.
	JSAPIErrors uint64
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
	Source string `json:"source"`
	// Server is the server the event is about or came from; empty when none.
	Server string `json:"server,omitempty"`
	// Stream is the stream it is about (for server_silent: the streams the server led,
	// comma-separated); empty when none.
	Stream string `json:"stream,omitempty"`
	// Consumer is the JetStream consumer it is about; empty when none.
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
