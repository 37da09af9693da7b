package report_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/spec"
)

// knownSearch is a search as the issue saw it: passing probes under a millisecond, a failing
// one of 2.5 s, and repeats at both sides of the knee.
func knownSearch() *capacity.Outcome {
	o := &capacity.Outcome{Command: "service request svc -s nats://127.0.0.1:4222 --clients 4", SLO: spec.MustThresholds("p99<5ms", "loss=0"),
		Min: 1000, Max: 1e5, Repeats: 3, Precision: 0.05, ProbeDuration: 5e9, Warmup: 1e9,
		Verdict: capacity.Found, Capacity: 8400, Low: 8400, High: 8900, PassRepeats: 3, FailRepeats: 3, Seconds: 95}
	rates := []float64{1000, 2000, 4000, 8000, 16000, 12000, 10000, 8900, 8400, 8900, 8400, 8900, 8400}
	for i, r := range rates {
		p := capacity.Probe{N: i + 1, Offered: r, Achieved: r, P50: 200e3 + int64(i)*5e3, P99: 800e3 + int64(i)*40e3, P999: 1.5e6, Pass: true,
			CPUShare: 0.2, LatenessP99: 30e3, Drained: true}
		switch {
		case r >= 16000:
			p.Achieved, p.P50, p.P99, p.P999, p.Pass, p.Failed = 11000, 900e6, 2.5e9, 2.6e9, false, []string{"p99<5ms"}
		case r > 8400:
			p.Achieved, p.P99, p.P999, p.Pass, p.Failed = r*0.99, 6e6+int64(i)*1e5, 9e6, false, []string{"p99<5ms"}
		}
		o.Probes = append(o.Probes, p)
	}
	return o
}

// TestCapacityPage: the page shows the answer at a glance. Latency is on a log axis labelled
// in ms (a 2.5 s probe no longer flattens the sub-millisecond ones onto the floor), the
// threshold is a dashed line, the knee is shaded, each rate is one point of each line with
// its repeats as dots, and the probe table scrolls in its box. Checked against a golden file
// (go test -update rewrites it) and, with chromium installed, in a real browser: the page is
// no wider than its window.
func TestCapacityPage(t *testing.T) {
	o := knownSearch()
	var b bytes.Buffer
	if err := report.CapacityHTML(&b, o); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	golden(t, "capacity.html", b.Bytes())
	for _, want := range []string{
		"latency (ms), log scale", ">0.1 ms<", ">1 ms<", ">1,000 ms<", // log axis in ms
		`<line class="slo"`, "SLO p99&lt;5ms", // the threshold, dashed by its class
		`<rect class="knee"`, "knee: passes at 8,400, fails at 8,900 msgs/s",
		`<div class="scroll-box"><pre>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	if strings.Contains(page, "e+0") {
		t.Error("the page labels an axis in e+ notation")
	}
	// One point per rate on each line: 9 distinct rates, whatever the repeats.
	for _, m := range regexp.MustCompile(`<path class="line" data-series="\d" d="([^"]+)"[^>]*><title>(P50|P99|P99\.9|achieved) `).FindAllStringSubmatch(page, -1) {
		if n := strings.Count(m[1], "L") + 1; n != 9 {
			t.Errorf("%s line has %d points, want one per rate (9)", m[2], n)
		}
		prev := -1.0
		for _, x := range regexp.MustCompile(`[ML]([0-9.]+),`).FindAllStringSubmatch(m[1], -1) {
			v, _ := strconv.ParseFloat(x[1], 64)
			if v <= prev {
				t.Errorf("%s line goes back on x (a zigzag): %s", m[2], m[1])
			}
			prev = v
		}
	}
	// Every probe is a dot on each latency line and on the achieved line; failed ones hollow.
	if n, want := strings.Count(page, `<circle class="dot`), 4*len(o.Probes); n != want {
		t.Errorf("%d dots, want %d", n, want)
	}
	if n := strings.Count(page, `<circle class="dot fail"`); n != 4*6 {
		t.Errorf("%d failed dots, want 24", n)
	}
	r := render(t, "capacity", page)
	if r.charts != 2 {
		t.Errorf("%d charts rendered, want 2", r.charts)
	}
}
