package histo

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/result"
)

// denseSummary is Summary as it was computed before the sparse copy: each figure from the
// dense histogram itself. The sparse path must give the same Result.
func denseSummary(t *testing.T, h *hdrhistogram.Histogram) *result.Latency {
	t.Helper()
	l := &result.Latency{Count: h.TotalCount(), Min: h.Min(), Mean: h.Mean(), Max: h.Max(), StdDev: h.StdDev()}
	values := h.ValueAtPercentilesSlice(Percentiles)
	for i, p := range Percentiles {
		v := values[i]
		if p == 100 {
			v = h.Max()
		}
		l.Percentiles = append(l.Percentiles, result.Percentile{P: p, Ns: v})
	}
	enc, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase)
	if err != nil {
		t.Fatal(err)
	}
	l.Histogram = string(enc)
	return l
}

// TestSparseSummaryIsTheDenseOne: on latencies from nanoseconds to minutes, a handful of
// values or a million, the summary, the merge and the encoding made through the sparse copy
// equal those of the dense histogram, and the encoding decodes to the same histogram.
func TestSparseSummaryIsTheDenseOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{1, 7, 1000, 1_000_000} {
		a, b := New(), New()
		for i := 0; i < n; i++ {
			v := int64(rng.ExpFloat64() * 300e3) // ~300us, a long tail
			if i%97 == 0 {
				v = rng.Int64N(int64(120e9)) // up to two minutes
			}
			Record(a, v)
			Record(b, v/3+1)
		}
		if got, want := Summary(a, true), denseSummary(t, a); !reflect.DeepEqual(got, want) {
			t.Fatalf("%d values: sparse summary\n%+v\nwant the dense one\n%+v", n, got, want)
		}
		dense := New()
		dense.Merge(a)
		dense.Merge(b)
		if got := Merge(a, nil, b); !got.Equals(dense) {
			t.Fatalf("%d values: Merge differs from the dense merge", n)
		}
		if got, want := SummaryOf(true, a, b), denseSummary(t, dense); !reflect.DeepEqual(got, want) {
			t.Fatalf("%d values: SummaryOf\n%+v\nwant\n%+v", n, got, want)
		}
		back, err := DecodeSparse(Summary(a, true).Histogram)
		if err != nil {
			t.Fatal(err)
		}
		again := New()
		back.MergeInto(again)
		if !again.Equals(a) {
			t.Fatalf("%d values: the encoding does not decode to the histogram", n)
		}
	}
	if Summary(New(), true) != nil || SummaryOf(true) != nil || SummaryOf(true, nil, New()) != nil {
		t.Fatal("an empty histogram has a summary")
	}
}
