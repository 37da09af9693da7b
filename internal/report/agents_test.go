package report

import (
	"strings"
	"testing"

	"github.com/natsperf/natsperf/result"
)

func TestAgentTable(t *testing.T) {
	res := &result.Result{
		Groups: []result.Group{
			{Name: "pub", Clients: []result.Client{{ID: 1, Msgs: 10, Part: "a1"}, {ID: 2, Msgs: 20, Part: "a1"}}},
			{Name: "sub", Clients: []result.Client{{ID: 1, Msgs: 30, Part: "a1"}}},
		},
		Distributed: &result.Distributed{Agents: []result.Agent{
			{Name: "a1", Host: "h1", Part: 1, Parts: 2, ClockOffsetNS: 1500, ClockUncertaintyNS: 50_000, StartOffsetNS: 2_000_000},
			{Name: "a2", Host: "h2", Part: 2, Parts: 2, Lost: true, Error: "nothing heard for 3s"},
		}},
	}
	if AgentTable(&Cell{Name: "x", Runs: []Entry{{Repetition: 1, Result: &result.Result{}}}}) != nil {
		t.Fatal("a table for a run without agents")
	}
	tb := AgentTable(&Cell{Name: "x", Runs: []Entry{{Repetition: 1, Result: res}}})
	if tb == nil || len(tb.Rows) != 2 {
		t.Fatalf("table %+v", tb)
	}
	a1, a2 := strings.Join(tb.Rows[0], "|"), strings.Join(tb.Rows[1], "|")
	if a1 != "1|a1|h1|1/2|3|pub 30, sub 30|+0.002 ± 0.050 ms|+2.000 ms|ok" {
		t.Fatalf("a1 row %q", a1)
	}
	if !strings.HasSuffix(a2, "|0||+0.000 ± 0.000 ms||lost: nothing heard for 3s") {
		t.Fatalf("a2 row %q", a2)
	}
}
