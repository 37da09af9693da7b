package record

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/result"
)

// breakdown splits one message's end-to-end latency at the moment its stream stored it:
// stored -> delivered is now minus the stream's timestamp, publish -> stored the rest, so the
// two add up to the end-to-end latency exactly (each then rounded by its histogram). The
// stream's timestamp is the server's clock: on one host the split is exact; across hosts it
// is off by the server's clock offset (docs/telemetry.md). A part that comes out negative
// (a clock behind) is recorded as 0.
func (r *Recorder) breakdown(total, delivered int64) {
	if r.toStored == nil {
		r.toStored, r.toDelivered = histo.New(), histo.New()
	}
	delivered = min(max(delivered, 0), max(total, 0))
	histo.Record(r.toStored, max(total-delivered, 0))
	histo.Record(r.toDelivered, delivered)
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
