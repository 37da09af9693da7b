package fault

import (
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

func TestPhases(t *testing.T) {
	s := time.Second
	events := []result.FaultEvent{
		{Spec: "2s:kill-leader", Kind: KillLeader, Started: 2 * s},
		{Spec: "3s:pause:2s", Kind: Pause, Started: 3 * s},
		{Spec: "4s:restart", Kind: Restart, Started: 4 * s},
		{Spec: "5s:kill:9", Kind: Kill, Started: 5 * s, Error: "no such node"}, // did not happen
		{Spec: "9s:stepdown", Kind: Stepdown, Skipped: true},
		// A command that failed may have done its work first (a kill -9 that hit its own sh).
		{Spec: "6s:pkill -9 -f n2", Kind: Exec, Started: 6 * s, Error: "command: signal: killed"},
	}
	got := Phases(events, 8*s)
	want := []result.Window{
		{Label: "before faults", From: 0, To: 2 * s},
		{Label: "after 2s:kill-leader", From: 2 * s, To: 3 * s},
		{Label: "during 3s:pause:2s", From: 3 * s, To: 4 * s},
		{Label: "after 4s:restart", From: 4 * s, To: 5 * s},
		{Label: "after 3s:pause:2s", From: 5 * s, To: 6 * s},
		{Label: "after 6s:pkill -9 -f n2 (command failed)", From: 6 * s, To: 8 * s},
	}
	if len(got) != len(want) {
		t.Fatalf("got %+v", got)
	}
	for i := range want {
		if got[i].Label != want[i].Label || got[i].From != want[i].From || got[i].To != want[i].To {
			t.Fatalf("phase %d: got %+v, want %+v", i, got[i], want[i])
		}
	}
	if Phases(nil, 8*s) != nil {
		t.Fatal("no faults: no phases")
	}
}
