// Package histo creates, summarises, encodes and exports the HdrHistograms natsperf records
// latencies into. All values are nanoseconds.
package histo

import (
	"encoding/base64"
	"fmt"
	"io"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/result"
)

// Range and precision of every latency histogram: 1 ns to 1 hour at 3 significant digits.
const (
	Lowest  = 1
	Highest = int64(3600e9)
	Digits  = 3
)

// Percentiles is the table kept in every Result: the nats bench figures plus latency-tests' tail.
var Percentiles = []float64{10, 25, 50, 75, 90, 95, 99, 99.9, 99.99, 99.999, 99.9999, 99.99999, 100}

// New returns an empty latency histogram.
func New() *hdrhistogram.Histogram {
	return hdrhistogram.New(Lowest, Highest, Digits)
}

// Record adds one value, clamped into the trackable range so nothing is silently dropped.
func Record(h *hdrhistogram.Histogram, ns int64) {
	if ns < Lowest {
		ns = Lowest
	} else if ns > Highest {
		ns = Highest
	}
	_ = h.RecordValue(ns) // cannot fail inside the range
}

// Summary summarises h for a Result, with the encoded histogram when withHist is set.
// It returns nil for an empty histogram. It works on a sparse copy (SparseSummary): one pass
// over h's counts instead of one per figure.
func Summary(h *hdrhistogram.Histogram, withHist bool) *result.Latency {
	if h == nil || h.TotalCount() == 0 {
		return nil
	}
	return SparseSummary(SparseOf(h), withHist)
}

// At returns the value of percentile p from a summary's table, or -1 when it is not there.
func At(l *result.Latency, p float64) int64 {
	if l == nil {
		return -1
	}
	for _, row := range l.Percentiles {
		if row.P == p {
			return row.Ns
		}
	}
	return -1
}

// Encode returns h in HdrHistogram's standard compressed encoding, base64 (V2, as the Java and
// Go libraries read it).
func Encode(h *hdrhistogram.Histogram) (string, error) {
	b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return string(b), nil
}

// Decode reads a histogram written by Encode.
func Decode(s string) (*hdrhistogram.Histogram, error) {
	if err := checkBase64(s); err != nil {
		return nil, err
	}
	h, err := hdrhistogram.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// checkBase64 refuses an encoding that is not base64 before the library reads it.
func checkBase64(s string) error {
	if _, err := base64.StdEncoding.DecodeString(s); err != nil {
		return fmt.Errorf("decode histogram: %w", err)
	}
	return nil
}

// Merge returns a new histogram holding every value of hs. Only the recorded buckets of each
// are visited.
func Merge(hs ...*hdrhistogram.Histogram) *hdrhistogram.Histogram {
	out := New()
	SparseOf(hs...).MergeInto(out)
	return out
}

// WriteHGRM writes h in the percentile-distribution format (.hgrm) that HdrHistogram's plotter
// reads, with values in milliseconds as latency-tests writes them.
func WriteHGRM(w io.Writer, h *hdrhistogram.Histogram) error {
	if _, err := h.PercentilesPrint(w, 5, 1e6); err != nil {
		return fmt.Errorf("write histogram: %w", err)
	}
	return nil
}
