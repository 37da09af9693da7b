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
	var lat *hdrhistogram.Histogram
	for _, r := range recs {
		for _, s := range r.intervals {
			if s.Start < from || s.Start >= to {
				continue
			}
			msgs += s.Msgs
			if s.Lat == "" {
				continue
			}
			if h, err := histo.Decode(s.Lat); err == nil {
				if lat == nil {
					lat = histo.New()
				}
				lat.Merge(h)
			}
		}
	}
	return msgs, lat
}
