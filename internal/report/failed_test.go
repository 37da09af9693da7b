package report_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/report/reporttest"
	"github.com/natsperf/natsperf/result"
)

const failReason = "connection to nats://127.0.0.1:4222 lost"

func failedFixture(t *testing.T) *report.Set {
	t.Helper()
	dir := t.TempDir()
	if err := reporttest.Write(dir, 42, 3, 1, 1); err != nil {
		t.Fatal(err)
	}
	if err := reporttest.Fail(dir, "storage=file", 3, failReason); err != nil {
		t.Fatal(err)
	}
	s, err := report.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestFailedRunExcluded: a failed run (zero rates) is left out of every aggregate, and every
// format names it with its reason (issue 9 item 7: "537 ± 466" from 839, 772 and a failed 0).
func TestFailedRunExcluded(t *testing.T) {
	s := failedFixture(t)
	cell := s.Cells[0]
	if cell.Name != "storage=file" {
		t.Fatalf("first cell %s", cell.Name)
	}
	var ok []float64
	for _, r := range cell.Runs {
		if r.Result.Stop.Reason == "completed" {
			ok = append(ok, report.Values(r.Result)["pub.rate"])
		}
	}
	if len(ok) != 2 {
		t.Fatalf("%d completed runs, want 2", len(ok))
	}
	want := report.Of(ok)
	metrics := report.Metrics(s)
	got := report.CellStats(cell, metrics)["pub.rate"]
	if got.N != 2 || got.Mean != want.Mean || got.Min == 0 {
		t.Fatalf("pub.rate over the cell: n=%d mean %.1f min %.1f; want n=2 mean %.1f (the failed run left out)", got.N, got.Mean, got.Min, want.Mean)
	}
	if h := cell.Latency("sub"); h == nil || h.TotalCount() != 2*2*2000 {
		t.Errorf("merged latency holds %v values, want the 2 completed runs' 8000", h.TotalCount())
	}
	pubRate := metrics[0]
	for _, tc := range []struct {
		name string
		f    func(*bytes.Buffer) error
		want []string
	}{
		{"md", func(b *bytes.Buffer) error { return report.Markdown(b, s, "") }, []string{"| file | 2 (1 failed) |", report.Format(pubRate, want.Mean) + " ± ", "| storage=file | 3 | " + failReason + " |"}},
		{"html", func(b *bytes.Buffer) error { return report.HTML(b, s, "") }, []string{"<td>2 (1 failed)</td>", "<td>storage=file</td><td>3</td><td>" + failReason + "</td>"}},
		{"csv", func(b *bytes.Buffer) error { return report.CSV(b, s) }, []string{"storage=file,file,3,failed," + failReason}},
		{"json", func(b *bytes.Buffer) error { return report.JSON(b, s) }, []string{`"runs": 2`, `"failed": [`, failReason}},
	} {
		var b bytes.Buffer
		if err := tc.f(&b); err != nil {
			t.Fatal(err)
		}
		for _, w := range tc.want {
			if !strings.Contains(b.String(), w) {
				t.Errorf("%s lacks %q", tc.name, w)
			}
		}
	}
}

// TestSetupFailedRunLoads: a run that failed before its clients started (the scenario's stream
// lookup timed out on a loaded cluster) has a Result with no groups; the report lists it as
// failed, like any other, instead of refusing the whole directory.
func TestSetupFailedRunLoads(t *testing.T) {
	dir := t.TempDir()
	if err := reporttest.Write(dir, 42, 3, 1, 1); err != nil {
		t.Fatal(err)
	}
	const reason = "look up stream default: context deadline exceeded"
	if err := reporttest.Fail(dir, "storage=file", 3, reason); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	emptied := 0
	for _, p := range paths {
		res, err := result.ReadFile(p)
		if err != nil || res.Stop.Reason != result.StopFailed {
			continue
		}
		res.Groups = nil
		if err := result.WriteFile(p, res); err != nil {
			t.Fatal(err)
		}
		emptied++
	}
	if emptied != 1 {
		t.Fatalf("emptied %d failed Results, want 1", emptied)
	}
	s, err := report.Load([]string{dir})
	if err != nil {
		t.Fatalf("load: %v", err)
	}
	var md bytes.Buffer
	if err := report.Markdown(&md, s, "eval"); err != nil {
		t.Fatal(err)
	}
	var html, csv, js bytes.Buffer
	for name, err := range map[string]error{"html": report.HTML(&html, s, "eval"), "csv": report.CSV(&csv, s), "json": report.JSON(&js, s)} {
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	for name, out := range map[string]string{"markdown": md.String(), "html": html.String(), "json": js.String()} {
		if !strings.Contains(out, reason) {
			t.Errorf("the %s does not name the failed run's reason %q", name, reason)
		}
	}
	if got := report.CellStats(s.Cells[0], report.Metrics(s))["pub.rate"]; got.N != 2 || got.Min == 0 {
		t.Fatalf("pub.rate over the cell: n=%d min %.1f; want the 2 completed runs", got.N, got.Min)
	}
}
