package histo

import (
	"fmt"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/result"
)

// Sparse is a latency histogram that holds only its recorded buckets: the form a recorded
// histogram is summarised, merged and encoded in. A dense histogram (New) is what clients
// record into, one array write per value; but its summaries, merges and encoding walk its
// whole range (33,792 buckets from 1 ns to an hour), hundreds of microseconds for a few
// dozen buckets used. Summed over every client of a run, every interval and the run's end,
// that was a quarter of a 50-client requester's CPU. A sparse copy takes one pass over the
// dense counts, after which everything costs what was recorded.
type Sparse = hdrhistogram.PackedHistogram

// NewSparse returns an empty sparse histogram of the latency histograms' range.
func NewSparse() *Sparse { return hdrhistogram.NewPacked(Lowest, Highest, Digits) }

// RecordSparse is Record for a sparse histogram (clamped into the range alike).
func RecordSparse(s *Sparse, ns int64) {
	_ = s.RecordValue(min(max(ns, Lowest), Highest)) // cannot fail inside the range
}

// SparseOf returns the values of hs (nil ones skipped) in one sparse histogram.
func SparseOf(hs ...*hdrhistogram.Histogram) *Sparse {
	s := NewSparse()
	for _, h := range hs {
		if h != nil && h.TotalCount() > 0 {
			s.MergeFrom(h)
		}
	}
	return s
}

// SummaryOf is Summary of the values of hs merged.
func SummaryOf(withHist bool, hs ...*hdrhistogram.Histogram) *result.Latency {
	return SparseSummary(SparseOf(hs...), withHist)
}

// SparseSummary is Summary for a sparse histogram; the figures and the encoding are the same
// as the dense histogram's with the same values.
func SparseSummary(s *Sparse, withHist bool) *result.Latency {
	if s == nil || s.TotalCount() == 0 {
		return nil
	}
	l := &result.Latency{
		Count:  s.TotalCount(),
		Min:    s.Min(),
		Mean:   s.Mean(),
		Max:    s.Max(),
		StdDev: s.StdDev(),
	}
	values := s.ValueAtPercentilesSlice(Percentiles)
	for i, p := range Percentiles {
		v := values[i]
		if p == 100 {
			v = l.Max
		}
		l.Percentiles = append(l.Percentiles, result.Percentile{P: p, Ns: v})
	}
	if withHist {
		if enc, err := EncodeSparse(s); err == nil {
			l.Histogram = enc
		}
	}
	return l
}

// EncodeSparse is Encode for a sparse histogram (the same bytes).
func EncodeSparse(s *Sparse) (string, error) {
	b, err := s.Encode()
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return string(b), nil
}

// DecodeSparse reads a histogram written by Encode or EncodeSparse as a sparse one: no dense
// array of the whole range is made.
func DecodeSparse(enc string) (*Sparse, error) {
	if err := checkBase64(enc); err != nil {
		return nil, err
	}
	s, err := hdrhistogram.DecodePacked([]byte(enc))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return s, nil
}
