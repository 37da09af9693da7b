package failover_test

import (
	"reflect"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/failover"
	"github.com/natsperf/natsperf/result"
)

const (
	ms = time.Millisecond
	s  = time.Second
)

// run is a 6 s Result of one publisher at a fixed rate (series every 250 ms, P99 1 ms but a
// 300 ms interval at 2.25 s), whose stream S is led by n2 until a sample at 2 s, with the
// given faults, events, stalls and the publisher's longest gap.
func run(faults []result.FaultEvent, events []result.Event, stalls []result.Stall, gap *result.Gap, outages ...result.PublisherOutage) *result.Result {
	start := time.Unix(1000, 0)
	var series []result.Interval
	for at := time.Duration(0); at < 6*s; at += 250 * ms {
		p99 := int64(ms)
		if at == 2250*ms {
			p99 = int64(300 * ms)
		}
		series = append(series, result.Interval{Offset: at, Msgs: 500, P99: p99})
	}
	var samples []result.ServerSample
	for at := time.Duration(0); at <= 2*s; at += 250 * ms {
		samples = append(samples, result.ServerSample{Offset: at, Streams: []result.StreamSample{{Name: "S", Leader: "n2"}}})
	}
	res := &result.Result{Start: start, End: start.Add(6 * s), Events: events,
		Groups: []result.Group{{Name: "pub", Series: series, Clients: []result.Client{{ID: 1, Gap: gap, End: start.Add(6 * s)}}}},
		Telemetry: &result.Telemetry{Interval: 250 * ms, Stalls: stalls,
			Servers: []result.ServerSeries{{Name: "n1"}, {Name: "n2", Samples: samples}, {Name: "n3"}}}}
	if faults != nil {
		res.Faults = &result.Faults{Timeline: faults, Publishers: outages}
	}
	result.SortEvents(res.Events)
	return res
}

var (
	kill    = result.FaultEvent{Spec: "2s:kill-leader", Kind: "kill-leader", At: 2 * s, Started: 2 * s, Node: "n2"}
	restart = result.FaultEvent{Spec: "4s:restart", Kind: "restart", At: 4 * s, Started: 4 * s, Node: "n2"}
	elected = result.Event{At: 2050 * ms, Kind: "leader_elected", Source: "advisory", Stream: "S", Server: "n3", Detail: "n2 -> n3"}
)

// TestTell checks the story on Results whose answer is known by construction.
func TestTell(t *testing.T) {
	for _, tc := range []struct {
		name string
		res  *result.Result
		want []result.Failover // Cause, At, Node, Silent, the leaders, the clients' From
	}{
		{
			// A kill and a restart: one failover, the kill's; the restart's own election is
			// none. The reading asked at 1.99 s, still waiting when the kill began, missed n2:
			// the kill's. The publisher's 0.7 s without acks, of which 23 publishes waited out
			// a 1 s ack timeout, is in it; the peak is the 300 ms interval.
			name: "kill and restart",
			res: run([]result.FaultEvent{kill, restart}, []result.Event{elected,
				{At: 1990 * ms, Kind: "server_silent", Source: "telemetry", Server: "n2", Stream: "S"},
				{At: 4500 * ms, Kind: "leader_elected", Source: "advisory", Stream: "S", Server: "n2"}}, nil,
				&result.Gap{Duration: 700 * ms, From: 2300 * ms, To: 3 * s},
				result.PublisherOutage{Group: "pub", Client: 1, LastAckBefore: 2300 * ms, TimedOut: 23, TimedOutFrom: 2 * s, AckTimeout: s}),
			want: []result.Failover{{Cause: "2s:kill-leader", At: 2 * s, Node: "n2", Silent: 1990 * ms,
				Leaders: []result.NewLeader{{Stream: "S", Leader: "n3", At: 2050 * ms, After: 50 * ms, Source: "advisory"}},
				Clients: []result.ClientOutage{{Group: "pub", Client: 1, Duration: 700 * ms, From: 2300 * ms, To: 3 * s, TimedOut: 23, TimedOutFrom: 2 * s, AckTimeout: s}}}},
		},
		{
			// The publisher's longest gap came later, 1.5 s after the new leader and beyond the
			// ack timeout: a host stall, not the failover's.
			name: "later stall",
			res: run([]result.FaultEvent{kill}, []result.Event{elected},
				[]result.Stall{{Offset: 3500 * ms, Max: 200 * ms}}, &result.Gap{Duration: 300 * ms, From: 3600 * ms, To: 3900 * ms}),
			want: []result.Failover{{Cause: "2s:kill-leader", At: 2 * s, Node: "n2",
				Leaders: []result.NewLeader{{Stream: "S", Leader: "n3", At: 2050 * ms, After: 50 * ms, Source: "advisory"}}}},
		},
		{
			// Within the ack timeout of the new leader, but natsperf's own process stalled for
			// most of it: the host's.
			name: "stall within",
			res: run([]result.FaultEvent{kill}, []result.Event{elected},
				[]result.Stall{{Offset: 2500 * ms, Max: 150 * ms}}, &result.Gap{Duration: 200 * ms, From: 2600 * ms, To: 2800 * ms},
				result.PublisherOutage{Group: "pub", Client: 1, LastAckBefore: 9 * s, AckTimeout: s}),
			want: []result.Failover{{Cause: "2s:kill-leader", At: 2 * s, Node: "n2",
				Leaders: []result.NewLeader{{Stream: "S", Leader: "n3", At: 2050 * ms, After: 50 * ms, Source: "advisory"}}}},
		},
		{
			// No fault: n2, the leader at its last answer (2 s), is missed by the reading at
			// 2.25 s; its successor's advisory came at 2.05 s. Timed from its last answer.
			name: "outside kill",
			res: run(nil, []result.Event{elected,
				{At: 2250 * ms, Kind: "server_silent", Source: "telemetry", Server: "n2", Stream: "S"}}, nil,
				&result.Gap{Duration: 100 * ms, From: 2 * s, To: 2100 * ms}),
			want: []result.Failover{{Cause: "server_silent", At: 2 * s, Node: "n2", Silent: 2250 * ms,
				Leaders: []result.NewLeader{{Stream: "S", Leader: "n3", At: 2050 * ms, After: 50 * ms, Source: "advisory"}},
				Clients: []result.ClientOutage{{Group: "pub", Client: 1, Duration: 100 * ms, From: 2 * s, To: 2100 * ms}}}},
		},
		{
			// A follower that stops answering on its own is on the timeline, no failover;
			// nor is a restart's silence.
			name: "follower silent",
			res: run([]result.FaultEvent{restart}, []result.Event{
				{At: 3 * s, Kind: "server_silent", Source: "telemetry", Server: "n1"},
				{At: 4100 * ms, Kind: "server_silent", Source: "telemetry", Server: "n2", Stream: "S"}}, nil, nil),
			want: []result.Failover{{Cause: "server_silent", At: 2 * s, Node: "n2", Silent: 4100 * ms,
				Leaders: []result.NewLeader{{Stream: "S"}}}},
		},
		{
			// The stream leader elected within 20 ms and the publisher never noticed: the
			// story still has its new leader, no client, and the run's peak in its window.
			name: "quick election",
			res: run([]result.FaultEvent{kill}, []result.Event{{At: 2020 * ms, Kind: "leader_elected", Source: "advisory", Stream: "S", Server: "n1"}}, nil,
				&result.Gap{Duration: 10 * ms, From: 500 * ms, To: 510 * ms}),
			want: []result.Failover{{Cause: "2s:kill-leader", At: 2 * s, Node: "n2",
				Leaders: []result.NewLeader{{Stream: "S", Leader: "n1", At: 2020 * ms, After: 20 * ms, Source: "advisory"}}}},
		},
		{
			// n2 missed one reading and answered the next, no election: a slow answer on a
			// loaded host, no failover.
			name: "slow answer",
			res:  slowAnswer(),
			want: nil,
		},
		{
			// n2 paused 3 s and back before any election: no new leader, n2 led it again.
			name: "paused and back",
			res:  paused(),
			want: []result.Failover{{Cause: "2s:pause:3s", At: 2 * s, Node: "n2",
				Leaders: []result.NewLeader{{Stream: "S", Kept: true}}}},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := failover.Tell(tc.res)
			if len(got) != len(tc.want) {
				t.Fatalf("%d failovers %+v, want %d", len(got), got, len(tc.want))
			}
			for i, w := range tc.want {
				g := got[i]
				if g.Cause != w.Cause || g.At != w.At || g.Node != w.Node || g.Silent != w.Silent {
					t.Errorf("failover %d %+v, want %+v", i, g, w)
				}
				if len(g.Leaders) != len(w.Leaders) || (len(w.Leaders) > 0 && g.Leaders[0] != w.Leaders[0]) {
					t.Errorf("leaders %+v, want %+v", g.Leaders, w.Leaders)
				}
				if len(g.Clients) != len(w.Clients) || (len(w.Clients) > 0 && !reflect.DeepEqual(g.Clients[0], w.Clients[0])) {
					t.Errorf("clients %+v, want %+v", g.Clients, w.Clients)
				}
				if w.Cause != "2s:pause:3s" && w.Cause != "server_silent" && (len(g.Peaks) != 1 || g.Peaks[0].P99 != int64(300*ms) || g.Peaks[0].From != 2250*ms || g.Peaks[0].Median != int64(ms)) {
					t.Errorf("peaks %+v, want the 300 ms interval at 2.25 s over a median of 1 ms", g.Peaks)
				}
			}
		})
	}
}

// paused is a run whose leader n2 is paused at 2 s for 3 s and answers the telemetry on, still
// the leader.
func paused() *result.Result {
	res := run([]result.FaultEvent{{Spec: "2s:pause:3s", Kind: "pause", At: 2 * s, Started: 2 * s, Node: "n2"}}, nil, nil, nil)
	n2 := &res.Telemetry.Servers[1]
	for at := 2250 * ms; at < 6*s; at += 250 * ms {
		n2.Samples = append(n2.Samples, result.ServerSample{Offset: at, Streams: []result.StreamSample{{Name: "S", Leader: "n2"}}})
	}
	return res
}

// slowAnswer is a run whose leader n2 missed the reading at 1 s and answered the next.
func slowAnswer() *result.Result {
	res := run(nil, []result.Event{{At: s, Kind: "server_silent", Source: "telemetry", Server: "n2", Stream: "S"}}, nil, nil)
	n2 := &res.Telemetry.Servers[1]
	var keep []result.ServerSample
	for _, smp := range n2.Samples {
		if smp.Offset != s {
			keep = append(keep, smp)
		}
	}
	n2.Samples = keep
	return res
}

// TestTellEachFailoverItsOwnGap: a publisher without acks in two failovers, longer in the
// second: each failover's block tells the client's stretch that overlaps it (kept in
// Client.Gaps), not the run's longest for both or none; and the publishes refused fast in a
// stretch (no responders while the stream had no leader) are told with it, apart from the
// ones that timed out.
func TestTellEachFailoverItsOwnGap(t *testing.T) {
	first := result.Gap{Duration: 700 * ms, From: 2000 * ms, To: 2700 * ms}
	second := result.Gap{Duration: 1500 * ms, From: 4000 * ms, To: 5500 * ms}
	refused := []result.Refusals{{Reason: "no responders", Count: 492, From: 2001 * ms, To: 2400 * ms}}
	kill2 := result.FaultEvent{Spec: "4s:kill-leader", Kind: "kill-leader", At: 4 * s, Started: 4 * s, Node: "n3"}
	res := run([]result.FaultEvent{kill, kill2}, []result.Event{elected,
		{At: 4100 * ms, Kind: "leader_elected", Source: "advisory", Stream: "S", Server: "n1"}}, nil, &second,
		result.PublisherOutage{Group: "pub", Client: 1, LastAckBefore: 2000 * ms, TimedOut: 8, TimedOutFrom: 2000 * ms, AckTimeout: 500 * ms, Refused: refused},
		result.PublisherOutage{Group: "pub", Client: 1, LastAckBefore: 4000 * ms, TimedOut: 3, TimedOutFrom: 4000 * ms, AckTimeout: 500 * ms})
	res.Groups[0].Clients[0].Gaps = []result.Gap{first, second}
	got := failover.Tell(res)
	if len(got) != 2 {
		t.Fatalf("%d failovers %+v, want 2", len(got), got)
	}
	want := []result.ClientOutage{
		{Group: "pub", Client: 1, Duration: first.Duration, From: first.From, To: first.To, TimedOut: 8, TimedOutFrom: 2 * s, AckTimeout: 500 * ms, Refused: refused},
		{Group: "pub", Client: 1, Duration: second.Duration, From: second.From, To: second.To, TimedOut: 3, TimedOutFrom: 4 * s, AckTimeout: 500 * ms},
	}
	for i, f := range got {
		if len(f.Clients) != 1 || !reflect.DeepEqual(f.Clients[0], want[i]) {
			t.Errorf("failover %d (%s) clients %+v, want %+v", i+1, f.Cause, f.Clients, want[i])
		}
	}
	// A Result from before Gaps (only the longest): the second failover has it, the first none.
	res.Groups[0].Clients[0].Gaps = nil
	got = failover.Tell(res)
	if len(got[0].Clients) != 0 || len(got[1].Clients) != 1 || got[1].Clients[0].From != second.From {
		t.Errorf("without Gaps: clients %+v and %+v, want none and the longest", got[0].Clients, got[1].Clients)
	}
}

// TestTellFailuresWithoutAStretch: a client that never went GapMin without success but had
// publishes fail in the failover (no responders during a 60 ms election, and the ones sent to
// the dying leader given up at their timeout) is told with those, once, in the failover
// whose window they fall in (From and To the first and the last, Duration 0); failures
// before the failover are not its.
func TestTellFailuresWithoutAStretch(t *testing.T) {
	res := run([]result.FaultEvent{kill}, []result.Event{elected}, nil, &result.Gap{Duration: 60 * ms, From: 2000 * ms, To: 2060 * ms},
		result.PublisherOutage{Group: "pub", Client: 1, AckTimeout: 5 * s})
	c := &res.Groups[0].Clients[0]
	c.Refused = []result.Refusals{
		{Reason: "refused by the server (400: bad)", Count: 2, From: 500 * ms, To: 600 * ms},
		{Reason: result.ReasonNoResponders, Count: 10, From: 2010 * ms, To: 2030 * ms},
		{Reason: result.ReasonNoResponders, Count: 4, From: 2040 * ms, To: 2050 * ms},
	}
	c.TimedOut = []result.Refusals{{Reason: result.ReasonTimedOut, Count: 3, From: 1990 * ms, To: 6990 * ms}}
	res.End = res.Start.Add(8 * s)
	got := failover.Tell(res)
	want := result.ClientOutage{Group: "pub", Client: 1, From: 1990 * ms, To: 6990 * ms, TimedOut: 3, TimedOutFrom: 1990 * ms, AckTimeout: 5 * s,
		Refused: []result.Refusals{{Reason: result.ReasonNoResponders, Count: 14, From: 2010 * ms, To: 2050 * ms}}}
	if len(got) != 1 || len(got[0].Clients) != 1 || !reflect.DeepEqual(got[0].Clients[0], want) {
		t.Fatalf("failovers %+v: want one, whose client is %+v", got, want)
	}
}

// TestTellTimeoutAcrossTwoFailovers: puts sent to the first dead leader are given up after the
// second failover began (the ack timeout is longer than the time between the kills). Each
// timeout is told once, by its send: in the failover whose stretch it was sent in (from the
// client's last success before it). Both stretches are shorter than result.GapMin and still
// told (a fault run keeps them).
func TestTellTimeoutAcrossTwoFailovers(t *testing.T) {
	kill2 := result.FaultEvent{Spec: "4s:kill-leader", Kind: "kill-leader", At: 4 * s, Started: 4 * s, Node: "n3"}
	first := result.Gap{Duration: 40 * ms, From: 2000 * ms, To: 2040 * ms}
	second := result.Gap{Duration: 40 * ms, From: 3990 * ms, To: 4030 * ms}
	res := run([]result.FaultEvent{kill, kill2}, []result.Event{elected,
		{At: 4020 * ms, Kind: "leader_elected", Source: "advisory", Stream: "S", Server: "n1"}}, nil, &first)
	res.End = res.Start.Add(10 * s)
	res.Faults.AckTimeout, res.Faults.GapMin = 5*s, result.FaultGapMin
	c := &res.Groups[0].Clients[0]
	c.Gaps = []result.Gap{first, second}
	c.TimedOut = []result.Refusals{
		{Reason: result.ReasonTimedOut, Count: 5, From: 1995 * ms, To: 6995 * ms}, // to the first dead leader
		{Reason: result.ReasonTimedOut, Count: 1, From: 3995 * ms, To: 8995 * ms}, // after the last ack before the second
		{Reason: result.ReasonTimedOut, Count: 2, From: 4001 * ms, To: 9001 * ms},
	}
	got := failover.Tell(res)
	if len(got) != 2 {
		t.Fatalf("%d failovers %+v, want 2", len(got), got)
	}
	want := []result.ClientOutage{
		{Group: "pub", Client: 1, Duration: first.Duration, From: first.From, To: first.To, TimedOut: 5, TimedOutFrom: 1995 * ms, AckTimeout: 5 * s},
		{Group: "pub", Client: 1, Duration: second.Duration, From: second.From, To: second.To, TimedOut: 3, TimedOutFrom: 3995 * ms, AckTimeout: 5 * s},
	}
	for i, f := range got {
		if len(f.Clients) != 1 || !reflect.DeepEqual(f.Clients[0], want[i]) {
			t.Errorf("failover %d (%s) clients %+v, want %+v", i+1, f.Cause, f.Clients, want[i])
		}
	}
}
