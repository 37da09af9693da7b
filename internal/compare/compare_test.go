package compare

import (
	"bytes"
	"flag"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/report/reporttest"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func TestMannWhitney(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []float64
		want float64
	}{
		// Exact: completely separated samples of 3 and 3 give 2/C(6,3) = 0.1.
		{"separated 3+3", []float64{1, 2, 3}, []float64{4, 5, 6}, 0.1},
		{"separated 5+5", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 2.0 / 252},
		{"identical", []float64{1, 1, 1}, []float64{1, 1, 1}, 1},
		{"interleaved", []float64{1, 3, 5}, []float64{2, 4, 6}, 0.7},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := MannWhitney(tc.a, tc.b); math.Abs(got-tc.want) > 1e-9 {
				t.Fatalf("p = %v, want %v", got, tc.want)
			}
		})
	}
	if MinP(3, 3) < Alpha || MinP(4, 4) >= Alpha {
		t.Fatalf("MinP(3,3)=%v MinP(4,4)=%v", MinP(3, 3), MinP(4, 4))
	}
}

func load(t *testing.T, seed uint64, reps int, speed, slow float64) *report.Set {
	t.Helper()
	dir := t.TempDir()
	if err := reporttest.Write(dir, seed, reps, speed, slow); err != nil {
		t.Fatal(err)
	}
	s, err := report.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestCompare(t *testing.T) {
	old := load(t, 1, 6, 1, 1)
	t.Run("same distribution is noise", func(t *testing.T) {
		rows := Compare(old, load(t, 2, 6, 1, 1), 5)
		for _, r := range rows {
			if strings.HasSuffix(r.Metric.Key, ".rate") && r.Significant {
				t.Errorf("%s %s: significant (p=%v) between two samples of one distribution", r.Cell, r.Metric.Key, r.P)
			}
		}
	})
	t.Run("slower is a regression", func(t *testing.T) {
		rows := Compare(old, load(t, 3, 6, 0.5, 2), 10)
		regressed := map[string]bool{}
		for _, r := range rows {
			if r.Regression {
				regressed[r.Metric.Key] = true
			}
		}
		for _, k := range []string{"pub.rate", "sub.rate", "sub.p50"} {
			if !regressed[k] {
				t.Errorf("%s not reported as a regression", k)
			}
		}
	})
	t.Run("too few repetitions: delta decides", func(t *testing.T) {
		rows := Compare(load(t, 1, 1, 1, 1), load(t, 3, 1, 0.5, 1), 10)
		found := false
		for _, r := range rows {
			if r.Testable || r.Significant {
				t.Fatalf("%s testable with 1+1 samples", r.Metric.Key)
			}
			found = found || (r.Metric.Key == "pub.rate" && r.Regression)
		}
		if !found {
			t.Fatal("a halved rate is not a regression")
		}
	})
}

func TestGolden(t *testing.T) {
	rows := Compare(load(t, 1, 6, 1, 1), load(t, 3, 6, 0.8, 1), 10)
	var b bytes.Buffer
	if err := Write(&b, rows); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("testdata", "compare.txt")
	if *update {
		_ = os.MkdirAll("testdata", 0o755)
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test -update creates it)", err)
	}
	if !bytes.Equal(b.Bytes(), want) {
		t.Errorf("compare output differs from %s\n%s", path, b.String())
	}
}

// TestCompareLeavesOutFailedRuns: a failed run's zeros do not drag the mean down, and the
// printed comparison names it with its reason.
func TestCompareLeavesOutFailedRuns(t *testing.T) {
	dir := t.TempDir()
	if err := reporttest.Write(dir, 7, 3, 1, 1); err != nil {
		t.Fatal(err)
	}
	if err := reporttest.Fail(dir, "storage=file", 2, "server gone"); err != nil {
		t.Fatal(err)
	}
	failed, err := report.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	rows := Compare(load(t, 7, 3, 1, 1), failed, 10)
	for _, r := range rows {
		if r.Cell == "storage=file" && r.Metric.Key == "pub.rate" {
			if r.New.N != 2 || r.Regression {
				t.Errorf("pub.rate: n=%d regression=%v, want the 2 completed runs and no regression", r.New.N, r.Regression)
			}
		}
	}
	var b bytes.Buffer
	if err := WriteFailed(&b, failed); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "storage=file repetition 2 failed (server gone), left out") {
		t.Errorf("no failed-run note in %q", b.String())
	}
}
