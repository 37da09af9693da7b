package report

import (
	"encoding/json"
	"fmt"
	"math"
	"time"
)

// When a report's runs cannot answer its question, it says so before any figure, with what
// to change. The rule:
//   - a run is too short when it lasted less than minIntervals of its series intervals: its
//     throughput over time is a point or two, and its start and end weigh on every figure;
//   - an effect cannot answer when its 95% interval spans more than a factor of maxSpread
//     (x0.06-x11 says only that the repetitions disagree), or has no interval at all (one
//     run per cell and fewer than 3 pairs).
const (
	minIntervals = 3
	maxSpread    = 2.0
)

// Inadequacies are the report's "Too short or too few to answer" lines, empty when none
// applies: each says what was found and what to change.
func Inadequacies(s *Set) []string {
	var out []string
	if line := shortRuns(s); line != "" {
		out = append(out, line)
	}
	effects := Effects(s)
	var wide, none int
	var widest Effect
	for _, e := range effects {
		switch {
		case !e.CI:
			none++
		case e.Lo <= 0 || e.Hi/e.Lo > maxSpread:
			wide++
			if widest.Lo == 0 || spread(e) > spread(widest) {
				widest = e
			}
		}
	}
	fewest := math.MaxInt
	for _, c := range s.Cells {
		fewest = min(fewest, len(c.OK()))
	}
	if wide > 0 {
		out = append(out, fmt.Sprintf("%d of %d effects have a 95%% interval wider than a factor of %g (widest: %s): the repetitions disagree too much to tell what the choice changes. More repetitions (the fewest a cell has: %d; a scenario's `repetitions`) and longer runs narrow them.",
			wide, len(effects), maxSpread, widest, fewest))
	}
	if none > 0 {
		out = append(out, fmt.Sprintf("%d of %d effects have no interval: one run per cell gives none. Run each cell 3 times or more (a scenario's `repetitions: 3`).", none, len(effects)))
	}
	return out
}

func spread(e Effect) float64 {
	if e.Lo <= 0 {
		return math.Inf(1)
	}
	return e.Hi / e.Lo
}

// shortRuns is the line about runs shorter than minIntervals series intervals, or "".
func shortRuns(s *Set) string {
	var short, runs int
	var shortest, width time.Duration
	for _, c := range s.Cells {
		for _, r := range c.OK() {
			runs++
			d := r.Result.End.Sub(r.Result.Start)
			iv := runInterval(r)
			if r.Result.Start.IsZero() || d < 0 || d >= minIntervals*iv {
				continue
			}
			short++
			if shortest == 0 || d < shortest {
				shortest, width = d, iv
			}
		}
	}
	if short == 0 {
		return ""
	}
	return fmt.Sprintf("%d of %d runs lasted less than %d series intervals (the shortest %s, interval %s): their throughput over time is a point or two, and their start and end weigh on every figure. Make each run last %s or more: a `--duration` (in a scenario, the workload's `duration` flag), or more messages.",
		short, runs, minIntervals, HumanDuration(shortest.Seconds()), HumanDuration(width.Seconds()), HumanDuration((minIntervals * width).Seconds()))
}

// runInterval is the width of a run's series intervals: from its settings (a scenario run's
// workloads, or one command's bench), else 1 s.
func runInterval(r Entry) time.Duration {
	var one struct {
		Bench struct {
			Interval int64 `json:"interval"`
		} `json:"bench"`
	}
	if json.Unmarshal(r.Result.Settings, &one) == nil && one.Bench.Interval > 0 {
		return time.Duration(one.Bench.Interval)
	}
	return time.Duration(intervalOf(r.Result) * 1e9)
}
