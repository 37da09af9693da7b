package report

import (
	"math"
	"testing"
)

func TestHumanUnits(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{HumanCount(2000), "2k"}, {HumanCount(1_500_000), "1.5M"}, {HumanCount(950), "950"}, {HumanCount(math.Copysign(0, -1)), "0"},
		{HumanDuration(1.5), "1.5 s"}, {HumanDuration(-1e-12), "0"}, {HumanDuration(0.25), "250 ms"}, {HumanDuration(300), "5 min"},
		{HumanDuration(43200), "12 h"}, {HumanNanos(1_500_000), "1.5 ms"}, {HumanNanos(200_000), "200 µs"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
