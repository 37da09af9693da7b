package report

import (
	"fmt"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/failover"
	"github.com/natsperf/natsperf/internal/spike"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/result"
)

// failovers prints one block per failover (Result.Failovers), each figure once: what began
// it, the new leader, each client's time without success and why, the latency peak.
func (p *printer) failovers(r *result.Result) {
	for i, f := range r.Failovers {
		p.line("")
		for j, l := range failoverLines(r, f) {
			if j == 0 {
				p.line("Failover %d: %s", i+1, l)
				continue
			}
			p.line("  %s", l)
		}
	}
}

// failoverLines are a failover's head and its lines, as the text and the reports word them.
func failoverLines(r *result.Result, f result.Failover) []string {
	head := fmt.Sprintf("%s at %s, leader %s", f.Cause, seconds(f.At), f.Node)
	if f.Cause == "server_silent" {
		head = fmt.Sprintf("leader %s stopped answering after %s (missed by the telemetry's reading at %s; no fault of natsperf's)", f.Node, seconds(f.At), seconds(f.Silent))
	}
	out := []string{head}
	for _, l := range f.Leaders {
		stream := ""
		if l.Stream != "" {
			stream = " of stream " + l.Stream
		}
		switch {
		case l.Kept:
			out = append(out, fmt.Sprintf("new leader%s: none, %s led it again", stream, f.Node))
			continue
		case l.Leader == "":
			out = append(out, fmt.Sprintf("new leader%s: none by the end of the run", stream))
			continue
		}
		since := "the fault"
		if f.Cause == "server_silent" {
			since = "its last answer"
		}
		out = append(out, fmt.Sprintf("new leader%s: %s, %s after %s (%s at %s)", stream, l.Leader, seconds(l.After), since, l.Source, seconds(l.At)))
	}
	if f.Silent > 0 && f.Cause != "server_silent" {
		out = append(out, fmt.Sprintf("%s stopped answering the telemetry at %s", f.Node, seconds(f.Silent)))
	}
	var leader time.Duration
	for _, l := range f.Leaders {
		leader = max(leader, l.At)
	}
	for _, c := range f.Clients {
		out = append(out, clientOutage(r, c, leader))
	}
	if len(f.Clients) == 0 {
		out = append(out, fmt.Sprintf("no client went %s without success in it, nor had an operation fail", seconds(r.KeptGapMin()))+elsewhere(r))
	}
	for _, pk := range f.Peaks {
		line := fmt.Sprintf("latency peak: %s P99 %s at %s-%s (median interval P99 %s)", pk.Group, Duration(pk.P99),
			seconds(pk.From), seconds(pk.To), Duration(pk.Median))
		if !failover.Spike(&pk, spike.Default) {
			line += ": no spike"
		}
		out = append(out, line)
	}
	return out
}

// elsewhere says where the clients' longest times without success were instead.
func elsewhere(r *result.Result) string {
	var parts []string
	for _, g := range r.Groups {
		for _, c := range g.Clients {
			if c.Gap != nil && c.Gap.Duration > 0 && len(parts) < 4 {
				parts = append(parts, fmt.Sprintf("%s %d %s at %s", g.Name, c.ID, seconds(c.Gap.Duration), seconds(c.Gap.From)))
			}
		}
	}
	if len(parts) == 0 {
		return ""
	}
	return " (longest: " + strings.Join(parts, ", ") + ")"
}

// clientOutage words a client's time without success, and why a publisher's was longer than
// the election: publishes sent to the dead leader held it until they timed out.
func clientOutage(r *result.Result, c result.ClientOutage, leader time.Duration) string {
	what := "without a message " + doneWord(r, c.Group)
	one, many := opNouns(r, c.Group)
	if doneWord(r, c.Group) == "acknowledged" || one == "put" {
		what = "without an ack"
	}
	s := fmt.Sprintf("%s %d: %s %s, from %s to %s", c.Group, c.Client, seconds(c.Duration), what, seconds(c.From), seconds(c.To))
	if c.Duration == 0 { // errors only
		s = fmt.Sprintf("%s %d: no stretch %s of %s or more", c.Group, c.Client, what, seconds(r.KeptGapMin()))
	}
	if c.Open {
		s = fmt.Sprintf("%s %d: %s %s, from %s, NOT RECOVERED by its end at %s", c.Group, c.Client, seconds(c.Duration), what, seconds(c.From), seconds(c.To))
	}
	var why []string
	for _, r := range c.Refused {
		why = append(why, refusedWords(r, one, many))
	}
	if c.TimedOut > 0 {
		before := ""
		if leader > 0 && c.TimedOutFrom < leader {
			before = ", before the new leader,"
		}
		n := units.Comma(c.TimedOut) + " " + many
		if c.TimedOut == 1 {
			n = "1 " + one
		}
		why = append(why, fmt.Sprintf("%s sent from %s%s never answered, it waited out its ack timeout (%s)",
			n, seconds(c.TimedOutFrom), before, seconds(c.AckTimeout)))
	}
	if len(why) > 0 {
		s += ": " + strings.Join(why, "; ")
	}
	return s
}

// opNouns name a group's operations: "put"/"puts" for a KV putter, else "publish"/"publishes".
func opNouns(r *result.Result, group string) (one, many string) {
	for _, g := range r.Groups {
		if g.Name == group && strings.Contains(g.Kind, "KV putter") {
			return "put", "puts"
		}
	}
	return "publish", "publishes"
}

// refusedWords words a client's operations (one, many: opNouns) that failed fast for one
// reason, and why.
func refusedWords(r result.Refusals, one, many string) string {
	n := units.Comma(r.Count) + " " + many
	if r.Count == 1 {
		n = "1 " + one
	}
	when := "from " + seconds(r.From) + " to " + seconds(r.To)
	if r.From == r.To {
		when = "at " + seconds(r.From)
	}
	switch r.Reason {
	case result.ReasonNoResponders:
		return fmt.Sprintf("%s failed fast %s: no responders (no server took them, the stream had no leader)", n, when)
	case result.ReasonConnLost:
		return fmt.Sprintf("%s failed fast %s: connection lost (sent, never answered: the stream may hold them)", n, when)
	case result.ReasonNotSent:
		return fmt.Sprintf("%s not sent (%s): the run ended with its window full of %s awaiting acks", n, when, many)
	}
	return fmt.Sprintf("%s failed fast %s: %s", n, when, r.Reason)
}

// toldInFailover reports whether a spike of from-to is told in a failover's block: a group's
// peak, or (silent: no message at all) a stretch of its clients without success.
func toldInFailover(r *result.Result, group string, from, to time.Duration, silent bool) bool {
	for _, f := range r.Failovers {
		for _, c := range f.Clients {
			if silent && c.Group == group && from < c.To && to > c.From {
				return true
			}
		}
		for _, pk := range f.Peaks {
			if pk.Group == group && from < pk.To && to > pk.From {
				return true
			}
		}
	}
	return false
}

// outageTold reports whether a client's gap is told in a failover's block.
func outageTold(r *result.Result, group string, client int, from time.Duration) bool {
	for _, f := range r.Failovers {
		for _, c := range f.Clients {
			if c.Group == group && c.Client == client && c.From == from {
				return true
			}
		}
	}
	return false
}

// failoverTold reports whether a fault began a failover told in its block.
func failoverTold(r *result.Result, ev result.FaultEvent) bool {
	for _, f := range r.Failovers {
		if f.Cause == ev.Spec && f.At == ev.Started {
			return true
		}
	}
	return false
}

// failoverItems are the report's list items: one per failover of a run.
func failoverItems(label string, r *result.Result) []string {
	var out []string
	for i, f := range r.Failovers {
		lines := failoverLines(r, f)
		out = append(out, fmt.Sprintf("%sfailover %d: %s; %s", label, i+1, lines[0], strings.Join(lines[1:], "; ")))
	}
	return out
}

// failoverSection lists every run's failovers, one item each, as the text tells them.
func failoverSection(s *Set) *Section {
	var items []string
	for _, c := range s.Cells {
		for _, r := range c.Runs {
			if r.Result == nil {
				continue
			}
			res := r.Result
			if res.Failovers == nil && res.Faults != nil { // a Result from before the story
				one := *res
				one.Failovers = failover.Tell(res)
				res = &one
			}
			label := fmt.Sprintf("%s, repetition %d, ", c.Name, r.Repetition)
			items = append(items, failoverItems(label, res)...)
		}
	}
	if len(items) == 0 {
		return nil
	}
	return &Section{Title: "Failovers", List: list("", items),
		Intro: []Para{{Text: "Each failover once: what began it, the stream's new leader (from its leader-elected advisory), each client's longest time without success in it and why, the latency peak."}}}
}
