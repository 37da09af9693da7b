package report

import (
	"fmt"
	"strings"

	"github.com/natsperf/natsperf/internal/spike"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/result"
)

// servers prints what the servers counted over the run next to what natsperf counted, and
// the run's latency spikes with what happened around them.
func (p *printer) servers(r *result.Result) {
	if t := r.Telemetry; t != nil && len(t.Servers) > 0 {
		c := t.Counters()
		var ours []string
		for _, g := range r.Groups {
			ours = append(ours, fmt.Sprintf("%s %s", g.Name, units.Comma(g.Aggregate.Msgs)))
		}
		p.line("Servers counted (%s, %d server%s): %s msgs in, %s out over the run; natsperf counted %s",
			t.Source, len(t.Servers), plural(len(t.Servers)), units.Comma(c.InMsgs), units.Comma(c.OutMsgs), strings.Join(ours, ", "))
		if c.JSAPITotal > 0 || c.SlowConsumers > 0 {
			p.line("  JetStream API requests %s (errors %s), server slow consumers %s",
				units.Comma(int64(c.JSAPITotal)), units.Comma(int64(c.JSAPIErrors)), units.Comma(c.SlowConsumers))
		}
		for _, s := range t.Servers {
			if s.ClockUncertaintyNS > 0 {
				p.line("  %s clock offset %s ± %s (from /varz now and the request's round trip)", s.Name, signedMs(s.ClockOffsetNS), ms(s.ClockUncertaintyNS))
			}
		}
	}
	for _, s := range spike.Find(r, spike.Default) {
		if toldInFailover(r, s.Group, s.From, s.To, s.Silent) {
			continue // its failover's block has it
		}
		prefix := ""
		if len(r.Groups) > 1 {
			prefix = s.Group + ": "
		}
		label := "Spike"
		if s.Host() {
			label = "Load-generator spike"
		}
		p.line("%s: %s%s", label, prefix, s)
	}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// breakdown prints where a JetStream consumer's latency went: until the stream stored each
// message, and from then until it was delivered.
func (p *printer) breakdown(indent string, b *result.Breakdown) {
	if b == nil || b.PublishToStored == nil || b.StoredToDelivered == nil {
		return
	}
	p.line("%spublish -> stored:%s", indent, latency(b.PublishToStored))
	p.line("%sstored -> delivered:%s", indent, latency(b.StoredToDelivered))
	p.line("%s(split at the stream's own timestamp%s)", indent, splitClock(b.Clock))
}

// splitClock says how a breakdown's split, the server's clock, was put on natsperf's.
func splitClock(c *result.StoredClock) string {
	switch {
	case c == nil: // a Result from before natsperf said so
		return ": the server's clock, exact when it shares natsperf's host"
	case c.Basis == result.ClockExact:
		return ": exact, the server shares natsperf's clock"
	case c.Basis == result.ClockEstimated:
		return fmt.Sprintf(", put on natsperf's clock by %s's clock offset %s ± %s: each part within %s", c.Server, signedMs(c.OffsetNS), ms(c.UncertaintyNS), ms(c.UncertaintyNS))
	}
	return ": the server's clock, not corrected: " + c.Note
}
