package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/result"
)

// TestCompareJSON: compare --json prints a JSON document whose figures are the Results' own.
func TestCompareJSON(t *testing.T) {
	s := startServer(t, nil)
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")}
	var totals []float64
	for _, f := range files {
		if r := run(context.Background(), t, nil, "pub", "cmpjson", "-s", s.ClientURL(), "--msgs", "2000", "--no-progress", "-o", f); r.code != 0 {
			t.Fatalf("pub exit %d: %s", r.code, r.err)
		}
		res, err := result.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		totals = append(totals, group(t, res, "pub").Aggregate.MsgsPerSec)
	}
	r := run(context.Background(), t, nil, "compare", files[0], files[1], "--json")
	if r.code != 0 {
		t.Fatalf("compare exit %d: %s", r.code, r.err)
	}
	var doc struct {
		Schema string `json:"schema"`
		Old    string `json:"old"`
		New    string `json:"new"`
		Rows   []struct {
			Cell   string `json:"cell"`
			Metric string `json:"metric"`
			Old    struct {
				N    int     `json:"n"`
				Mean float64 `json:"mean"`
			} `json:"old"`
			New struct {
				N    int     `json:"n"`
				Mean float64 `json:"mean"`
			} `json:"new"`
			Testable   bool `json:"testable"`
			Regression bool `json:"regression"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		t.Fatalf("compare --json is not JSON: %v\n%s", err, r.out)
	}
	if doc.Schema != "natsperf.compare/v1" || doc.Old != files[0] || doc.New != files[1] {
		t.Errorf("header: schema %q old %q new %q", doc.Schema, doc.Old, doc.New)
	}
	found := false
	for _, row := range doc.Rows {
		if row.Metric != "pub.total" {
			continue
		}
		found = true
		if row.Old.N != 1 || row.New.N != 1 || row.Old.Mean != totals[0] || row.New.Mean != totals[1] || row.Testable {
			t.Errorf("pub.total row %+v, want old %v new %v from the Results, n=1+1, untestable", row, totals[0], totals[1])
		}
	}
	if !found {
		t.Fatalf("no pub.total row in\n%s", r.out)
	}
}

// TestFileCommandsHideConnectionFlags: report and compare only read files; their --help does
// not offer --server, --creds and the other connection flags. A benchmark command still does.
func TestFileCommandsHideConnectionFlags(t *testing.T) {
	for _, cmd := range []string{"report", "compare"} {
		r := run(context.Background(), t, nil, cmd, "--help")
		if r.code != 0 || !strings.Contains(r.out, "Usage:") {
			t.Fatalf("%s --help: exit %d\n%s", cmd, r.code, r.out)
		}
		for _, flag := range []string{"--server", "--creds", "--tlsca", "--connect-timeout", "--context"} {
			if strings.Contains(r.out, flag) {
				t.Errorf("%s --help lists %s", cmd, flag)
			}
		}
	}
	if r := run(context.Background(), t, nil, "pub", "--help"); !strings.Contains(r.out, "--server") || !strings.Contains(r.out, "--creds") {
		t.Errorf("pub --help lost the connection flags:\n%s", r.out)
	}
}
