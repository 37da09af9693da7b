package record

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/result"
)

// Split splits one message's end-to-end latency total at the moment its stream stored it:
// stored is the stream's timestamp (Unix ns, the server's clock), offset the server's clock
// minus natsperf's (0 on one clock; an estimate across hosts, docs/telemetry.md) and now
// natsperf's clock at delivery. stored -> delivered is now minus the stored time on natsperf's
// clock, publish -> stored the rest, so the two add up to total exactly. A part that would be
// negative (a clock estimate off by more than that part) is 0 and the other is total.
func Split(total, now, stored, offset int64) (toStored, toDelivered int64) {
	total = max(total, 0)
	toDelivered = min(max(now-(stored-offset), 0), total)
	return total - toDelivered, toDelivered
}

// storedOffset is Options.StoredClock's value, 0 when unset.
func (r *Recorder) storedOffset() int64 {
	if r.opts.StoredClock == nil {
		return 0
	}
	return r.opts.StoredClock.Load()
}

// breakdown records one message's split (Split).
func (r *Recorder) breakdown(toStored, toDelivered int64) {
	if r.toStored == nil {
		r.toStored, r.toDelivered = histo.New(), histo.New()
	}
	histo.Record(r.toStored, toStored)
	histo.Record(r.toDelivered, toDelivered)
}

// Breakdown is the split of the recorders' JetStream latencies, nil when none said when it
// was stored.
func Breakdown(recs ...*Recorder) *result.Breakdown {
	var stored, delivered []*hdrhistogram.Histogram
	for _, r := range recs {
		if r.toStored != nil {
			stored, delivered = append(stored, r.toStored), append(delivered, r.toDelivered)
		}
	}
	if len(stored) == 0 {
		return nil
	}
	return &result.Breakdown{
		PublishToStored:   histo.SummaryOf(true, stored...),
		StoredToDelivered: histo.SummaryOf(true, delivered...),
	}
}
