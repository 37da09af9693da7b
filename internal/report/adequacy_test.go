package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

// adequacySet is two cells of axis x (a, b) with reps runs each, lasting d with a 1 s
// interval, whose pub rates are rates[cell][rep].
func adequacySet(d time.Duration, rates [2][]float64) *Set {
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	settings, _ := json.Marshal(map[string]any{"bench": map[string]any{"interval": int64(time.Second)}})
	s := &Set{Axes: []string{"x"}}
	for i, level := range []string{"a", "b"} {
		c := &Cell{Name: "x=" + level, Index: i, Values: map[string]string{"x": level}}
		for rep, rate := range rates[i] {
			res := &result.Result{Start: t0, End: t0.Add(d), Settings: settings, Stop: result.Stop{Reason: result.StopCompleted},
				Groups: []result.Group{{Name: "pub", Clients: []result.Client{{ID: 1, MsgsPerSec: rate}}, Aggregate: result.Aggregate{MsgsPerSec: rate}}}}
			c.Runs = append(c.Runs, Entry{Cell: c.Name, Values: c.Values, Repetition: rep + 1, Result: res})
		}
		s.Cells = append(s.Cells, c)
	}
	return s
}

// TestInadequacies: the report says when runs are shorter than 3 intervals, when an effect's
// interval spans more than a factor of 2, and when there is no interval at all, each with what
// to change; long, consistent runs get no such line; md, html and json carry the lines.
func TestInadequacies(t *testing.T) {
	steady := [2][]float64{{1000, 1010, 990}, {2000, 2020, 1980}}
	for _, tt := range []struct {
		name string
		set  *Set
		want []string // substrings, one per expected line; none: no line
	}{
		{"long and consistent", adequacySet(10*time.Second, steady), nil},
		{"short runs", adequacySet(100*time.Millisecond, steady), []string{"6 of 6 runs lasted less than 3 series intervals (the shortest 100 ms, interval 1 s)", "last 3 s or more", "--duration"}},
		{"runs that disagree", adequacySet(10*time.Second, [2][]float64{{100, 1500}, {2000, 120}}), []string{"wider than a factor of 2", "x b vs a: pub msgs/s", "More repetitions (the fewest a cell has: 2"}},
		{"one run per cell", adequacySet(10*time.Second, [2][]float64{{1000}, {2000}}), []string{"have no interval", "repetitions: 3"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := strings.Join(Inadequacies(tt.set), "\n")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("lines lack %q:\n%s", w, got)
				}
			}
			if len(tt.want) == 0 && got != "" {
				t.Errorf("want no line, got:\n%s", got)
			}
			var md, page, js bytes.Buffer
			if err := Markdown(&md, tt.set, ""); err != nil {
				t.Fatal(err)
			}
			if err := HTML(&page, tt.set, ""); err != nil {
				t.Fatal(err)
			}
			if err := JSON(&js, tt.set); err != nil {
				t.Fatal(err)
			}
			for name, out := range map[string]string{"md": md.String(), "html": page.String(), "json": js.String()} {
				has := strings.Contains(out, "Too short or too few to answer") || strings.Contains(out, `"warnings"`)
				if has != (len(tt.want) > 0) {
					t.Errorf("%s: section present %v, want %v", name, has, len(tt.want) > 0)
				}
			}
		})
	}
}
