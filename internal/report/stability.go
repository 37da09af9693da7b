package report

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/live"
	"github.com/natsperf/natsperf/result"
)

// The stability view of a long run: throughput and latency per window over the whole run,
// drift from its start to its end, every stall, and the fault windows. The series file is
// read one line at a time into a bounded number of windows, so a 12-hour run costs the same
// memory as a 2-minute one.

// MaxWindows bounds the windows of a stability view (and the points of its charts).
const MaxWindows = 240

// StabilityWindow is one window of the run.
type StabilityWindow struct {
	From, To       float64 // seconds from the start
	PubRate        float64 // msgs/s
	SubRate        float64
	P50, P99, Max  float64 // ns, of the latency role; 0 when the window recorded none
	latency        *hdrhistogram.Histogram
	pubMsgs, subMs int64
	maxNs          int64 // from a Result's own intervals, which keep percentiles, not histograms
}

// Stall is a span in which a role moved no message for longer than the threshold.
type Stall struct {
	Role     string
	From, To float64 // seconds from the start
}

// Drift is one metric at the start of the run against its end.
type Drift struct {
	Metric      string
	First, Last float64
	Unit        string // "msgs/s" or "ns"
}

// Stability is a long run's view.
type Stability struct {
	Cell        string
	Repetition  int
	Duration    float64 // seconds
	Width       float64 // seconds per window
	Windows     []StabilityWindow
	LatencyRole string
	Parts       string // what the drift compares: "first hour vs last hour"
	Drift       []Drift
	Threshold   float64 // stall threshold, seconds
	Stalls      []Stall
	Faults      []band
	// CPU and Mem are each server's telemetry; Markers the run's events (not its faults,
	// which are bands), for the same time axis.
	CPU, Mem []series
	Markers  []band
}

// windowHist is a window's latency histogram: 2 significant digits keep 240 windows in a
// few MB (a window's percentiles are read at 1% precision anyway).
func windowHist() *hdrhistogram.Histogram { return hdrhistogram.New(1, 3_600_000_000_000, 2) }

// StabilityOf builds the view of a run that streamed its series to a file (or holds it).
func StabilityOf(r Entry, maxWindows int) (*Stability, error) {
	res := r.Result
	start := res.Start.UnixNano()
	dur := res.End.Sub(res.Start).Seconds()
	if dur <= 0 {
		return nil, fmt.Errorf("%s: the run has no duration", r.Path)
	}
	interval := intervalOf(res)
	width := math.Max(interval, niceSeconds(dur/float64(maxWindows)))
	n := int(math.Ceil(dur / width))
	st := &Stability{Duration: dur, Width: width, Windows: make([]StabilityWindow, n)}
	for i := range st.Windows {
		st.Windows[i].From, st.Windows[i].To = float64(i)*width, math.Min(float64(i+1)*width, dur)
	}
	active := map[string][]float64{} // per role, the interval starts that moved messages
	moved := map[string]int64{}
	add := func(off float64, role string, msgs int64, lat string) {
		if off < 0 {
			off = 0
		}
		i := min(int(off/width), n-1)
		w := &st.Windows[i]
		switch role {
		case "pub":
			w.pubMsgs += msgs
		case "sub":
			w.subMs += msgs
		}
		if msgs > 0 {
			active[role] = append(active[role], off)
			moved[role] += msgs
		}
		if lat != "" && (st.LatencyRole == "" || st.LatencyRole == role || (role == "sub" && st.LatencyRole != "sub")) {
			if h, err := histo.Decode(lat); err == nil && h.TotalCount() > 0 {
				if st.LatencyRole != role {
					st.LatencyRole = role // the receivers' latency wins: reset what the senders gave
					for j := range st.Windows {
						st.Windows[j].latency = nil
					}
				}
				if w.latency == nil {
					w.latency = windowHist()
				}
				w.latency.Merge(h)
			}
		}
	}
	if r.SeriesPath != "" {
		f, err := os.Open(r.SeriesPath)
		if err != nil {
			return nil, fmt.Errorf("series: %w", err)
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		var l live.Line
		for line := 1; sc.Scan(); line++ {
			l = live.Line{}
			if err := json.Unmarshal(sc.Bytes(), &l); err != nil {
				return nil, fmt.Errorf("%s: line %d: %w", r.SeriesPath, line, err)
			}
			grp := l.Src
			if i := strings.LastIndexByte(grp, '/'); i > 0 {
				grp = grp[:i]
			}
			add(float64(l.T-start)/1e9, Role(grp), l.Msgs, l.Lat)
		}
		if err := sc.Err(); err != nil {
			return nil, fmt.Errorf("%s: %w", r.SeriesPath, err)
		}
	}
	for _, g := range res.Groups {
		for _, iv := range g.Series {
			add(iv.Offset.Seconds(), Role(g.Name), iv.Msgs, "")
			if iv.Max > 0 && r.SeriesPath == "" {
				w := &st.Windows[min(int(math.Max(iv.Offset.Seconds(), 0)/width), n-1)]
				w.maxNs = max(w.maxNs, iv.Max)
			}
		}
	}
	for i := range st.Windows {
		w := &st.Windows[i]
		span := w.To - w.From
		if span <= 0 {
			continue
		}
		w.PubRate, w.SubRate = float64(w.pubMsgs)/span, float64(w.subMs)/span
		if w.latency != nil {
			w.P50, w.P99, w.Max = float64(w.latency.ValueAtPercentile(50)), float64(w.latency.ValueAtPercentile(99)), float64(w.latency.Max())
		} else if w.maxNs > 0 {
			w.Max = float64(w.maxNs)
		}
	}
	// A stall is longer than 5 s, 3 intervals and 5 mean gaps between a role's messages, so a
	// slow fixed-rate run's ordinary pauses are not called stalls.
	st.Threshold = math.Max(5, 3*interval)
	for _, n := range moved {
		st.Threshold = math.Max(st.Threshold, 5*dur/float64(n))
	}
	roles := make([]string, 0, len(active))
	for role := range active {
		roles = append(roles, role)
	}
	sort.Slice(roles, func(i, j int) bool { return roleOrder(roles[i]) < roleOrder(roles[j]) })
	for _, role := range roles {
		ts := active[role]
		sort.Float64s(ts)
		prev := 0.0
		for _, t := range append(ts, dur) {
			if t-prev > st.Threshold {
				st.Stalls = append(st.Stalls, Stall{Role: role, From: prev, To: t})
			}
			prev = math.Max(prev, t+interval)
		}
	}
	sort.SliceStable(st.Stalls, func(i, j int) bool { return st.Stalls[i].From < st.Stalls[j].From })
	st.drift()
	st.Faults = faultBands(res)
	st.CPU, st.Mem = telemetrySeries(res.Telemetry)
	st.Markers = eventMarks(res.Events)
	for i := range st.Windows {
		st.Windows[i].latency = nil
	}
	return st, nil
}

// drift compares the first hour with the last (runs of 2 hours or more), otherwise the first
// tenth of the run with the last.
func (st *Stability) drift() {
	part := st.Duration / 10
	st.Parts = "first 10% vs last 10% of the run"
	if st.Duration >= 2*3600 {
		part, st.Parts = 3600, "first hour vs last hour"
	}
	sum := func(from, to float64) (pub, sub float64, h *hdrhistogram.Histogram) {
		var span float64
		for _, w := range st.Windows {
			if w.From >= from-1e-9 && w.To <= to+1e-9 {
				pub += float64(w.pubMsgs)
				sub += float64(w.subMs)
				span += w.To - w.From
				if w.latency != nil {
					if h == nil {
						h = windowHist()
					}
					h.Merge(w.latency)
				}
			}
		}
		if span > 0 {
			pub, sub = pub/span, sub/span
		}
		return
	}
	part = math.Max(part, st.Width)
	p1, s1, h1 := sum(0, part)
	p2, s2, h2 := sum(st.Duration-part, st.Duration)
	if p1 > 0 || p2 > 0 {
		st.Drift = append(st.Drift, Drift{"pub msgs/s", p1, p2, "msgs/s"})
	}
	if s1 > 0 || s2 > 0 {
		st.Drift = append(st.Drift, Drift{"sub msgs/s", s1, s2, "msgs/s"})
	}
	if h1 != nil && h2 != nil {
		for _, p := range []float64{50, 99} {
			st.Drift = append(st.Drift, Drift{fmt.Sprintf("%s P%g", st.LatencyRole, p), float64(h1.ValueAtPercentile(p)), float64(h2.ValueAtPercentile(p)), "ns"})
		}
		st.Drift = append(st.Drift, Drift{st.LatencyRole + " max", float64(h1.Max()), float64(h2.Max()), "ns"})
	}
}

// faultBands are the run's faults (from when each began until it returned) and its longest
// unavailability, for the time axis.
func faultBands(res *result.Result) []band {
	if res.Faults == nil {
		return nil
	}
	var out []band
	for _, f := range res.Faults.Timeline {
		if f.Skipped {
			continue
		}
		out = append(out, band{from: f.Started.Seconds(), to: (f.Started + max(f.Took, 100*time.Millisecond)).Seconds(), label: "fault " + f.Spec})
	}
	if u := res.Faults.Unavailable; u.Duration > 0 {
		out = append(out, band{from: u.From.Seconds(), to: u.To.Seconds(), label: "unavailable " + HumanDuration(u.Duration.Seconds())})
	}
	return out
}

// niceSeconds rounds a window width (or a tick step) up to 1, 2, 5, 10, 15, 30 s, 1, 2, 5,
// 10, 15, 30 min, 1, 2, 3, 6 h...
func niceSeconds(s float64) float64 {
	for _, x := range []float64{1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10800, 21600} {
		if s <= x {
			return x
		}
	}
	return math.Ceil(s/3600) * 3600
}

// Stabilities is the view of every run that streamed its series (long runs) or ran faults, in
// cell order.
func Stabilities(s *Set) ([]*Stability, error) {
	var out []*Stability
	for _, c := range s.Cells {
		for _, r := range c.OK() {
			if r.SeriesPath == "" && r.Result.Faults == nil && r.Result.Telemetry == nil {
				continue // short runs without faults or telemetry: the cells' charts say it all
			}
			if !r.Result.End.After(r.Result.Start) {
				continue // no time axis to draw
			}
			st, err := StabilityOf(r, MaxWindows)
			if err != nil {
				return nil, err
			}
			st.Cell, st.Repetition = c.Name, r.Repetition
			out = append(out, st)
		}
	}
	return out, nil
}

// StabilityTables are the drift, stalls and faults of a view, for its report section.
func StabilityTables(st *Stability) []Table {
	drift := Table{Title: "drift: " + st.Parts, Class: "stability", Head: []string{"metric", "start", "end", "end / start"}}
	for _, d := range st.Drift {
		f := HumanCount
		if d.Unit == "ns" {
			f = HumanNanos
		}
		r := ""
		if d.First > 0 {
			r = fmt.Sprintf("x%.2f", d.Last/d.First)
		}
		drift.Rows = append(drift.Rows, []string{d.Metric, f(d.First), f(d.Last), r})
	}
	stalls := Table{Title: fmt.Sprintf("stalls: no message for more than %s", HumanDuration(st.Threshold)), Class: "stability", Head: []string{"role", "from", "to", "length"}}
	for _, s := range st.Stalls {
		stalls.Rows = append(stalls.Rows, []string{s.Role, clock(s.From), clock(s.To), HumanDuration(s.To - s.From)})
	}
	if len(st.Stalls) == 0 {
		stalls.Rows = append(stalls.Rows, []string{"none", "", "", ""})
	}
	out := []Table{drift, stalls}
	if len(st.Faults) > 0 {
		ft := Table{Title: "faults and unavailability", Class: "stability", Head: []string{"what", "from", "to"}}
		for _, f := range st.Faults {
			ft.Rows = append(ft.Rows, []string{f.label, clock(f.from), clock(f.to)})
		}
		out = append(out, ft)
	}
	return out
}

// clock is seconds from the start as h:mm:ss.
func clock(s float64) string {
	d := time.Duration(s * float64(time.Second)).Round(time.Second)
	return fmt.Sprintf("%d:%02d:%02d", int(d.Hours()), int(d.Minutes())%60, int(d.Seconds())%60)
}

// From is where a fault window starts, seconds from the start.
func (b band) From() float64 { return b.from }
