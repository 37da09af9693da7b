package natstest

import (
	"testing"

	"github.com/natsperf/natsperf/result"
)

// LatenessPerMsg fails t unless every client of g and its aggregate have one send lateness
// per message counted (a fixed-rate sender's, the warm-up's left out of both).
func LatenessPerMsg(t testing.TB, g result.Group) {
	t.Helper()
	for _, c := range g.Clients {
		if c.SendLateness == nil || c.SendLateness.Count != c.Msgs {
			t.Fatalf("%s client %d counted %d messages, send lateness %+v: want one each", g.Name, c.ID, c.Msgs, c.SendLateness)
		}
	}
	if l := g.Aggregate.SendLateness; l == nil || l.Count != g.Aggregate.Msgs {
		t.Fatalf("%s counted %d messages, send lateness %+v: want one each", g.Name, g.Aggregate.Msgs, l)
	}
}
