package capacity

import (
	"fmt"
	"math"
	"time"

	"github.com/natsperf/natsperf/spec"
)

// The host watch: while a probe runs, a goroutine of natsperf's sleeps 1ms again and again
// and keeps how late each wake-up was. A system that shares a slow or stalled host with
// natsperf, or natsperf's own reading of the answers, is held back by the same stalls; its
// senders' lateness sees them only at send times. So a failed latency threshold is charged
// to the host (and the probe run again) when the host stalled by half the limit or more for
// at least half the share of the probe that the percentile lets go over it (0.5% of the
// probe for a p99): stalls that alone could have failed it; and when the system kept the
// offered rate (answered 98% of it or more: stalls close together add up, 197ms from the
// sends at 1,000/s against a 1,500/s responder with the process stalled 15% of the probe) or
// the response time from the actual sends, less the worst stall, holds. A system answering
// short of the rate with the response time far over the threshold is the system's, however
// the host stalled meanwhile (2,000/s against a link of 1,480/s: 1,427 answered, 77ms from the
// sends with stalls up to 28ms).

const watchEvery = time.Millisecond

// hostWatch measures this process's wake-ups until stop, which returns the stalls: each
// wake-up at least 1ms late, with its lateness.
func hostWatch() (stop func() (stalls []time.Duration, span time.Duration)) {
	done := make(chan struct{})
	out := make(chan []time.Duration, 1)
	start := time.Now()
	go func() {
		var late []time.Duration
		t := time.NewTimer(watchEvery)
		defer t.Stop()
		for {
			due := time.Now().Add(watchEvery)
			select {
			case <-done:
				out <- late
				return
			case <-t.C:
			}
			if d := time.Since(due); d >= time.Millisecond {
				late = append(late, d)
			}
			t.Reset(watchEvery)
		}
	}()
	return func() ([]time.Duration, time.Duration) {
		close(done)
		return <-out, time.Since(start)
	}
}

// judgeHost charges p, a failed probe charged to the system or to the in-flight bound, to
// natsperf's host when the stalls during it could have failed one of its latency thresholds
// by themselves (see above). A stall fills the bound too: the answers wait unread (1,250/s
// with the process stalled 25% of the probe, the worst 203ms: 21 sends at the bound).
func (p *Probe) judgeHost(stalls []time.Duration, span time.Duration, offered float64) {
	var sum time.Duration
	for _, d := range stalls {
		p.HostStallMax = max(p.HostStallMax, int64(d))
		sum += d
	}
	if span > 0 {
		p.HostStalled = float64(sum) / float64(span)
	}
	if p.Pass || (p.GeneratorBound && p.Bound != BoundInflight) || len(p.Agents) > 0 {
		return
	}
	var stalled time.Duration
	material := func(t spec.Threshold) bool {
		stalled = 0
		for _, d := range stalls {
			if float64(d) >= t.Limit/2 {
				stalled += d
			}
		}
		return t.P < 100 && float64(stalled) >= float64(span)*(100-t.P)/100/2
	}
	kept := offered > 0 && p.Achieved >= 0.98*offered
	if kept && p.hostExplains(material, math.MaxInt64/2) || p.hostExplains(material, p.HostStallMax) {
		p.GeneratorBound, p.Bound = true, BoundHost
		p.Evidence = fmt.Sprintf("natsperf's host stalled %.0fms in %.1fs (worst %.0fms) with %s: this machine did not keep up", ms(int64(stalled)), span.Seconds(), ms(p.HostStallMax), p.Evidence)
	}
}
