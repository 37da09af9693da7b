// Package spike finds the intervals of a run whose latency jumped and names what happened
// on the servers and clients around them (the Result's events). It is pure: a Result in,
// spikes out.
package spike

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/natsperf/natsperf/result"
)

// Rule says when an interval is a spike: its P99 is above Multiple times the run's median
// interval P99 and at least MinExcess above it. The floor keeps a busy load-generating
// machine's scheduling hiccups (a few to tens of milliseconds on a shared 2-core host) from
// being called spikes on a run whose median P99 is well under a millisecond.
type Rule struct {
	Multiple  float64
	MinExcess time.Duration
	// MinIntervals is how many intervals with latency the run needs for a median to mean
	// anything.
	MinIntervals int
}

// Default is the rule the text report uses (docs/telemetry.md).
var Default = Rule{Multiple: 5, MinExcess: 50 * time.Millisecond, MinIntervals: 4}

// Spike is a run of consecutive spike intervals of one group.
type Spike struct {
	Group    string
	From, To time.Duration // from the run's start: the first interval's start, the last one's end
	Median   int64         // the run's median interval P99, ns
	P99      int64         // the highest interval P99 in the window, ns
	// Silent marks a window in which a fixed-rate group recorded nothing at all (P99 0):
	// every message of it waited longer than the window, or never came.
	Silent bool
	// Events are what happened from two intervals before the window to one after it (a
	// sample shows a change up to an interval late).
	Events []result.Event
	// Stall is the worst stall of natsperf's own process in the window (Telemetry.Stalls).
	Stall time.Duration
	// Uncorrected is the window's largest latency from the actual send (fixed rates; 0:
	// not known).
	Uncorrected int64
}

// Late reports whether the spike's messages waited before they were sent, not after: at a
// fixed rate the latency from the actual send stayed under a third of the P99's rise.
func (s Spike) Late() bool {
	return !s.Silent && s.Uncorrected > 0 && s.Uncorrected < (s.P99-s.Median)/3
}

// Host reports whether the spike is explained by natsperf's own process stalling rather
// than by anything on the servers: no event in the window, and a stall of at least a third
// of the P99's rise (what queues behind a stall waits longer than the stall itself).
func (s Spike) Host() bool {
	if s.Silent {
		return len(s.Events) == 0 && s.Stall >= s.To-s.From
	}
	return len(s.Events) == 0 && (s.Late() || s.Stall > 0 && int64(s.Stall) >= (s.P99-s.Median)/3)
}

// Find returns the spikes of every group with a latency series, in time order.
func Find(res *result.Result, rule Rule) []Spike {
	var out []Spike
	var stalls []result.Stall
	if res.Telemetry != nil {
		stalls = res.Telemetry.Stalls
	}
	runEnd := res.End.Sub(res.Start)
	for _, g := range res.Groups {
		out = append(out, find(g, res.Events, stalls, rule, runEnd)...)
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].From < out[b].From })
	return out
}

func find(g result.Group, events []result.Event, stalls []result.Stall, rule Rule, runEnd time.Duration) []Spike {
	var p99s []int64
	for _, iv := range g.Series {
		if iv.P99 > 0 {
			p99s = append(p99s, iv.P99)
		}
	}
	if len(p99s) < max(rule.MinIntervals, 1) {
		return nil
	}
	width := Interval(g.Series)
	med := Median(p99s)
	limit := max(int64(rule.Multiple*float64(med)), med+int64(rule.MinExcess))
	var out []Spike
	for i := 0; i < len(g.Series); i++ {
		if g.Series[i].P99 <= limit {
			continue
		}
		s := Spike{Group: g.Name, From: g.Series[i].Offset, Median: med}
		for ; i < len(g.Series) && g.Series[i].P99 > limit; i++ {
			s.P99 = max(s.P99, g.Series[i].P99)
			s.Uncorrected = max(s.Uncorrected, g.Series[i].MaxUncorrected)
			s.To = g.Series[i].Offset + width
		}
		out = append(out, s)
	}
	if g.TargetRate > 0 {
		for _, s := range silences(g, width, runEnd) {
			s.Median = med
			out = append(out, s)
		}
	}
	for i := range out {
		s := &out[i]
		for _, e := range events {
			if e.At >= s.From-2*width && e.At <= s.To+width {
				s.Events = append(s.Events, e)
			}
		}
		for _, st := range stalls { // a stall delays what is received up to an interval later
			if st.Offset >= s.From-width && st.Offset < s.To {
				s.Stall = max(s.Stall, st.Max, st.RunQueue)
			}
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].From < out[b].From })
	return out
}

// silences are the stretches of whole intervals, from a fixed-rate group's first interval
// to the run's end, in which it recorded no message: at a fixed rate every interval has
// some, so an empty one is an outage, the largest spike of all.
func silences(g result.Group, width, runEnd time.Duration) []Spike {
	if len(g.Series) == 0 {
		return nil
	}
	var out []Spike
	next := g.Series[0].Offset // the next interval expected
	gap := func(to time.Duration) {
		if to-next >= width {
			out = append(out, Spike{Group: g.Name, From: next, To: to, Silent: true})
		}
	}
	for _, iv := range g.Series {
		gap(iv.Offset)
		next = iv.Offset + width
	}
	gap(runEnd / width * width) // the last, partial interval may be empty because the run ended
	return out
}

// Interval is the series' width: the smallest step between two offsets (intervals without
// messages are left out of a series); a second when it cannot tell.
func Interval(series []result.Interval) time.Duration {
	w := time.Duration(0)
	for i := 1; i < len(series); i++ {
		if d := series[i].Offset - series[i-1].Offset; d > 0 && (w == 0 || d < w) {
			w = d
		}
	}
	if w == 0 {
		w = time.Second
	}
	return w
}

// Median is v's median (0 for none); v is left as it is.
func Median(v []int64) int64 {
	if len(v) == 0 {
		return 0
	}
	s := append([]int64(nil), v...)
	sort.Slice(s, func(a, b int) bool { return s[a] < s[b] })
	n := len(s)
	if n%2 == 1 {
		return s[n/2]
	}
	return (s[n/2-1] + s[n/2]) / 2
}

// minStallNamed is the smallest stall of natsperf's process named beside a spike's events.
const minStallNamed = 10 * time.Millisecond

// maxNamed is how many events a spike's line names before "and N more".
const maxNamed = 4

// String is the spike as the text report prints it:
// "P99 4.1 ms -> 252 ms at 2.0-2.3 s: stream benchstream leader n2 -> n3 (advisory at 2.02 s), pub 1 reconnected".
func (s Spike) String() string {
	head := fmt.Sprintf("P99 %s -> %s at %s-%s s", ms(s.Median), ms(s.P99), secs(s.From), secs(s.To))
	if s.Silent {
		head = fmt.Sprintf("no %s message at all at %s-%s s", s.Group, secs(s.From), secs(s.To))
	}
	stall := fmt.Sprintf("natsperf's own process stalled %s (a timer fired late, or a thread waited for a CPU)", ms(int64(s.Stall)))
	late := fmt.Sprintf("the messages were sent late (at most %s from the actual send)", ms(s.Uncorrected))
	switch {
	case s.Host() && s.Late():
		return head + ": no server event in that window; " + late + ": the load generator fell behind its schedule, not the servers"
	case s.Host():
		return head + ": no server event in that window; " + stall + ": the load generator's host, not the servers"
	case len(s.Events) == 0:
		return head + ": no server event in that window"
	}
	var named []string
	seen := map[string]bool{}
	for _, e := range s.Events {
		d := Describe(e)
		if seen[d] {
			continue
		}
		seen[d] = true
		named = append(named, d)
	}
	if len(named) > maxNamed {
		named = append(named[:maxNamed], fmt.Sprintf("and %d more", len(named)-maxNamed))
	}
	if s.Stall >= minStallNamed {
		named = append(named, stall)
	}
	return head + ": " + strings.Join(named, ", ")
}

// Describe words one event.
func Describe(e result.Event) string {
	at := secs(e.At) + " s"
	switch e.Kind {
	case "leader_elected", "leader_change":
		return fmt.Sprintf("stream %s leader %s (%s at %s)", e.Stream, e.Detail, e.Source, at)
	case "quorum_lost":
		return fmt.Sprintf("stream %s lost quorum (advisory at %s)", e.Stream, at)
	case "consumer_leader_elected":
		return fmt.Sprintf("consumer %s/%s leader %s (advisory at %s)", e.Stream, e.Consumer, e.Detail, at)
	case "consumer_quorum_lost":
		return fmt.Sprintf("consumer %s/%s lost quorum (advisory at %s)", e.Stream, e.Consumer, at)
	case "max_deliveries", "nak", "terminated":
		return fmt.Sprintf("consumer %s/%s %s (advisory at %s)", e.Stream, e.Consumer, strings.ReplaceAll(e.Kind, "_", " "), at)
	case "slow_consumer":
		return fmt.Sprintf("server %s slow consumer %s (varz at %s)", e.Server, e.Detail, at)
	case "disconnect":
		return e.Client + " disconnected"
	case "reconnect":
		return e.Client + " reconnected"
	case "fault":
		return fmt.Sprintf("fault %s at %s", e.Detail, at)
	case "server_silent":
		return fmt.Sprintf("server %s stopped answering (telemetry at %s)", e.Server, at)
	}
	return fmt.Sprintf("%s %s at %s", e.Kind, e.Detail, at)
}

// ms prints nanoseconds as milliseconds with two significant decimals under 10 ms.
func ms(ns int64) string {
	v := float64(ns) / 1e6
	switch {
	case v < 10:
		return fmt.Sprintf("%.2g ms", v)
	default:
		return fmt.Sprintf("%.0f ms", v)
	}
}

func secs(d time.Duration) string {
	return fmt.Sprintf("%.2f", d.Seconds())
}
