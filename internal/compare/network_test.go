package compare

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

// TestNotComparableNetworks: runs over different link conditions are never compared, however
// far apart their figures are; the same conditions compare as before.
func TestNotComparableNetworks(t *testing.T) {
	old, slow := load(t, 1, 6, 1, 1), load(t, 2, 6, 0.5, 1)
	for _, c := range slow.Cells {
		for _, r := range c.Runs {
			r.Result.Network = &result.Network{Topology: "cluster", Nodes: 3, Links: true, RouteDelay: 5 * time.Millisecond}
		}
	}
	rows := Compare(old, slow, 5)
	if len(rows) == 0 {
		t.Fatal("no rows")
	}
	for _, r := range rows {
		if !r.NotComparable || r.Regression || r.Significant || r.NewNetwork != "routes 5ms" {
			t.Fatalf("%s %s: not comparable %v regression %v network %q", r.Cell, r.Metric.Key, r.NotComparable, r.Regression, r.NewNetwork)
		}
	}
	var out bytes.Buffer
	if err := Write(&out, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "not comparable: network direct vs routes 5ms") || strings.Contains(out.String(), "REGRESSION") {
		t.Fatalf("text:\n%s", out.String())
	}
	out.Reset()
	if err := WriteJSON(&out, "a", "b", rows, 5); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), `"not_comparable": true`) || !strings.Contains(out.String(), `"regressions": 0`) {
		t.Fatalf("json:\n%s", out.String())
	}

	// Links without conditions measured the same network as none: comparable.
	for _, c := range slow.Cells {
		for _, r := range c.Runs {
			r.Result.Network = &result.Network{Topology: "cluster", Nodes: 3, Links: true}
		}
	}
	regressed := false
	for _, r := range Compare(old, slow, 5) {
		regressed = regressed || r.Regression
		if r.NotComparable {
			t.Fatalf("%s %s: not comparable without conditions", r.Cell, r.Metric.Key)
		}
	}
	if !regressed {
		t.Fatal("a run at half the speed is no regression once comparable")
	}
}
