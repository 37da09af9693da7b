package rustclient

import (
	"strconv"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/result"
)

// checkSeries asserts the shape of a group's series as Go writes it: slices aligned to the
// run's start at multiples of the interval, in order, adding up to the group's messages and
// bytes, each latency histogram decoding (hdrhistogram-go) to its slice's percentiles.
func checkSeries(t *testing.T, g result.Group, width time.Duration, latency bool) {
	t.Helper()
	if len(g.Series) < 2 {
		t.Fatalf("group %s: %d intervals, want a series", g.Name, len(g.Series))
	}
	var msgs, bytes int64
	for i, iv := range g.Series {
		if iv.Offset%width != 0 || (i > 0 && iv.Offset <= g.Series[i-1].Offset) {
			t.Fatalf("group %s interval %d at %v: not aligned to %v or out of order", g.Name, i, iv.Offset, width)
		}
		msgs += iv.Msgs
		bytes += iv.Bytes
		if !latency {
			continue
		}
		h, err := histo.Decode(iv.Histogram)
		if err != nil || h.TotalCount() != iv.Msgs {
			t.Fatalf("group %s interval %d: histogram %v with %d samples, want %d", g.Name, i, err, h.TotalCount(), iv.Msgs)
		}
		if iv.Max != h.Max() || iv.P50 > iv.P90 || iv.P90 > iv.P99 || iv.P99 > iv.Max || iv.P50 == 0 {
			t.Fatalf("group %s interval %d: p50 %d p90 %d p99 %d max %d (histogram max %d)", g.Name, i, iv.P50, iv.P90, iv.P99, iv.Max, h.Max())
		}
	}
	if msgs != g.Aggregate.Msgs || bytes != g.Aggregate.Bytes {
		t.Fatalf("group %s: series adds up to %d msgs %d bytes, the group has %d %d", g.Name, msgs, bytes, g.Aggregate.Msgs, g.Aggregate.Bytes)
	}
}

// TestRustSeries: natsperf-rust writes the per-interval series Go does: a paced Rust
// publisher's and a Rust subscriber's slices are aligned, add up to what the server counted,
// carry per-interval latency histograms, and `report` plots them over time.
func TestRustSeries(t *testing.T) {
	bin := rustBin(t)
	s := natstest.Server(t, nil)
	const n, rate = 4000, 2000
	sub := startRust(t, bin, "sub", "x.series", "-s", s.ClientURL(), "--msgs", strconv.Itoa(n), "--idle-timeout", "20s", "--interval", "500ms")
	sub.waitReady(t)
	pub := startRust(t, bin, "pub", "x.series", "-s", s.ClientURL(), "--msgs", strconv.Itoa(n), "--rate", strconv.Itoa(rate), "--size", "64", "--interval", "500ms")
	pcode, pres, pdoc := pub.wait(t)
	scode, sres, sdoc := sub.wait(t)
	if pcode != 0 || scode != 0 {
		t.Fatalf("exit pub %d sub %d; stderr %s %s", pcode, scode, pub.stderr.String(), sub.stderr.String())
	}
	checkSchema(t, pdoc)
	checkSchema(t, sdoc)
	in, out := rustConns(t, s)
	if in != n || out != n || pres.Groups[0].Aggregate.Msgs != in || sres.Groups[0].Aggregate.Msgs != out {
		t.Fatalf("server: natsperf-rust published %d, was delivered %d; Results %d, %d; want %d", in, out, pres.Groups[0].Aggregate.Msgs, sres.Groups[0].Aggregate.Msgs, n)
	}
	checkSeries(t, pres.Groups[0], 500*time.Millisecond, false)
	checkSeries(t, sres.Groups[0], 500*time.Millisecond, true)
	// 2s at 2,000/s: four or five half-second slices (the last may spill over).
	if k := len(pres.Groups[0].Series); k < 4 || k > 6 {
		t.Fatalf("publisher series has %d slices, want 4 to 6", k)
	}
	pts := report.Entry{Result: sres}.Series()["sub"]
	if len(pts) < 4 {
		t.Fatalf("report plots %d points of the Rust subscriber, want the series: %+v", len(pts), pts)
	}
	// Two Rust parts' series merge (result.Merge aligns them by offset).
	if _, err := result.Merge(sres, sres); err != nil {
		t.Fatalf("merge of Rust parts with series: %v", err)
	}
}
