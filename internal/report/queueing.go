package report

import (
	"strings"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/result"
)

// Queueing thresholds: an end-to-end P50 this long, and this share of the time the publishers
// took to send, grew with the run rather than being one message's trip (a trip does not get
// longer because more messages follow it).
const (
	queueingMinP50  = int64(1e6) // 1 ms
	queueingOfSends = 0.1
)

// Queueing is the receivers' end-to-end P50 when it is mostly queueing behind unpaced
// publishers, and whether it is: the Result holds its own publishers, none of them paced by
// --rate, and the receivers' P50 is at least queueingMinP50 and queueingOfSends of the
// publishers' sending time (first to last publish). A receiver then measures how long
// messages waited behind those sent before them, which grows with the run's length.
func Queueing(r *result.Result) (p50 int64, ok bool) {
	var sendNs int64
	var recv []result.Group
	for _, g := range r.Groups {
		switch {
		case g.Name == "pub" || strings.HasSuffix(g.Name, "/pub"):
			if g.TargetRate > 0 {
				return 0, false
			}
			if a := g.Aggregate; !a.Start.IsZero() && a.End.After(a.Start) {
				sendNs = max(sendNs, int64(a.End.Sub(a.Start)))
			}
		case g.Aggregate.Correctness != nil && g.Aggregate.Latency != nil:
			recv = append(recv, g)
		}
	}
	if sendNs == 0 {
		return 0, false
	}
	for _, g := range recv {
		p50 = max(p50, histo.At(g.Aggregate.Latency, 50))
	}
	return p50, p50 >= queueingMinP50 && float64(p50) >= queueingOfSends*float64(sendNs)
}

// queueing prints one line when Queueing applies: what the P50 measures, and --rate.
func (p *printer) queueing(r *result.Result) {
	if p50, ok := Queueing(r); ok {
		p.line("Note: P50 %s is mostly queueing behind publishers sending flat out (no --rate); pace them with --rate to measure latency at a load the system keeps up with", Duration(p50))
	}
}
