package result

import (
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// At is the latency at percentile p (0-100: 99.9 is P99.9), as the run's histogram gives it
// (exact to its precision, any p); without one, the percentile table's row for p, else the
// first row above it. 0 for no latency (a nil Latency, or no samples).
func (l *Latency) At(p float64) time.Duration {
	if l == nil || l.Count == 0 {
		return 0
	}
	if p >= 100 {
		return time.Duration(l.Max)
	}
	if l.Histogram != "" {
		if h, err := hdrhistogram.Decode([]byte(l.Histogram)); err == nil {
			return time.Duration(h.ValueAtPercentile(max(p, 0)))
		}
	}
	for _, row := range l.Percentiles {
		if row.P >= p {
			return time.Duration(row.Ns)
		}
	}
	return time.Duration(l.Max)
}
