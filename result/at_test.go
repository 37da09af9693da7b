package result_test

import (
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/result"
)

// Latency.At reads any percentile from the histogram (1..1000 µs: P50 is 500 µs, P99.9 999
// µs, to the histogram's 3 digits), 100 as the max; without a histogram, the table's row for
// p or the first above it; nothing recorded is 0.
func TestLatencyAt(t *testing.T) {
	h := hdrhistogram.New(1, int64(time.Minute), 3)
	for v := int64(1); v <= 1000; v++ {
		_ = h.RecordValue(v * int64(time.Microsecond))
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	l := &result.Latency{Count: h.TotalCount(), Max: h.Max(), Histogram: string(enc)}
	near := func(got, want time.Duration) bool { return got >= want && got <= want+want/500 }
	for p, want := range map[float64]time.Duration{50: 500 * time.Microsecond, 99.9: 999 * time.Microsecond, 90: 900 * time.Microsecond} {
		if got := l.At(p); !near(got, want) {
			t.Errorf("At(%v) = %v, want %v", p, got, want)
		}
	}
	if got := l.At(100); got != time.Duration(h.Max()) {
		t.Errorf("At(100) = %v, want the max %v", got, time.Duration(h.Max()))
	}
	table := &result.Latency{Count: 10, Max: 9000, Percentiles: []result.Percentile{{P: 50, Ns: 100}, {P: 99, Ns: 700}, {P: 99.9, Ns: 800}}}
	for p, want := range map[float64]time.Duration{50: 100, 90: 700, 99: 700, 99.99: 9000} {
		if got := table.At(p); got != want {
			t.Errorf("table At(%v) = %v, want %v", p, got, want)
		}
	}
	if got := (*result.Latency)(nil).At(99); got != 0 {
		t.Errorf("nil At(99) = %v, want 0", got)
	}
}
