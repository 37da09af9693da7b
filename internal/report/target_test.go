package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/result"
)

func TestTargetRateLine(t *testing.T) {
	tests := []struct {
		name     string
		target   float64
		achieved float64
		want     string // "" means no line
	}{
		{"as fast as possible", 0, 5000, ""},
		{"reached", 2000, 2000.4, ""},
		{"within scheduling noise", 2000, 1985, ""},
		{"not reached", 2000, 792, "target rate not reached: 2,000 msgs/sec asked, 792 msgs/sec achieved (39.6%)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g := result.Group{Name: "request", Kind: "Core NATS service requester", TargetRate: tt.target,
				Clients:   []result.Client{{ID: 1, Msgs: 100, MsgsPerSec: tt.achieved}},
				Aggregate: result.Aggregate{Msgs: 100, MsgsPerSec: tt.achieved}}
			for _, groups := range [][]result.Group{{g}, {{Name: "pub", Kind: "Core NATS publisher"}, g}} {
				var buf bytes.Buffer
				if err := Text(&buf, &result.Result{Stop: result.Stop{Reason: result.StopCompleted}, Groups: groups}); err != nil {
					t.Fatal(err)
				}
				got := strings.Contains(buf.String(), "target rate not reached")
				if got != (tt.want != "") || (tt.want != "" && !strings.Contains(buf.String(), tt.want)) {
					t.Fatalf("%d group(s): output\n%s\nwant line %q", len(groups), buf.String(), tt.want)
				}
			}
		})
	}
}
