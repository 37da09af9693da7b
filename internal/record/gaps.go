package record

import (
	"sort"
	"time"

	"github.com/natsperf/natsperf/result"
)

// gapMin is result.GapMin in clock nanoseconds (the default of Options.GapMin); maxGaps is
// result.MaxGaps.
const (
	gapMin  = int64(result.GapMin)
	maxGaps = result.MaxGaps
)

// gapRec is one stretch between two successes: its length and when it ended.
type gapRec struct{ d, end int64 }

// keepGap keeps a stretch of gapMin or more that ended at end: in a free place, else in
// place of the shortest kept when it is longer. Every failover's stretch stays, not only the
// run's longest (at most MaxGaps failovers a run tells apart).
func (r *Recorder) keepGap(d, end int64) {
	if r.ngaps < len(r.gaps) {
		r.gaps[r.ngaps] = gapRec{d, end}
		r.ngaps++
		return
	}
	k := 0
	for i := range r.gaps {
		if r.gaps[i].d < r.gaps[k].d {
			k = i
		}
	}
	if d > r.gaps[k].d {
		r.gaps[k] = gapRec{d, end}
	}
}

// keptGaps are the stretches kept, and open (the one still open at the client's end) when
// it is long enough, in time order.
func (r *Recorder) keptGaps(open *result.Gap) []result.Gap {
	epoch := r.epoch.Load()
	var out []result.Gap
	for _, g := range r.gaps[:r.ngaps] {
		out = append(out, result.Gap{Duration: time.Duration(g.d), From: time.Duration(g.end - g.d - epoch), To: time.Duration(g.end - epoch)})
	}
	if open != nil && open.Duration >= time.Duration(r.gapMin) {
		out = append(out, *open)
		if len(out) > result.MaxGaps { // the shortest goes
			sort.Slice(out, func(a, b int) bool { return out[a].Duration > out[b].Duration })
			out = out[:result.MaxGaps]
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].From < out[b].From })
	return out
}
