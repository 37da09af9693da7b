package result_test

import (
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

// TestAddByReason: runs of one reason add up into one entry spanning them, in the order each
// reason first came.
func TestAddByReason(t *testing.T) {
	var rs []result.Refusals
	for _, r := range []result.Refusals{
		{Reason: result.ReasonNoResponders, Count: 3, From: 2 * time.Second, To: 3 * time.Second},
		{Reason: result.ReasonConnLost, Count: 1, From: time.Second, To: time.Second},
		{Reason: result.ReasonNoResponders, Count: 4, From: 1500 * time.Millisecond, To: 4 * time.Second},
	} {
		rs = result.AddByReason(rs, r)
	}
	want := []result.Refusals{
		{Reason: result.ReasonNoResponders, Count: 7, From: 1500 * time.Millisecond, To: 4 * time.Second},
		{Reason: result.ReasonConnLost, Count: 1, From: time.Second, To: time.Second},
	}
	if len(rs) != len(want) || rs[0] != want[0] || rs[1] != want[1] {
		t.Errorf("got %+v, want %+v", rs, want)
	}
}
