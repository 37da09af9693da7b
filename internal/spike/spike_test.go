package spike

import (
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

const msec = int64(time.Millisecond)

// steady is a group's series of n 250 ms intervals at P99 1 ms, with the given P99s
// replaced (by interval index).
func steady(n int, p99 map[int]int64, uncorrected map[int]int64) result.Group {
	g := result.Group{Name: "sub", TargetRate: 1000}
	for i := range n {
		iv := result.Interval{Offset: time.Duration(i) * 250 * time.Millisecond, Msgs: 250, P99: 1 * msec}
		if v, ok := p99[i]; ok {
			iv.P99 = v
		}
		iv.MaxUncorrected = uncorrected[i]
		g.Series = append(g.Series, iv)
	}
	return g
}

func run(g result.Group, events []result.Event, stalls []result.Stall) *result.Result {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	return &result.Result{Start: start, End: start.Add(time.Duration(len(g.Series)) * 250 * time.Millisecond),
		Groups: []result.Group{g}, Events: events, Telemetry: &result.Telemetry{Stalls: stalls}}
}

func TestFind(t *testing.T) {
	leader := result.Event{At: 2020 * time.Millisecond, Kind: "leader_elected", Source: "advisory", Stream: "benchstream", Detail: "n2 -> n3"}
	tests := []struct {
		name string
		res  *result.Result
		want []string // each spike's String, in order
		host []bool
	}{
		{"flat", run(steady(20, nil, nil), nil, nil), nil, nil},
		{"below the floor", run(steady(20, map[int]int64{8: 40 * msec}, nil), nil, nil), nil, nil},
		{"named", run(steady(20, map[int]int64{8: 252 * msec, 9: 100 * msec}, nil), []result.Event{leader}, nil),
			[]string{"P99 1 ms -> 252 ms at 2.00-2.50 s: stream benchstream leader n2 -> n3 (advisory at 2.02 s)"}, []bool{false}},
		{"nothing happened", run(steady(20, map[int]int64{8: 300 * msec}, nil), nil, nil),
			[]string{"P99 1 ms -> 300 ms at 2.00-2.25 s: no server event in that window"}, []bool{false}},
		{"an event far away is not named", run(steady(20, map[int]int64{16: 300 * msec}, nil), []result.Event{leader}, nil),
			[]string{"P99 1 ms -> 300 ms at 4.00-4.25 s: no server event in that window"}, []bool{false}},
		{"the load generator stalled", run(steady(20, map[int]int64{8: 300 * msec}, nil), nil, []result.Stall{{Offset: 2 * time.Second, Max: 200 * time.Millisecond}}),
			[]string{"P99 1 ms -> 300 ms at 2.00-2.25 s: no server event in that window; natsperf's own process stalled 200 ms (a timer fired late, or a thread waited for a CPU): the load generator's host, not the servers"}, []bool{true}},
		{"sent late", run(steady(20, map[int]int64{8: 300 * msec}, map[int]int64{8: 3 * msec}), nil, nil),
			[]string{"P99 1 ms -> 300 ms at 2.00-2.25 s: no server event in that window; the messages were sent late (at most 3 ms from the actual send): the load generator fell behind its schedule, not the servers"}, []bool{true}},
		{"silence", run(steady(8, nil, nil), []result.Event{{At: 2 * time.Second, Kind: "fault", Source: "fault", Detail: "2s:kill-leader"}}, nil),
			nil, nil},
	}
	// The silent run: 8 intervals, then nothing until the run's end at 4 s.
	silent := tests[len(tests)-1].res
	silent.End = silent.Start.Add(4 * time.Second)
	tests[len(tests)-1].want = []string{"no sub message at all at 2.00-4.00 s: fault 2s:kill-leader at 2.00 s"}
	tests[len(tests)-1].host = []bool{false}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Find(tt.res, Default)
			var lines []string
			for i, s := range got {
				lines = append(lines, s.String())
				if i < len(tt.host) && s.Host() != tt.host[i] {
					t.Errorf("spike %d: Host() = %v", i, s.Host())
				}
			}
			if strings.Join(lines, "\n") != strings.Join(tt.want, "\n") {
				t.Fatalf("got\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(tt.want, "\n"))
			}
		})
	}
}

// A spike must rise above the multiple too: a slow run's noise is not a spike.
func TestMultipleOfTheMedian(t *testing.T) {
	g := steady(20, nil, nil)
	for i := range g.Series {
		g.Series[i].P99 = 100 * msec
	}
	g.Series[5].P99 = 400 * msec // 4x: below 5x
	if got := Find(run(g, nil, nil), Default); len(got) != 0 {
		t.Fatalf("spikes %v", got)
	}
}
