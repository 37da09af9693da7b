package report

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/failover"
	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/result"
)

// verify prints the delivery check: for JetStream, the read-back against the acknowledgements
// in one line, then what the receivers saw.
func (p *printer) verify(r *result.Result) {
	v := r.Verify
	if v == nil {
		return
	}
	p.line("")
	if v.Stream == "" {
		p.line("verify: sent %s · delivered %s · lost %s · duplicates %s · out of order %s · unavailable %s",
			units.Comma(v.Sent), units.Comma(v.Delivered), units.Comma(v.Lost), units.Comma(v.Duplicated),
			units.Comma(v.OutOfOrder), unavailable(r, v))
		return
	}
	if v.Error != "" {
		p.line("verify: sent %s · acked %s · stored unknown · acked-but-missing unknown · duplicates unknown · unavailable %s",
			units.Comma(v.Sent), units.Comma(v.Acked), unavailable(r, v))
		p.line("verify: NOT VERIFIED: %s; none of the %s acknowledged messages could be checked", v.Error, units.Comma(v.Acked))
	} else {
		p.line("verify: sent %s · acked %s · failed %s · stored %s · acked-but-missing %s · duplicates %s · unavailable %s",
			units.Comma(v.Sent), units.Comma(v.Acked), units.Comma(v.Failed), units.Comma(v.Stored), units.Comma(v.AckedButMissing),
			units.Comma(v.Duplicates), unavailable(r, v))
		if v.Failed > 0 {
			p.line("verify: failed %s: publishes never acknowledged and not in the stream (timed out, refused or not sent; the publisher was told): not data loss", units.Comma(v.Failed))
		}
		if v.Note != "" {
			p.line("verify: note: %s", v.Note)
		}
		if n := len(v.Unreadable); n > 0 {
			var seqs []string
			var count uint64
			for i, r := range v.Unreadable {
				count += r.Last - r.First + 1
				if i < 10 {
					seqs = append(seqs, seqRange(r))
				}
			}
			if n > 10 {
				seqs = append(seqs, fmt.Sprintf("and %d more ranges", n-10))
			}
			p.line("verify: INCOMPLETE: %s stream sequences could not be read back (%s); %s acknowledged messages were not among those read and may be in them: not called missing",
				units.Comma(int64(count)), strings.Join(seqs, ", "), units.Comma(v.AckedNotRead))
		}
		if v.AckedButMissing > 0 {
			p.line("verify: LOST: %s acknowledged messages are not in stream %s", units.Comma(v.AckedButMissing), v.Stream)
		}
		if len(v.Diverged) > 0 {
			p.line("verify: DIVERGED: %s", diverged(v))
		}
		if v.StoredNotAcked > 0 {
			p.line("verify: stored but never acknowledged %s (their acks were lost or timed out)", units.Comma(v.StoredNotAcked))
		}
	}
	if v.Stream != "" && v.Error == "" && len(v.Unreadable) == 0 && (v.Delivered > 0 || v.NotConsumed > 0) {
		p.line("verify: consumers got %s · not consumed %s (still in stream %s) · duplicated %s · out of order %s",
			units.Comma(v.Delivered), units.Comma(v.NotConsumed), v.Stream, units.Comma(v.Duplicated), units.Comma(v.OutOfOrder))
		return
	}
	if v.Delivered > 0 || v.Lost > 0 {
		p.line("verify: consumers got %s · lost %s · duplicated %s · out of order %s",
			units.Comma(v.Delivered), units.Comma(v.Lost), units.Comma(v.Duplicated), units.Comma(v.OutOfOrder))
	}
}

// unavailable prints the longest time without success, and whether it was still going on
// when the run ended.
func unavailable(r *result.Result, v *result.Verify) string {
	if v.NotRecovered {
		return seconds(v.Unavailable) + " (NOT RECOVERED by the end of the run)"
	}
	if r.Faults != nil && r.Faults.Unavailable.Duration == v.Unavailable {
		u := r.Faults.Unavailable
		for i, f := range r.Failovers {
			for _, c := range f.Clients {
				if c.Group == u.Group && c.Client == u.Client && c.From == u.From {
					return fmt.Sprintf("%s (%s %d in failover %d)", seconds(v.Unavailable), u.Group, u.Client, i+1)
				}
			}
		}
	}
	return seconds(v.Unavailable)
}

// doneWord is what a group's message is in a phase: acknowledged for JetStream publishers.
func doneWord(r *result.Result, group string) string {
	for _, g := range r.Groups {
		if g.Name == group && strings.Contains(g.Kind, "JetStream") && strings.Contains(g.Kind, "publisher") {
			return "acknowledged"
		}
	}
	if strings.HasSuffix(group, "pub") {
		return "sent"
	}
	return "received"
}

// seqRange prints "9088" or "9088-9120".
func seqRange(r result.SeqRange) string {
	if r.First == r.Last {
		return fmt.Sprint(r.First)
	}
	return fmt.Sprintf("%d-%d", r.First, r.Last)
}

// seconds prints a window as "1.24s".
func seconds(d time.Duration) string { return fmt.Sprintf("%.2fs", d.Seconds()) }

// faults prints the fault timeline, the longest unavailability and the latency per phase.
func (p *printer) faults(r *result.Result) {
	f := r.Faults
	if f == nil {
		return
	}
	p.line("")
	p.line("Faults:")
	for _, ev := range f.Timeline {
		if ev.Skipped {
			p.line("  %-22s not done: %s", ev.Spec, ev.Error)
			continue
		}
		line := fmt.Sprintf("  %-22s at %s, took %s", ev.Spec, seconds(ev.Started), Duration(int64(ev.Took)))
		if ev.Node != "" {
			line += " · " + ev.Node
		}
		if ev.NewLeader != "" && !failoverTold(r, ev) { // else its failover's block tells it
			line += fmt.Sprintf(" · new leader %s after %s", ev.NewLeader, seconds(ev.NewLeaderAfter))
		}
		if ev.Detail != "" {
			line += " · " + ev.Detail
		}
		if ev.Error != "" {
			line += " · FAILED: " + ev.Error
		}
		p.line("%s", line)
	}
	u := f.Unavailable
	switch {
	case outageTold(r, u.Group, u.Client, u.From): // in its failover's block
	case u.Open:
		p.line("  unavailable %s: from %s, NOT RECOVERED by the end of the run at %s (%s %d: no success after %s)", seconds(u.Duration), seconds(u.From), seconds(u.To), u.Group, u.Client, seconds(u.From))
	case u.Duration > 0 && len(r.Failovers) > 0:
		why := ""
		if st := failover.HostStall(r, u.From, u.To); st >= u.Duration/2 {
			why = fmt.Sprintf(": natsperf's own process stalled %s then", Duration(int64(st)))
		}
		p.line("  longest time without success, in no failover: %s from %s to %s (%s %d)%s", seconds(u.Duration), seconds(u.From), seconds(u.To), u.Group, u.Client, why)
	case u.Duration > 0:
		p.line("  unavailable %s: from %s to %s (%s %d)", seconds(u.Duration), seconds(u.From), seconds(u.To), u.Group, u.Client)
	}
	if n := f.NotRecovered; n != nil && !u.Open {
		p.line("  NOT RECOVERED by the end of the run: %s %d had no success from %s to its end at %s", n.Group, n.Client, seconds(n.From), seconds(n.To))
	}
	if len(f.ByGroup) > 1 && len(r.Failovers) == 0 {
		var parts []string
		for _, g := range f.ByGroup {
			parts = append(parts, fmt.Sprintf("%s %s from %s", g.Group, seconds(g.Duration), seconds(g.From)))
		}
		p.line("  longest gap per group: %s", strings.Join(parts, " · "))
	}
	for _, o := range f.Publishers {
		if len(r.Failovers) > 0 { // told in a failover's block, or in no failover (above)
			continue
		}
		if o.NotRecovered {
			p.line("  %s %d after %s: last ack %s, none after it to its end at %s: %s without acks, of it %s waiting on acks that timed out (ack timeout %s), %s otherwise",
				o.Group, o.Client, o.Fault, seconds(o.LastAckBefore), seconds(o.FirstAckAfter), seconds(o.WithoutAcks),
				seconds(o.TimedOutWait), seconds(o.AckTimeout), seconds(o.WithoutAcks-o.TimedOutWait))
			continue
		}
		p.line("  %s %d after %s: last ack %s, first ack after it %s: %s without acks, of it %s waiting on acks that timed out (ack timeout %s), %s otherwise",
			o.Group, o.Client, o.Fault, seconds(o.LastAckBefore), seconds(o.FirstAckAfter), seconds(o.WithoutAcks),
			seconds(o.TimedOutWait), seconds(o.AckTimeout), seconds(o.WithoutAcks-o.TimedOutWait))
	}
	var ev result.Events
	for _, g := range r.Groups {
		ev.Add(g.Aggregate.Events)
	}
	p.line("  reconnects %s · disconnects %s · timeouts %s · errors %s", units.Comma(ev.Reconnects),
		units.Comma(ev.Disconnects), units.Comma(ev.Timeouts), units.Comma(ev.Errors))
	if len(r.Windows) == 0 {
		return
	}
	p.line("Latency by phase:")
	for _, w := range r.Windows {
		var parts []string
		for _, g := range w.Groups {
			if g.Msgs == 0 {
				parts = append(parts, fmt.Sprintf("%s nothing %s", g.Name, doneWord(r, g.Name)))
				continue
			}
			part := fmt.Sprintf("%s %s msgs", g.Name, units.Comma(g.Msgs))
			if l := g.Latency; l != nil {
				part += fmt.Sprintf(" P50 %s P99 %s max %s", Duration(histo.At(l, 50)), Duration(histo.At(l, 99)), Duration(l.Max))
			}
			parts = append(parts, part)
		}
		p.line("  %-30s %6s-%-6s %s", w.Label, seconds(w.From), seconds(w.To), strings.Join(parts, " | "))
	}
}

// diverged describes the replicas that disagree: each node's copy, the diverged marked.
func diverged(v *result.Verify) string {
	var parts []string
	for _, r := range v.Replicas {
		s := r.Node + " "
		switch {
		case r.Down:
			s += "down"
		case !r.Present:
			s += "has no copy"
		default:
			s += fmt.Sprintf("%s msgs (seq %d-%d)", units.Comma(int64(r.Msgs)), r.FirstSeq, r.LastSeq)
		}
		if slices.Contains(v.Diverged, r.Node) {
			s += " *"
		}
		parts = append(parts, s)
	}
	return "the nodes' copies of stream " + v.Stream + " disagree: " + strings.Join(parts, ", ") + " (* differs from the others)"
}
