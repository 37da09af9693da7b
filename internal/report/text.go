// Package report renders Results: one run's text in the nats bench look (its sections as
// data, its SLO verdicts and load steps), a scenario's runs as a report in text, Markdown,
// HTML, CSV or JSON (per-cell statistics and axis effects), and capacity searches as text and
// an HTML page. A Result's own JSON is the result package's (result.Write), not this one's.
package report

import (
	"fmt"
	"io"
	"strings"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/result"
)

// Text writes the result the way nats bench prints its stats, plus latency percentiles,
// delivery counts and anything that went wrong.
func Text(w io.Writer, r *result.Result) error {
	p := &printer{w: w}
	p.line("")
	if len(r.Groups) > 1 {
		p.combined(r)
	} else {
		for _, g := range r.Groups {
			p.group(g, "")
		}
	}
	p.queueing(r)
	for _, st := range r.Streams {
		p.stream(st)
	}
	p.faults(r)
	p.failovers(r)
	p.verify(r)
	p.distributed(r)
	p.servers(r)
	p.stop(r)
	for _, msg := range r.Warnings {
		p.line("Warning: %s", msg)
	}
	return p.err
}

type printer struct {
	w   io.Writer
	err error
}

func (p *printer) line(format string, args ...any) {
	if p.err != nil {
		return
	}
	_, p.err = fmt.Fprintf(p.w, format+"\n", args...)
}

// group prints one group alone: a stats line for one client, rows and aggregates for more.
func (p *printer) group(g result.Group, indent string) {
	a := g.Aggregate
	if len(g.Clients) == 1 {
		c := g.Clients[0]
		p.line("%sNATS %s stats: %s%s", indent, g.Kind, rate(c.MsgsPerSec, c.BytesPerSec, true), latency(c.Latency))
		p.uncorrected(indent+" ", c.Latency)
	} else {
		p.rows(g, indent)
		p.line("%s NATS %s aggregated stats: %s%s", indent, g.Kind, rate(a.MsgsPerSec, a.BytesPerSec, false), latency(a.Latency))
		p.uncorrected(indent+" ", a.Latency)
		p.spread(g, indent)
	}
	p.target(indent+" ", g)
	p.breakdown(indent+" ", a.Breakdown)
	p.correctness(indent+" ", a, g)
	p.events(indent+" ", a.Events)
}

// clientID is a client row's [N], with the process (agent) it ran in for a merged Result.
func clientID(c result.Client) string {
	if c.Part != "" {
		return fmt.Sprintf("%d %s", c.ID, c.Part)
	}
	return fmt.Sprint(c.ID)
}

func (p *printer) rows(g result.Group, indent string) {
	for _, c := range g.Clients {
		p.line("%s  [%s]%s %s (%s msgs)%s", indent, clientID(c), clientLabel(g, c), rate(c.MsgsPerSec, c.BytesPerSec, true), units.Comma(c.Msgs), latency(c.Latency))
	}
	p.line("")
}

func (p *printer) spread(g result.Group, indent string) {
	r := g.Aggregate.Rates
	p.line("%s message rates min %s | avg %s | max %s | stddev %s msgs", indent,
		units.Comma(int64(r.Min)), units.Comma(int64(r.Avg)), units.Comma(int64(r.Max)), units.Comma(int64(r.StdDev)))
	t := g.Aggregate.TimePerMsg
	p.line("%s time per msg min %s | avg %s | max %s | stddev %s", indent,
		micros(t.Min), micros(t.Avg), micros(t.Max), micros(t.StdDev))
}

// combined prints several groups as nats bench's Pub/Sub form.
func (p *printer) combined(r *result.Result) {
	var msgs, bytes int64
	var start, end = r.Groups[0].Aggregate.Start, r.Groups[0].Aggregate.End
	for _, g := range r.Groups {
		a := g.Aggregate
		msgs += a.Msgs
		bytes += a.Bytes
		if !a.Start.IsZero() && (start.IsZero() || a.Start.Before(start)) {
			start = a.Start
		}
		if a.End.After(end) {
			end = a.End
		}
	}
	var mps, bps float64
	if d := end.Sub(start).Seconds(); d > 0 {
		mps, bps = float64(msgs)/d, float64(bytes)/d
	}
	label := "NATS Pub/Sub"
	if strings.Contains(r.Groups[0].Kind, "JetStream") {
		label = "NATS JetStream Pub/Sub"
	}
	p.line("%s stats: %s", label, rate(mps, bps, false))
	for _, g := range r.Groups {
		a := g.Aggregate
		p.line(" %s stats: %s%s", groupTitle(g), rate(a.MsgsPerSec, a.BytesPerSec, false), latency(a.Latency))
		p.uncorrected("  ", a.Latency)
		p.breakdown("  ", a.Breakdown)
		if len(g.Clients) > 1 {
			for _, c := range g.Clients {
				p.line("  [%s]%s %s (%s msgs)%s", clientID(c), clientLabel(g, c), rate(c.MsgsPerSec, c.BytesPerSec, false), units.Comma(c.Msgs), latency(c.Latency))
			}
			rt := a.Rates
			p.line("  min %s | avg %s | max %s | stddev %s msgs",
				units.Comma(int64(rt.Min)), units.Comma(int64(rt.Avg)), units.Comma(int64(rt.Max)), units.Comma(int64(rt.StdDev)))
		}
		p.target("  ", g)
		p.correctness("  ", a, g)
		p.events("  ", a.Events)
	}
}

// clientLabel names a row's client library when its group's clients used different ones (a
// merged Go and Rust run, whose group then names none), so each row says which it measured.
func clientLabel(g result.Group, c result.Client) string {
	if g.Client != nil || c.Client == nil {
		return ""
	}
	return " " + c.Client.Library
}

func groupTitle(g result.Group) string {
	switch g.Name {
	case "pub":
		return "Pub"
	case "sub":
		return "Sub"
	}
	return g.Kind
}

func (p *printer) uncorrected(indent string, l *result.Latency) {
	if l == nil || l.Uncorrected == nil {
		return
	}
	p.line("%suncorrected (from the actual send):%s", indent, latency(l.Uncorrected))
}

// rateShortfall is how far below its target a fixed-rate group may fall before the report says
// the target was not reached: scheduling noise, not a slow system.
const rateShortfall = 0.01

// target says when a fixed-rate group did not reach its rate: its latencies then include the
// queueing behind the schedule, and the rate itself is the finding.
func (p *printer) target(indent string, g result.Group) {
	want, got := g.TargetRate, g.Aggregate.MsgsPerSec
	if want <= 0 || got >= want*(1-rateShortfall) {
		return
	}
	p.line("%starget rate not reached: %s msgs/sec asked, %s msgs/sec achieved (%.1f%%)", indent,
		units.Comma(int64(want)), units.Comma(int64(got)), 100*got/want)
}

func (p *printer) correctness(indent string, a result.Aggregate, g result.Group) {
	c := a.Correctness
	if c == nil {
		return
	}
	if c.Received == 0 && c.Unstamped > 0 {
		p.line("%slatency and loss not measured: messages smaller than %d B carry no stamp", indent, stamp.Size)
		return
	}
	line := fmt.Sprintf("%sdelivery: received %s from %d publisher(s) · lost %s · duplicated %s · out of order %s",
		indent, units.Comma(c.Received), c.Publishers, units.Comma(c.Lost), units.Comma(c.Duplicated), units.Comma(c.OutOfOrder))
	if c.Unstamped > 0 {
		line += fmt.Sprintf(" · unstamped %s", units.Comma(c.Unstamped))
	}
	if c.Failed > 0 {
		line += fmt.Sprintf(" · failed publishes %s (never stored, not lost)", units.Comma(c.Failed))
	}
	if c.NotConsumed > 0 {
		line += fmt.Sprintf(" · not consumed %s (still in the stream, not lost)", units.Comma(c.NotConsumed))
	}
	p.line("%s", line)
	if c.NotReceived > 0 {
		p.line("%snot received %s: expected %s, saw %s, %s (not counted as lost: a receiver cannot tell messages never sent from ones lost at the end)",
			indent, units.Comma(c.NotReceived), units.Comma(c.Expected), units.Comma(c.Received-c.Duplicated+c.Unstamped), silentAt(c))
	}
}

// silentAt says where the publishers' sequences stopped, as far as the receivers saw.
func silentAt(c *result.Correctness) string {
	switch {
	case c.HighestSeqMax == 0:
		return "no stamped message arrived"
	case c.Publishers <= 1 || c.HighestSeqMin == c.HighestSeqMax:
		w := "publisher"
		if c.Publishers > 1 {
			w = "publishers"
		}
		return fmt.Sprintf("%s went silent at seq %s", w, units.Comma(int64(c.HighestSeqMax)))
	default:
		return fmt.Sprintf("publishers went silent between seq %s and %s", units.Comma(int64(c.HighestSeqMin)), units.Comma(int64(c.HighestSeqMax)))
	}
}

func (p *printer) events(indent string, e result.Events) {
	var parts []string
	add := func(n int64, what string) {
		if n > 0 {
			parts = append(parts, units.Comma(n)+" "+what)
		}
	}
	add(e.Errors, "errors")
	add(e.Timeouts, "timeouts")
	add(e.Disconnects, "disconnects")
	add(e.Reconnects, "reconnects")
	add(e.SlowConsumers, "slow consumer events")
	add(e.Dropped, "messages dropped by the client library")
	add(e.NotSent, "sends not made at their scheduled time (the window of publishes awaiting acks was full: failed, never stored)")
	if len(parts) > 0 {
		p.line("%sevents: %s", indent, strings.Join(parts, ", "))
	}
}

// Tail writes how a report in a kind's own layout (latency's) ends, as Text ends: what the
// servers counted beside natsperf's count and the latency spikes named with what happened
// then (when the run sampled the servers), and why a run that did not complete ended.
func Tail(w io.Writer, r *result.Result) error {
	p := &printer{w: w}
	p.servers(r)
	p.stop(r)
	return p.err
}

func (p *printer) stop(r *result.Result) {
	switch r.Stop.Reason {
	case result.StopCompleted:
	case result.StopInterrupted:
		p.line("\nRun interrupted: the results above are partial.")
	case result.StopIdle:
		p.line("\nRun ended by the idle timeout: %s.", r.Stop.Error)
	default:
		p.line("\nRun %s: %s. The results above are partial.", r.Stop.Reason, r.Stop.Error)
	}
}

// rate prints "4,925,767 msgs/sec ~ 75 MiB/sec", with nats bench's "~ 0.20us" (time per
// message, the inverse of the rate) when perMsg is set.
func rate(mps, bps float64, perMsg bool) string {
	s := fmt.Sprintf("%s msgs/sec ~ %s", units.Comma(int64(mps)), units.Rate(bps))
	if perMsg && mps > 0 {
		s += " ~ " + micros(1e9/mps)
	}
	return s
}

func latency(l *result.Latency) string {
	if l == nil {
		return ""
	}
	return fmt.Sprintf(" ~ P50: %s ~ P90: %s ~ P99: %s ~ P99.9: %s ~ max: %s",
		Duration(histo.At(l, 50)), Duration(histo.At(l, 90)), Duration(histo.At(l, 99)), Duration(histo.At(l, 99.9)), Duration(l.Max))
}

// micros prints nanoseconds as microseconds with two decimals, as nats bench does.
func micros(ns float64) string { return fmt.Sprintf("%.2fus", ns/1e3) }

// Duration prints nanoseconds with a unit that fits: 850ns, 121.34us, 2.27ms, 1.50s.
func Duration(ns int64) string {
	switch {
	case ns < 0:
		return "n/a"
	case ns < 1_000:
		return fmt.Sprintf("%dns", ns)
	case ns < 1_000_000:
		return fmt.Sprintf("%.2fus", float64(ns)/1e3)
	case ns < 1_000_000_000:
		return fmt.Sprintf("%.2fms", float64(ns)/1e6)
	default:
		return fmt.Sprintf("%.2fs", float64(ns)/1e9)
	}
}

// stream prints a JetStream stream's state after the run, with the storage estimate for publishers.
func (p *printer) stream(st result.StreamState) {
	what := "Stream " + st.Name
	if st.Bucket != "" {
		what = "KV bucket " + st.Bucket + " (stream " + st.Name + ")"
	}
	how := fmt.Sprintf("%s, R%d", st.Storage, st.Replicas)
	if st.Compression == "s2" {
		how += ", s2"
	}
	line := fmt.Sprintf("\n%s: %s msgs, %s (%s)", what, units.Comma(int64(st.Messages)), units.FormatSize(int64(st.Bytes)), how)
	if st.ExpectedBytes > 0 {
		line += fmt.Sprintf(" · storage: expected %s (%s msgs x %d x %s), server reports %s x %d = %s",
			units.FormatSize(st.ExpectedBytes), units.Comma(st.Published), st.Replicas, units.FormatSize(st.MsgSize),
			units.FormatSize(int64(st.Bytes)), st.Replicas, units.FormatSize(int64(st.StoredBytes)))
	}
	if st.DiskBytes > 0 {
		line += fmt.Sprintf(" · on disk %s", units.FormatSize(int64(st.DiskBytes)))
		if st.StoredBytes > 0 {
			line += fmt.Sprintf(" (%.2fx what the server reports", float64(st.DiskBytes)/float64(st.StoredBytes))
			if st.Compression == "s2" {
				line += "; s2 compresses full blocks only"
			}
			line += ")"
		}
	}
	p.line("%s", line)
}

// distributed lists the agents of a run over natsperf agents: their clocks and start.
func (p *printer) distributed(r *result.Result) {
	d := r.Distributed
	if d == nil {
		return
	}
	p.line("\nAgents: %d, start skew %s (agents' start instants on the coordinator's clock)", len(d.Agents), ms(d.StartSkewNS))
	for _, a := range d.Agents {
		state := fmt.Sprintf("started %s after the chosen instant", signedMs(a.StartOffsetNS))
		switch {
		case a.Lost:
			state = "LOST: " + a.Error
		case a.Error != "":
			state = "failed: " + a.Error
		}
		p.line(" [%d] %s (%s, natsperf %s, %s): clock offset %s ± %s, %s", a.Part, a.Name, a.Host, a.Version, a.Client,
			signedMs(a.ClockOffsetNS), ms(a.ClockUncertaintyNS), state)
	}
	if len(d.Agents) > 1 {
		var worst, second int64 // the two largest uncertainties bound any pair's
		for _, a := range d.Agents {
			if u := a.ClockUncertaintyNS; u > worst {
				worst, second = u, worst
			} else if u > second {
				second = u
			}
		}
		p.line(" Latencies from a publisher on one agent to a receiver on another are corrected by the offsets: uncertain by up to %s.", ms(worst+second))
	}
}

func ms(ns int64) string { return fmt.Sprintf("%.3fms", float64(ns)/1e6) }

func signedMs(ns int64) string { return fmt.Sprintf("%+.3fms", float64(ns)/1e6) }
