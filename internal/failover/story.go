package failover

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/spike"
	"github.com/natsperf/natsperf/result"
)

// Fault kinds that bring a node back or heal a link: they end an outage, never begin a
// failover, whatever leader election follows them.
var notFailover = map[string]bool{"restart": true, "heal": true}

// Fault kinds that act on the stream leader by definition.
var onLeader = map[string]bool{"kill-leader": true, "stepdown": true}

// Tell returns the Result's failovers in time order, each told once: what began it (a fault
// of natsperf's that acted on a stream leader, or a leader that stopped answering the
// telemetry on its own), the stream's new leader from its leader-elected advisory, each
// client's longest time without success in it with the publishes that waited out the ack
// timeout and the ones refused fast (by reason), and the latency peak. It is pure: a Result in, the story out.
func Tell(res *result.Result) []result.Failover {
	runEnd := res.End.Sub(res.Start)
	if runEnd <= 0 {
		for _, g := range res.Groups {
			for _, c := range g.Clients {
				runEnd = max(runEnd, c.End.Sub(res.Start))
			}
		}
	}
	sample := time.Second // the telemetry's interval: a reading may take up to that
	if t := res.Telemetry; t != nil && t.Interval > 0 {
		sample = t.Interval
	}
	out := openers(res, sample)
	sort.SliceStable(out, func(a, b int) bool { return out[a].At < out[b].At })
	for i := range out {
		out[i].Until = runEnd
		if i+1 < len(out) {
			out[i].Until = out[i+1].At
		}
	}
	for i := range out {
		newLeaders(res, &out[i])
		kept(res, &out[i])
	}
	used := map[[3]any]bool{} // group, client, from: a client's stretch is told once
	picks := make([]map[client]result.Gap, len(out))
	for i := range out {
		picks[i] = stretches(res, &out[i], used)
	}
	for i := range out {
		clients(res, out, i, picks)
		out[i].Peaks = peaks(res, &out[i])
	}
	return out
}

// client is a client of a group.
type client struct {
	group string
	id    int
}

// openers are the failovers' beginnings, one per fault or silent leader.
func openers(res *result.Result, sample time.Duration) []result.Failover {
	var out []result.Failover
	var faults []result.FaultEvent
	if res.Faults != nil {
		faults = res.Faults.Timeline
	}
	byFault := map[int]int{} // timeline index -> failover index
	for i, ev := range faults {
		if ev.Skipped || notFailover[ev.Kind] || (ev.Error != "" && ev.Kind != "exec") {
			continue
		}
		led := ledBy(leadersAt(res, ev.Started), ev.Node)
		if !onLeader[ev.Kind] && len(led) == 0 && ev.NewLeader == "" {
			continue // a follower, a link, a command: unless a leader went silent with it (below)
		}
		node := ev.Node
		if len(led) > 0 {
			node = led[0].leader
		}
		f := result.Failover{Cause: ev.Spec, At: ev.Started, Node: node}
		for _, l := range led {
			f.Leaders = append(f.Leaders, result.NewLeader{Stream: l.stream})
		}
		byFault[i] = len(out)
		out = append(out, f)
	}
	for _, e := range res.Events {
		if e.Kind != "server_silent" {
			continue
		}
		i := faultOf(faults, e, sample)
		if i < 0 && e.Stream == "" {
			continue // a follower went silent on its own: on the timeline, no failover
		}
		if i >= 0 {
			j, ok := byFault[i]
			if !ok {
				if e.Stream == "" {
					continue // silenced by a fault that touched no leader
				}
				j = len(out)
				byFault[i] = j
				out = append(out, result.Failover{Cause: faults[i].Spec, At: faults[i].Started, Node: e.Server})
			}
			f := &out[j]
			if f.Silent == 0 && (f.Node == "" || strings.Contains(","+f.Node+",", ","+e.Server+",")) {
				f.Silent = e.At // the reading may have been asked for just before the fault
				if f.Node == "" {
					f.Node = e.Server
				}
				addStreams(f, e.Stream)
			}
			continue
		}
		// It failed after its last answer: the failover is timed from there (the new leader
		// may well be elected before the reading that missed it).
		f := result.Failover{Cause: "server_silent", At: lastAnswer(res, e.Server, e.At), Node: e.Server, Silent: e.At}
		if hiccup(res, f, e.Stream, sample) {
			continue
		}
		addStreams(&f, e.Stream)
		out = append(out, f)
	}
	return out
}

// hiccup reports whether a silent leader was only slow to answer (a loaded host): it answered
// again within two readings and no stream it led elected another leader meanwhile.
func hiccup(res *result.Result, f result.Failover, streams string, sample time.Duration) bool {
	back := false
	if res.Telemetry != nil {
		for _, s := range res.Telemetry.Servers {
			for _, smp := range s.Samples {
				back = back || (s.Name == f.Node && smp.Offset > f.Silent && smp.Offset <= f.Silent+2*sample)
			}
		}
	}
	if !back {
		return false
	}
	for _, e := range res.Events {
		if (e.Kind == "leader_elected" || e.Kind == "leader_change") && e.At >= f.At && e.Server != f.Node &&
			strings.Contains(","+streams+",", ","+e.Stream+",") {
			return false
		}
	}
	return true
}

// lastAnswer is the offset of server's last sample before at (at itself when none).
func lastAnswer(res *result.Result, server string, at time.Duration) time.Duration {
	last := at
	if res.Telemetry == nil {
		return last
	}
	for _, s := range res.Telemetry.Servers {
		if s.Name != server {
			continue
		}
		for _, smp := range s.Samples {
			if smp.Offset < at {
				last = smp.Offset
			}
		}
	}
	return last
}

func addStreams(f *result.Failover, streams string) {
	for _, s := range strings.Split(streams, ",") {
		if s == "" {
			continue
		}
		known := false
		for _, l := range f.Leaders {
			known = known || l.Stream == s
		}
		if !known {
			f.Leaders = append(f.Leaders, result.NewLeader{Stream: s})
		}
	}
}

// faultOf is the fault a silent server belongs to: the last one acting on it (or a command,
// whose node is not known) that began before the reading that missed it could have ended
// (asked at e.At, up to one interval long: a reading still waiting when the fault began
// missed the server because of it). -1 when none did, or the last one brought it back (a
// restart): then it went silent on its own.
func faultOf(faults []result.FaultEvent, e result.Event, sample time.Duration) int {
	found := -1
	for i, f := range faults {
		if f.Skipped || f.Started > e.At+sample {
			continue
		}
		if notFailover[f.Kind] && f.Started > e.At {
			continue // brought back after the reading that missed it was asked: not why it was silent
		}
		switch {
		case strings.Contains(","+f.Node+",", ","+e.Server+","):
			found = i
		case f.Kind == "exec" && f.Started >= e.At-2*sample:
			found = i
		}
	}
	if found >= 0 && notFailover[faults[found].Kind] {
		return -1
	}
	return found
}

type led struct{ stream, leader string }

// ledBy is which of leaders' streams nodes (comma-separated) led.
func ledBy(leaders map[string]string, nodes string) []led {
	var out []led
	for stream, l := range leaders {
		if nodes != "" && strings.Contains(","+nodes+",", ","+l+",") {
			out = append(out, led{stream, l})
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].stream < out[b].stream })
	return out
}

// leadersAt is each stream's leader as known at t: the servers' last samples before it (a
// leader's own word first), then the leader changes told up to t.
func leadersAt(res *result.Result, t time.Duration) map[string]string {
	out := map[string]string{}
	if tel := res.Telemetry; tel != nil {
		for _, s := range tel.Servers {
			var last *result.ServerSample
			for i := range s.Samples {
				if s.Samples[i].Offset <= t {
					last = &s.Samples[i]
				}
			}
			if last == nil {
				continue
			}
			for _, st := range last.Streams {
				if st.Leader != "" && (out[st.Name] == "" || st.Leader == s.Name) {
					out[st.Name] = st.Leader
				}
			}
		}
	}
	for _, e := range res.Events {
		if e.At <= t && (e.Kind == "leader_elected" || e.Kind == "leader_change") && e.Stream != "" && e.Server != "" {
			out[e.Stream] = e.Server
		}
	}
	return out
}

// newLeaders fills each stream's new leader: its first leader-elected advisory naming
// another server in the failover's window, else the first sample that showed one, else the
// fault timeline's own polling.
func newLeaders(res *result.Result, f *result.Failover) {
	if len(f.Leaders) == 0 { // the streams are not known (no telemetry): the first one elected
		for _, e := range res.Events {
			if e.Kind == "leader_elected" && e.At >= f.At && e.At < f.Until && e.Server != f.Node {
				f.Leaders = append(f.Leaders, result.NewLeader{Stream: e.Stream})
				break
			}
		}
	}
	for i := range f.Leaders {
		l := &f.Leaders[i]
		for _, source := range []string{"advisory", "jsz"} {
			for _, e := range res.Events {
				if l.Leader == "" && e.Source == source && (e.Kind == "leader_elected" || e.Kind == "leader_change") &&
					e.Stream == l.Stream && e.Server != "" && e.Server != f.Node && e.At >= f.At && e.At < f.Until {
					l.Leader, l.At, l.After, l.Source = e.Server, e.At, e.At-f.At, source
				}
			}
		}
	}
	if res.Faults == nil {
		return
	}
	for _, ev := range res.Faults.Timeline {
		if ev.Spec != f.Cause || ev.Started != f.At || ev.NewLeader == "" {
			continue
		}
		if len(f.Leaders) == 0 {
			f.Leaders = append(f.Leaders, result.NewLeader{})
		}
		if l := &f.Leaders[0]; l.Leader == "" {
			l.Leader, l.At, l.After, l.Source = ev.NewLeader, ev.Started+ev.NewLeaderAfter, ev.NewLeaderAfter, "stream info"
		}
	}
}

// kept marks the streams that had no new leader because the failed one led them again: it
// answered the telemetry after the failover began, and the last samples of the window name
// it (a paused leader back before an election).
func kept(res *result.Result, f *result.Failover) {
	if res.Telemetry == nil || f.Node == "" {
		return
	}
	back := false
	for _, s := range res.Telemetry.Servers {
		for _, smp := range s.Samples {
			back = back || (s.Name == f.Node && smp.Offset > max(f.At, f.Silent) && smp.Offset <= f.Until)
		}
	}
	if !back {
		return
	}
	end := leadersAt(res, f.Until)
	for i := range f.Leaders {
		l := &f.Leaders[i]
		l.Kept = l.Leader == "" && end[l.Stream] == f.Node
	}
}

// settled is when the failover was over for the servers: its last new leader, or the end of
// its window when a stream had none.
func settled(f *result.Failover) time.Duration {
	if len(f.Leaders) == 0 {
		return f.Until
	}
	var s time.Duration
	for _, l := range f.Leaders {
		if l.Leader == "" {
			return f.Until
		}
		s = max(s, l.At)
	}
	return s
}

// stretches are each client's longest time without success that belongs to the failover (of
// its kept stretches, result.Client.Gaps): it ended after the failover began and began before
// the failover settled plus what the client's acks could still wait (the ack timeout) plus a
// series interval. A stretch that began after the new leader (or an interval after the
// failover began) while natsperf's own process stalled at least half its length is the
// host's, not the failover's. The stretch the election itself is in comes first (one that
// began before the new leader), then one within an interval of it, then the longest. Each
// stretch is told once (used).
func stretches(res *result.Result, f *result.Failover, used map[[3]any]bool) map[client]result.Gap {
	ackTimeout := ackTimeoutOf(res)
	leader := settled(f)
	out := map[client]result.Gap{}
	for _, g := range res.Groups {
		width := spike.Interval(g.Series)
		for _, c := range g.Clients {
			var best *result.Gap
			bestTier := 0
			for _, gap := range c.Stretches() {
				if gap.Duration <= 0 || used[[3]any{g.Name, c.ID, gap.From}] {
					continue
				}
				wait := ackTimeout
				if wait == 0 && c.Events.Timeouts > 0 {
					wait = f.Until // publishes timed out, after a wait not known here (a run without --fault)
				}
				if gap.To <= f.At || gap.From >= f.Until || gap.From > leader+wait+width {
					continue
				}
				if gap.From >= min(leader, f.At+width) && HostStall(res, gap.From, gap.To) >= gap.Duration/2 {
					continue
				}
				// A later stretch within the ack timeout may be longer (publishes given up at
				// the run's end) without being the failover's.
				tier := 0
				switch {
				case gap.From <= leader && gap.To > f.At:
					tier = 2
				case gap.From < leader+width && gap.To > f.At:
					tier = 1
				}
				if best == nil || tier > bestTier || (tier == bestTier && gap.Duration > best.Duration) {
					best, bestTier = &gap, tier
				}
			}
			if best != nil {
				used[[3]any{g.Name, c.ID, best.From}] = true
				out[client{g.Name, c.ID}] = *best
			}
		}
	}
	return out
}

// ackTimeoutOf is the longest ack timeout of the Result's senders.
func ackTimeoutOf(res *result.Result) time.Duration {
	if res.Faults == nil {
		return 0
	}
	t := res.Faults.AckTimeout
	for _, o := range res.Faults.Publishers {
		t = max(t, o.AckTimeout)
	}
	return t
}

// clients tells failover i's clients: each one's stretch (picks[i]), its operations that failed
// fast in the failover's window (by the time of the first failure of each run), and its
// operations given up at their timeout that the failover holds (sentIn). Each timeout and each
// refusal is told in one failover only.
func clients(res *result.Result, all []result.Failover, i int, picks []map[client]result.Gap) {
	f := &all[i]
	var outages []result.PublisherOutage
	if res.Faults != nil {
		outages = res.Faults.Publishers
	}
	ackTimeout := ackTimeoutOf(res)
	for _, g := range res.Groups {
		for _, c := range g.Clients {
			k := client{g.Name, c.ID}
			from, to := sentIn(all, i, k, picks)
			refused := within(c.Refused, f.At, f.Until)
			gap, ok := picks[i][k]
			if !ok {
				// Failures, but no stretch kept without success: the ones in the window.
				o := result.ClientOutage{Group: g.Name, Client: c.ID, Refused: refused}
				timedOut(&o, c.TimedOut, f, from, to, ackTimeout)
				if len(refused) > 0 || o.TimedOut > 0 {
					o.From, o.To = span(o, c.TimedOut, f, from, to)
					f.Clients = append(f.Clients, o)
				}
				continue
			}
			o := result.ClientOutage{Group: g.Name, Client: c.ID, Duration: gap.Duration, From: gap.From, To: gap.To, Open: gap.Open, Refused: refused}
			for _, p := range outages {
				if p.Group == g.Name && p.Client == c.ID && p.LastAckBefore == gap.From {
					o.TimedOut, o.TimedOutFrom, o.TimedOutWait, o.AckTimeout = p.TimedOut, p.TimedOutFrom, p.TimedOutWait, p.AckTimeout
					if len(o.Refused) == 0 {
						o.Refused = p.Refused // a Result from before Client.Refused
					}
				}
			}
			if len(c.TimedOut) > 0 {
				o.TimedOut, o.TimedOutFrom = 0, 0
				timedOut(&o, c.TimedOut, f, from, to, ackTimeout)
			}
			f.Clients = append(f.Clients, o)
		}
	}
}

// sentIn is when an operation of client k given up at its timeout must have been sent to be
// failover i's: from the start of its stretch in it (its last success before, when before the
// failover began) or else the failover's start, to the same point of the next failover. So a
// timeout waiting through two failovers is told once, by its send: in the failover whose
// stretch it was sent in (a publish sent to a leader that dies a moment later is that
// failover's). Before the first failover there is no bound: a publish sent then and given up
// after the first failover began waited through it.
func sentIn(all []result.Failover, i int, k client, picks []map[client]result.Gap) (from, to time.Duration) {
	start := func(j int) time.Duration {
		s := all[j].At
		if g, ok := picks[j][k]; ok && g.From < s {
			s = g.From
		}
		if j > 0 {
			s = max(s, all[j-1].At) // never before the previous failover began
		}
		return s
	}
	from, to = math.MinInt64, math.MaxInt64
	if i > 0 {
		from = start(i)
	}
	if i+1 < len(all) {
		to = start(i + 1)
	}
	return from, to
}

// timedOut adds to o the client's operations given up at their timeout that failover f holds:
// sent from from to before to (sentIn), given up after it began (in the open model the ones
// sent to a dying leader are given up seconds after the client is back).
func timedOut(o *result.ClientOutage, runs []result.Refusals, f *result.Failover, from, to, ackTimeout time.Duration) {
	for _, r := range runs {
		if r.From < from || r.From >= to || r.To < f.At {
			continue
		}
		if o.TimedOut == 0 || r.From < o.TimedOutFrom {
			o.TimedOutFrom = r.From
		}
		o.TimedOut += r.Count
		o.AckTimeout = max(o.AckTimeout, ackTimeout)
	}
}

// span is from the first to the last failure of a client with no stretch told: its From and
// To, with Duration 0.
func span(o result.ClientOutage, timedOut []result.Refusals, f *result.Failover, sentFrom, sentTo time.Duration) (from, to time.Duration) {
	first := true
	add := func(a, b time.Duration) {
		if first || a < from {
			from = a
		}
		if first || b > to {
			to = b
		}
		first = false
	}
	for _, r := range o.Refused {
		add(r.From, r.To)
	}
	for _, r := range timedOut {
		if r.From >= sentFrom && r.From < sentTo && r.To >= f.At {
			add(r.From, r.To)
		}
	}
	return from, to
}

// within sums a client's runs of fast failures that began from from to before to, by reason
// in the order each first came.
func within(runs []result.Refusals, from, to time.Duration) []result.Refusals {
	var out []result.Refusals
	for _, r := range runs {
		if r.From < from || r.From >= to {
			continue
		}
		out = result.AddByReason(out, r)
	}
	return out
}

// HostStall is the worst stall of natsperf's own process from from to to.
func HostStall(res *result.Result, from, to time.Duration) time.Duration {
	if res.Telemetry == nil {
		return 0
	}
	iv := res.Telemetry.Interval
	if iv <= 0 {
		iv = time.Second
	}
	var worst time.Duration
	for _, s := range res.Telemetry.Stalls {
		if s.Offset < to && s.Offset+iv > from {
			worst = max(worst, s.Max, s.RunQueue)
		}
	}
	return worst
}

// peaks are each group's highest interval P99 from an interval before the failover to an
// interval after it settled (its last new leader or client back), within its window: a leader
// elected in 20 ms may leave no rise at all, and a later restart's is not its.
func peaks(res *result.Result, f *result.Failover) []result.LatencyPeak {
	end := settled(f)
	for _, c := range f.Clients {
		end = max(end, c.To)
	}
	var out []result.LatencyPeak
	for _, g := range res.Groups {
		var p99s []int64
		for _, iv := range g.Series {
			if iv.P99 > 0 {
				p99s = append(p99s, iv.P99)
			}
		}
		if len(p99s) == 0 {
			continue
		}
		width := spike.Interval(g.Series)
		var best *result.LatencyPeak
		for _, iv := range g.Series {
			if iv.Offset+width <= f.At || iv.Offset > end+width || iv.Offset >= f.Until {
				continue
			}
			if best == nil || iv.P99 > best.P99 {
				best = &result.LatencyPeak{Group: g.Name, From: iv.Offset, To: iv.Offset + width, P99: iv.P99, Max: iv.Max, Median: spike.Median(p99s)}
			}
		}
		if best != nil {
			out = append(out, *best)
		}
	}
	return out
}

// Spike reports whether a peak is a spike by rule (spike.Default: the text report's).
func Spike(p *result.LatencyPeak, rule spike.Rule) bool {
	return p != nil && p.P99 > max(int64(rule.Multiple*float64(p.Median)), p.Median+int64(rule.MinExcess))
}
