package pace

import (
	"testing"
	"time"
)

func TestConstant(t *testing.T) {
	tests := []struct {
		name    string
		p       Constant
		elapsed time.Duration
		sent    uint64
		due     uint64
		wait    time.Duration
	}{
		{"first is due at zero", Constant{Rate: 1000}, 0, 0, 1, 0},
		{"second after a millisecond", Constant{Rate: 1000}, 500 * time.Microsecond, 1, 1, 500 * time.Microsecond},
		{"late sender owes many", Constant{Rate: 1000}, 10 * time.Millisecond, 2, 11, 0},
		{"two senders interleave, sender 1 starts half a slot in", Constant{Rate: 1000, Count: 2, Index: 1}, 0, 0, 0, time.Millisecond},
		{"two senders, sender 0 at 2ms owes 2", Constant{Rate: 1000, Count: 2, Index: 0}, 2 * time.Millisecond, 1, 2, 0},
		{"negative elapsed", Constant{Rate: 10}, -time.Second, 0, 0, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Due(tt.elapsed); got != tt.due {
				t.Errorf("Due(%v) = %d, want %d", tt.elapsed, got, tt.due)
			}
			if tt.elapsed >= 0 {
				if got := tt.p.Wait(tt.elapsed, tt.sent); got != tt.wait {
					t.Errorf("Wait(%v, %d) = %v, want %v", tt.elapsed, tt.sent, got, tt.wait)
				}
			}
		})
	}
}

func TestTotalSplitsExactly(t *testing.T) {
	for _, n := range []int{1, 3, 7} {
		var sum uint64
		for k := 0; k < n; k++ {
			sum += Constant{Rate: 10000, Count: n, Index: k}.Total(time.Second)
		}
		if sum != 10000 {
			t.Errorf("%d senders send %d in 1s at 10000/s, want 10000", n, sum)
		}
	}
}

func TestIntendedMatchesDue(t *testing.T) {
	p := Constant{Rate: 3333, Count: 3, Index: 2}
	for i := uint64(0); i < 1000; i++ {
		at := p.Intended(i)
		if p.Due(at) != i+1 {
			t.Fatalf("message %d intended at %v, but Due there is %d", i, at, p.Due(at))
		}
	}
}

// TestAfterEndsTheGroupsSchedule: whichever sender ends last, the group's schedule of N
// messages at R per second ends at N/R.
func TestAfterEndsTheGroupsSchedule(t *testing.T) {
	const rate, senders, each = 10_000, 1000, 50
	var end time.Duration
	for k := 0; k < senders; k++ {
		end = max(end, Constant{Rate: rate, Count: senders, Index: k}.After(each))
	}
	if want := time.Duration(senders * each * int64(time.Second) / rate); end != want {
		t.Fatalf("schedule ends at %v, want %v", end, want)
	}
	if got := (Constant{Rate: 1000}).After(3); got != 3*time.Millisecond {
		t.Fatalf("one sender's 3 messages at 1000/s end at %v, want 3ms", got)
	}
}
