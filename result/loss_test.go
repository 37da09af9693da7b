package result

import "testing"

func TestLoss(t *testing.T) {
	lost := func(n, notReceived int64) Group {
		return Group{Aggregate: Aggregate{Correctness: &Correctness{Lost: n, NotReceived: notReceived}}}
	}
	for _, tt := range []struct {
		name string
		res  Result
		want int64
	}{
		{"no receivers", Result{Groups: []Group{{Name: "pub"}}}, 0},
		{"not received is no loss", Result{Groups: []Group{lost(0, 400)}}, 0},
		{"gaps of every group", Result{Groups: []Group{lost(2, 0), lost(3, 10)}}, 5},
		{"verify decides", Result{Groups: []Group{lost(7, 0)}, Verify: &Verify{Lost: 0, NotConsumed: 7}}, 0},
		{"acked but missing", Result{Verify: &Verify{AckedButMissing: 4, Lost: 1}}, 5},
	} {
		if got := tt.res.Loss(); got != tt.want {
			t.Errorf("%s: loss %d, want %d", tt.name, got, tt.want)
		}
	}
}
