package report_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/report/reporttest"
	"github.com/natsperf/natsperf/internal/scenario"
)

// knownEffects: memory x1.5 the rates, 3 replicas x0.5 the rates and x2 the latencies, async
// publishing x2 the rates at 1 replica but x0.8 at 3 (an interaction), file storage 1.1 bytes
// per expected byte. One cell is missing (unbalanced) and one run failed.
func knownEffects(t *testing.T) *report.Set {
	t.Helper()
	dir := t.TempDir()
	axes := []scenario.Axis{{Name: "storage", Values: []string{"file", "memory"}}, {Name: "replicas", Values: []string{"1", "3"}},
		{Name: "publish", Values: []string{"sync", "async"}}}
	effect := func(v map[string]string) reporttest.Factors {
		f := reporttest.Factors{Rate: 1, Latency: 1, Overhead: 1}
		if v["storage"] == "memory" {
			f.Rate *= 1.5
		} else {
			f.Overhead = 1.1
		}
		if v["replicas"] == "3" {
			f.Rate *= 0.5
			f.Latency = 2
		}
		if v["publish"] == "async" {
			f.Rate *= map[string]float64{"1": 2, "3": 0.8}[v["replicas"]]
		}
		return f
	}
	skip := func(v map[string]string) bool {
		return v["storage"] == "memory" && v["replicas"] == "3" && v["publish"] == "async"
	}
	if err := reporttest.WriteMatrix(dir, 11, axes, 3, effect, skip); err != nil {
		t.Fatal(err)
	}
	if err := reporttest.Fail(dir, "storage=file,replicas=1,publish=sync", 2, "server gone"); err != nil {
		t.Fatal(err)
	}
	s, err := report.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestEffectsKnown(t *testing.T) {
	s := knownEffects(t)
	got := map[string]report.Effect{}
	for _, e := range report.Effects(s) {
		got[e.Axis+" "+e.Level+" "+e.Metric.Key] = e
	}
	for _, tc := range []struct {
		key   string
		want  float64
		pairs int
	}{
		{"storage memory pub.total", 1.5, 3},
		{"storage memory sub.total", 1.5, 3},
		{"replicas 3 pub.total", math.Cbrt(0.5 * 0.2 * 0.5), 3}, // geometric mean of the file/sync, file/async (x0.5x0.8/2) and memory/sync pairs
		{"replicas 3 sub.p99", 2, 3},
		{"replicas 3 pub.p50", 2, 3},
		{"storage memory overhead", 1 / 1.1, 3},
	} {
		e, ok := got[tc.key]
		if !ok {
			t.Errorf("%s: no effect", tc.key)
			continue
		}
		if math.Abs(e.Ratio/tc.want-1) > 0.12 || e.Pairs != tc.pairs || !e.CI || !e.Significant() {
			t.Errorf("%s: %s from %d pairs; want x%.2f from %d pairs, significant", tc.key, e.Value(), e.Pairs, tc.want, tc.pairs)
		}
		if e.CI && (e.Lo > e.Ratio || e.Hi < e.Ratio) {
			t.Errorf("%s: interval %s does not hold the ratio", tc.key, e.Value())
		}
	}
	if e := got["publish async sub.p50"]; e.Significant() {
		t.Errorf("publish has no latency effect, got %s", e.Value())
	}
	e := got["publish async pub.total"]
	if len(e.Flips) != 1 || e.Flips[0].Axis != "replicas" {
		t.Fatalf("publish async vs sync on pub msgs/s: flips %v, want one with replicas", e.Flips)
	}
	_, verdicts, interactions := report.EffectLines(report.Effects(s))
	if !slicesContain(verdicts, "replicas=3 instead of 1: pub msgs/s") || !slicesContain(interactions, "flips with replicas") {
		t.Errorf("verdicts %q\ninteractions %q", verdicts, interactions)
	}
	lines, verdicts, interactions := report.EffectLines(report.Effects(s))
	golden(t, "effects.txt", []byte(strings.Join(lines, "\n")+"\n\nverdicts:\n"+strings.Join(verdicts, "\n")+"\n\ninteractions:\n"+strings.Join(interactions, "\n")+"\n"))
}

func slicesContain(xs []string, sub string) bool {
	for _, x := range xs {
		if strings.Contains(x, sub) {
			return true
		}
	}
	return false
}

// TestMarkdownMatrix: the Markdown of the known-effects fixture (header, failed run, effects,
// storage, per instance) against its golden file.
func TestMarkdownMatrix(t *testing.T) {
	var b strings.Builder
	s := knownEffects(t)
	if err := report.Markdown(&b, s, "matrix"); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"- **runs**: 7 cells x up to 3 repetitions = 21 runs, 1 failed", "## Failed runs", "| storage=file,replicas=1,publish=sync | 2 | server gone |",
		"## What each choice changes", "- Interaction: publish async vs sync, pub msgs/s flips with replicas", "| 3 vs 1 |", "## Storage", "1.10x", "## Per instance"} {
		if !strings.Contains(md, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	golden(t, "matrix.md", []byte(md))
}

// TestEffectsJSON: the JSON report carries the effects with their intervals.
func TestEffectsJSON(t *testing.T) {
	var b bytes.Buffer
	if err := report.JSON(&b, knownEffects(t)); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Effects []struct {
			Axis, Level, Metric string
			Ratio, Low, High    float64
			FlipsWith           []string `json:"flips_with"`
		}
	}
	if err := json.Unmarshal(b.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	found := 0
	for _, e := range doc.Effects {
		if e.Axis == "replicas" && e.Metric == "sub.p99" && e.Low < e.Ratio && e.Ratio < e.High && e.Low > 1.5 {
			found++
		}
		if e.Axis == "publish" && e.Metric == "pub.total" && len(e.FlipsWith) == 1 {
			found++
		}
	}
	if found != 2 {
		t.Errorf("effects in the JSON: %+v", doc.Effects)
	}
}
