package telemetry

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// TestSettle: the final reading is read again until two readings agree on the servers'
// message counts, and the agreeing one is kept; counts that never settle end after 5 more
// readings with the last one.
func TestSettle(t *testing.T) {
	reading := func(in int64) []Reading { return []Reading{{Name: "n1", Varz: &server.Varz{InMsgs: in}}} }
	for _, tt := range []struct {
		name  string
		seq   []int64 // what the reads after the first return
		want  int64
		reads int
	}{
		{"already settled", []int64{3000}, 3000, 1},
		{"the last messages counted late", []int64{2990, 3000, 3000}, 3000, 3},
		{"never settles", []int64{2900, 2910, 2920, 2930, 2940, 2950}, 2940, 5},
	} {
		n := 0
		read := func(context.Context) ([]Reading, error) {
			n++
			return reading(tt.seq[n-1]), nil
		}
		first := int64(2882)
		if tt.name == "already settled" {
			first = 3000
		}
		got, err := settle(context.Background(), read, reading(first))
		if err != nil || got[0].Varz.InMsgs != tt.want || n != tt.reads {
			t.Errorf("%s: in %d after %d reads (err %v), want %d after %d", tt.name, got[0].Varz.InMsgs, n, err, tt.want, tt.reads)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	time.Sleep(2 * time.Millisecond)
	got, _ := settle(ctx, func(context.Context) ([]Reading, error) { return reading(1), nil }, reading(7))
	if got[0].Varz.InMsgs != 7 {
		t.Errorf("with its time gone the reading in hand stands: got %d, want 7", got[0].Varz.InMsgs)
	}
}
