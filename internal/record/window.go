package record

import (
	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/internal/histo"
)

// Window merges the recorders' interval slices that start in [from, to) (Clock nanoseconds):
// their message count and, when latency was recorded, their latencies. Its precision is one
// interval.
func Window(recs []*Recorder, from, to int64) (int64, *hdrhistogram.Histogram) {
	var msgs int64
	var lat *histo.Sparse
	eachSlice(recs, func(start int64, s *groupSlice) {
		if start < from || start >= to {
			return
		}
		msgs += s.msgs
		if s.lat == nil {
			return
		}
		if lat == nil {
			lat = histo.NewSparse()
		}
		lat.Merge(s.lat)
	})
	if lat == nil {
		return msgs, nil
	}
	out := histo.New()
	lat.MergeInto(out)
	return msgs, out
}
