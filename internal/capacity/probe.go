package capacity

import (
	"fmt"
	"math"
	"strings"

	"github.com/natsperf/natsperf/internal/slo"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// Figures reads a probe's figures from its run's Result (judged on its thresholds by the
// engine). openLoop says the senders never wait for the server (core publishers): one that
// fell short of its rate could only have been held back by natsperf itself.
func Figures(res *result.Result, offered float64, openLoop bool) Probe {
	p := Probe{P50: -1, P99: -1, P999: -1, LatenessP99: -1, CPUShare: -1, Drained: true}
	for _, q := range []struct {
		at  float64
		out *int64
	}{{50, &p.P50}, {99, &p.P99}, {99.9, &p.P999}} {
		if v, ok, _ := slo.Measure(res, spec.Threshold{Metric: "p", P: q.at}); ok {
			*q.out = int64(v)
		}
	}
	loss, _, _ := slo.Measure(res, spec.Threshold{Metric: "loss"})
	p.Loss = int64(loss)
	for _, g := range res.Groups {
		if g.TargetRate <= 0 {
			continue
		}
		p.Achieved += g.Aggregate.MsgsPerSec
		p.Sent += g.Aggregate.Msgs
		p.PacePrecision = max(p.PacePrecision, g.PacePrecision)
		if l := g.Aggregate.SendLateness; l != nil {
			for _, row := range l.Percentiles {
				if row.P == 99 {
					p.LatenessP99 = max(p.LatenessP99, row.Ns)
				}
			}
		}
	}
	if d := res.Distributed; d != nil {
		for _, a := range d.Agents {
			p.Agents = append(p.Agents, a.Name)
		}
	}
	if res.CPU != nil { // a run that measured none (getrusage missing) stays -1
		p.CPUShare = res.CPU.CoreShare
	}
	p.Pass = res.Stop.Reason == result.StopCompleted
	if !p.Pass {
		p.Failed = append(p.Failed, "run "+res.Stop.Reason)
		if res.Stop.Error != "" {
			p.Note = res.Stop.Error
		}
	}
	late := false       // a latency threshold failed only because the senders left late
	rateFailed := false // achieved/offered fell below its threshold
	for _, v := range res.SLO {
		if v.Pass {
			continue
		}
		p.Pass = false
		p.Failed = append(p.Failed, v.SLO)
		t := slo.Of(v)
		if t.Metric == "rate" {
			rateFailed = true
		}
		if t.Metric == "p" {
			u, ok := slo.Uncorrected(res, t)
			if !ok {
				u = v.Value
			}
			p.sends = append(p.sends, fromSends{t, u})
		}
		if t.Metric == "p" {
			if u, ok := slo.Uncorrected(res, t); ok && t.Holds(u) {
				// The senders are to blame only when they left late by a material part of
				// the limit, a fifth or more (what their lateness added, where they recorded
				// none). Later by less, they kept their schedule about as well as a machine
				// lets anyone, and the latency from the actual sends was near the limit
				// already: at 900/s, p99<5ms failing at 5.07ms from the intended times and
				// holding at 4.68ms from the actual ones, with lateness P99 0.34ms, is the
				// server's limit, not natsperf's.
				lateness := float64(p.LatenessP99)
				if lateness < 0 {
					lateness = v.Value - u
				}
				if lateness >= t.Limit/5 {
					late = true
					p.Note = strings.TrimSpace(p.Note + fmt.Sprintf(" %s fails from the intended send times but holds from the actual ones (%.2fms): the senders left late (P99 %.2fms)", v.SLO, u/1e6, ms(p.LatenessP99)))
				}
			}
		}
	}
	// Open-loop senders never wait for the server, so any shortfall that fails the run is
	// theirs, however small (a 1.2% one at 800,000/s on a quiet machine passed for the
	// server's limit before); closed-loop senders fall short by waiting for the server too,
	// so theirs counts only when natsperf's own CPU was the limit.
	short := offered > 0 && p.Achieved < 0.98*offered
	saturated := res.CPU != nil && res.CPU.CoreShare >= 0.9
	if limit, full, blocked := inflight(res); limit > 0 && !openLoop {
		p.judgeOpen(res, offered, saturated, short, late, limit, full, blocked)
		return p
	}
	p.GeneratorBound = !p.Pass && ((short && saturated) || (openLoop && (short || rateFailed)) || late)
	if p.GeneratorBound {
		p.Bound = bound(res, saturated, short || (openLoop && rateFailed), openLoop)
	}
	p.Evidence = p.evidence(res, offered, 0)
	return p
}

// inflight sums the open model's bound, the sends that waited at it and the sends whose call
// blocked over the fixed-rate groups (0, 0, 0: the senders waited for each answer, or never
// wait for any).
func inflight(res *result.Result) (limit, full, blocked int64) {
	for _, g := range res.Groups {
		if g.TargetRate > 0 {
			limit += g.Aggregate.Events.MaxInflight
			full += g.Aggregate.Events.InflightFull
			blocked += g.Aggregate.Events.SendBlocked
		}
	}
	return limit, full, blocked
}

// judgeOpen decides a failed probe of open-model senders (service request, js pub sync, kv
// put at a fixed rate) on evidence. natsperf is the limit only when its own resources were:
// its CPU; its in-flight bound, reached for 1% of the sends or more (enough to move a P99)
// while the response time from the actual sends held (the bound, not the system, kept the
// rate from being offered); or its machine, when its sends left late at P99 by a fifth of a
// failed latency limit or more while the bound held back fewer than 1% of them (an open-model
// sender below its bound waits for nothing but its timer, so that lateness is the host's
// wake-ups, measured at the threshold's own percentile; it holds back the replies' reader
// too). Sends whose call blocked (1% or more of them took 1ms or more: the connection's
// buffers were full) while the system answered short of the offered rate were held back by
// the system not taking their bytes, a queue in front of it, so their lateness is the
// system's (a host stall also blocks sends, with the rate kept). Otherwise the response time rose with the load: the
// system saturated, and the thresholds decide. One send that waited at the bound during a
// stall is not evidence (it made a 1,040/s probe "generator-bound" at load 16).
func (p *Probe) judgeOpen(res *result.Result, offered float64, saturated, short, late bool, limit, full, blocked int64) {
	held := heldFromSends(res)
	atBound := full > 0 && full*100 >= max(p.Sent, 1)
	pushedBack := short && blocked > 0 && blocked*100 >= max(p.Sent, 1)
	hostLate := !atBound && !pushedBack && p.lateFor(res)
	switch {
	case p.Pass:
	case saturated && (short || late || full > 0 || hostLate):
		p.GeneratorBound, p.Bound = true, BoundCPU
	case atBound && held:
		p.GeneratorBound, p.Bound = true, BoundInflight
	case hostLate:
		p.GeneratorBound, p.Bound = true, BoundTimer
	}
	p.Evidence = p.evidence(res, offered, full)
	switch p.Bound {
	case BoundInflight:
		p.Evidence = fmt.Sprintf("in-flight at its bound (%s) for %s sends while %s held", units.Comma(limit), units.Comma(full), sendsP99(res))
	case BoundTimer:
		p.Evidence += fmt.Sprintf(", %s of %s sends at the in-flight bound, %s blocked: this machine did not keep up", units.Comma(full), units.Comma(p.Sent), units.Comma(blocked))
	case "":
		if pushedBack && !p.Pass {
			p.Evidence += fmt.Sprintf("; %s sends blocked: the system was not taking their bytes", units.Comma(blocked))
		}
	}
}

// lateFor reports whether the senders' lateness P99 reached a fifth of a failed latency
// threshold's limit and accounts for its failure: the response time from the actual sends,
// less that lateness, holds (the host that woke the senders late reads the answers late
// too). A response time from the sends far over the limit is the system's, however late the
// senders (at 1,500/s against a link of 1,480/s: 35ms from the sends, late 4.4ms at P99).
func (p *Probe) lateFor(*result.Result) bool {
	return p.LatenessP99 >= 0 && p.hostExplains(func(t spec.Threshold) bool { return float64(p.LatenessP99) >= t.Limit/5 }, p.LatenessP99)
}

// fromSends is a failed latency threshold and its value from the actual sends (from the
// intended send times where the run kept no other).
type fromSends struct {
	t spec.Threshold
	v float64
}

// hostExplains reports whether a failed latency threshold material says is material holds
// from the actual sends once the host's delay is taken off.
func (p *Probe) hostExplains(material func(spec.Threshold) bool, delay int64) bool {
	for _, s := range p.sends {
		if material(s.t) && s.t.Holds(s.v-float64(delay)) {
			return true
		}
	}
	return false
}

// heldFromSends reports whether the response time from the actual sends held every failed
// latency threshold. Without one it cannot say: at the bound, an operation awaits its answer
// about bound / rate whether the system queued it or the bound was too small for the
// system's own response time (Little's law), so the system is not cleared on rate or loss
// thresholds alone.
func heldFromSends(res *result.Result) bool {
	failedP := false
	for _, v := range res.SLO {
		t := slo.Of(v)
		if v.Pass || t.Metric != "p" {
			continue
		}
		failedP = true
		if u, ok := slo.Uncorrected(res, t); !ok || !t.Holds(u) {
			return false
		}
	}
	return failedP
}

// sendsP99 is the P99 from the actual sends in words ("P99 from the sends 4.10ms"), or from
// the intended send times where the run kept no other.
func sendsP99(res *result.Result) string {
	if u, ok := slo.Uncorrected(res, spec.Threshold{Metric: "p", P: 99}); ok {
		return fmt.Sprintf("P99 from the sends %.2fms", u/1e6)
	}
	if v, ok, _ := slo.Measure(res, spec.Threshold{Metric: "p", P: 99}); ok {
		return fmt.Sprintf("P99 %.2fms", v/1e6)
	}
	return "no latency"
}

// evidence says in a few words what decided the probe (Probe.Evidence); full is how many
// open-model sends waited at the in-flight bound.
func (p *Probe) evidence(res *result.Result, offered float64, full int64) string {
	switch {
	case p.Pass:
		return "held: " + sendsP99(res)
	case p.Bound == BoundCPU:
		return fmt.Sprintf("natsperf's CPU %.0f%%", 100*p.CPUShare)
	case p.Bound == BoundShort:
		return fmt.Sprintf("its senders sent %s of %s msgs/s", units.Comma(int64(math.Round(p.Achieved))), units.Comma(int64(math.Round(offered))))
	case p.Bound == BoundBusy:
		return fmt.Sprintf("senders awaiting answers left late (P99 %.2fms)", ms(p.LatenessP99))
	case p.Bound == BoundTimer:
		return fmt.Sprintf("timer late while idle (late P99 %.2fms)", ms(p.LatenessP99))
	}
	for _, v := range res.SLO {
		if v.Pass {
			continue
		}
		t := slo.Of(v)
		switch t.Metric {
		case "p":
			s := sendsP99(res) + " rose with the load"
			if full > 0 {
				s += fmt.Sprintf("; %s sends waited at the in-flight bound", units.Comma(full))
			}
			return s
		case "rate":
			return fmt.Sprintf("answered %s of %s msgs/s", units.Comma(int64(math.Round(p.Achieved))), units.Comma(int64(math.Round(offered))))
		case "loss":
			return fmt.Sprintf("loss %s", units.Comma(p.Loss))
		}
	}
	if len(p.Failed) > 0 {
		return p.Failed[0]
	}
	return ""
}

// bound says why a generator-bound probe was natsperf's limit (Probe.Bound): its CPU, its
// senders' shortfall, or, when they only left late, senders waiting on the server for their
// previous send (a closed loop with its clients mostly busy) or a timer that woke mostly idle
// senders late.
func bound(res *result.Result, saturated, short, openLoop bool) string {
	switch {
	case saturated:
		return BoundCPU
	case short:
		return BoundShort
	}
	senders, busy, tail := 0, 0.0, false
	for _, g := range res.Groups {
		if g.TargetRate <= 0 || len(g.Clients) == 0 {
			continue
		}
		senders += len(g.Clients)
		if l := g.Aggregate.Latency; l != nil && l.Uncorrected != nil && !openLoop {
			// The share of its time a sender spent waiting for its reply or ack: a sender
			// busy half the time or more was late because it waited, not because it slept.
			perSender := g.TargetRate / float64(len(g.Clients))
			busy = max(busy, perSender*l.Uncorrected.Mean/1e9)
			// A slow tail does it too: a reply that takes longer than the gap to the
			// sender's next send makes that send late (50 requesters at 16,000/s: gaps of
			// 3.1ms, a lateness P99 of 8ms on a quiet machine, with a mean well under it).
			tail = tail || l.Uncorrected.At(99).Seconds()*perSender >= 1
		}
	}
	if busy >= 0.5 || tail {
		return BoundBusy
	}
	if c := res.CPU; c != nil && c.Cores > 0 && senders > 0 && c.CoreShare*float64(c.Cores) >= 0.9*float64(min(senders, c.Cores)) {
		return BoundCPU // each sender had a core to itself, and used it
	}
	return BoundTimer
}

// Bottleneck says why a generator-bound probe was natsperf's limit and what to do about it.
func (p Probe) Bottleneck() string {
	at := units.Comma(int64(math.Round(p.Offered)))
	switch p.Bound {
	case BoundShort:
		return fmt.Sprintf("the load generator was the bottleneck at %s msgs/s (its senders sent %s msgs/s): add clients or agents", at, units.Comma(int64(math.Round(p.Achieved))))
	case BoundCPU:
		return fmt.Sprintf("the load generator was the bottleneck at %s msgs/s (natsperf's CPU %.0f%%): add clients or agents", at, 100*p.CPUShare)
	case BoundBusy:
		return fmt.Sprintf("the load generator was the bottleneck at %s msgs/s: its senders were still waiting for replies or acks when their next send was due (send lateness P99 %.2fms): add --clients (js pub async: or a wider --batch window)", at, ms(p.LatenessP99))
	case BoundInflight:
		return fmt.Sprintf("the load generator was the bottleneck at %s msgs/s: its operations awaiting answers were at their bound while the response time from the actual sends held: raise --max-inflight", at)
	case BoundHost:
		return fmt.Sprintf("at %s msgs/s natsperf's host stalled (worst %.0fms) long enough to fail the threshold by itself: this machine did not keep up; rerun on a quieter one", at, ms(p.HostStallMax))
	case BoundTimer:
		return fmt.Sprintf("at %s msgs/s the senders' wake-ups were late (send lateness P99 %.2fms, natsperf's CPU %.0f%%): the threshold is finer than this machine's timer precision", at, ms(p.LatenessP99), 100*max(p.CPUShare, 0))
	}
	return fmt.Sprintf("the load generator was the bottleneck at %s msgs/s: add clients or agents", at)
}

func ms(ns int64) float64 { return float64(ns) / 1e6 }
