package result

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// Part is one process's Result inside a merged one.
type Part struct {
	// Name is the part's name: an agent's name, or part1, part2... (Merge).
	Name string `json:"name"`
	Tool *Tool  `json:"tool,omitempty"` // what wrote the part: natsperf, or natsperf-rust beside it
	// Host is the machine the part ran on.
	Host Host `json:"host"`
	// Start is the part's own start (Result.Start).
	Start time.Time `json:"start,omitzero"`
	// End is the part's own end (Result.End).
	End time.Time `json:"end,omitzero"`
	// Stop is why the part ended.
	Stop Stop `json:"stop"`
}

// Input is one process's Result and the name it gets in the merged Result (an agent's name).
type Input struct {
	// Name is the part's name in the merged Result (Part.Name, Client.Part).
	Name string
	// Result is the part's own Result.
	Result *Result
}

// Merge joins the Results that several processes wrote for parts of one run, naming the parts
// part1, part2, ... See MergeNamed.
func Merge(parts ...*Result) (*Result, error) {
	in := make([]Input, len(parts))
	for i, r := range parts {
		in[i] = Input{Name: fmt.Sprintf("part%d", i+1), Result: r}
	}
	return MergeNamed(in)
}

// MergeNamed joins the Results of one run's parts as if one process had recorded every
// sample: counts and bytes add up, every client row is kept (renumbered, with its part's
// name), the aggregate and interval histograms are merged from their HdrHistogram encodings
// (so every percentile is exact), publishers are the union of their ids, the run spans the
// earliest start to the latest end, and the stop reason is the worst part's.
//
// Delivery counts stay exact without counting anything twice: a fan-out receiver counts what
// it missed of each publisher, and each receiver is in exactly one part, so the receivers'
// counts add up whether each part has every publisher or only some; what the receivers saw of
// each publisher merges (furthest sequence, distinct sequences), so a queue group's gaps are
// judged on the union of its members in every part and its not-received tail on the whole
// group's total, as a single process does. Two limits: duplicates of one message delivered to
// queue members in different parts are not seen (no part has both), and the tail a part moved
// from not-received to lost because its own publishers said they sent it is kept as that part
// judged it (a part knows only its own publishers' counts).
//
// Parts of different commands, of different Result schemas, written by different versions
// of one tool, or whose groups of one name are different kinds are refused. Parts written by
// different tools (natsperf and natsperf-rust: nats.go and async-nats clients of one run)
// merge: each client row keeps its library, and a group whose parts used different ones
// names none.
func MergeNamed(in []Input) (*Result, error) {
	if err := checkMergeable(in); err != nil {
		return nil, err
	}
	m := &merger{out: &Result{Schema: Schema, Tool: in[0].Result.Tool, Command: in[0].Result.Command, Host: in[0].Result.Host}}
	for _, p := range in {
		r := p.Result
		if len(m.out.Settings) == 0 {
			m.out.Settings = r.Settings
		}
		if !r.Start.IsZero() && (m.out.Start.IsZero() || r.Start.Before(m.out.Start)) {
			m.out.Start = r.Start
		}
		if r.End.After(m.out.End) {
			m.out.End = r.End
		}
	}
	m.width = seriesWidth(in)
	for _, p := range in {
		m.addPart(p)
	}
	m.finishGroups()
	m.out.Verify = m.verify(in)
	m.out.Faults = m.faults(in)
	m.out.Windows = m.windows(in)
	m.out.CPU = mergeCPU(in)
	m.out.Events = mergeEvents(in, m.out.Start)
	m.out.Warnings = append(m.out.Warnings, m.warnings...)
	if m.err != nil {
		return nil, m.err
	}
	return m.out, nil
}

func checkMergeable(in []Input) error {
	if len(in) == 0 {
		return errors.New("merge: no Results")
	}
	names := map[string]bool{}
	for _, p := range in {
		if p.Result == nil {
			return fmt.Errorf("merge: %s has no Result", p.Name)
		}
		if names[p.Name] {
			return fmt.Errorf("merge: two parts are named %q", p.Name)
		}
		names[p.Name] = true
	}
	first := in[0]
	versions := map[string]Input{} // by tool name: the first part that tool wrote
	kinds := map[string]string{}
	where := map[string]string{}
	for _, p := range in {
		r := p.Result
		same, seen := versions[r.Tool.Name]
		if !seen {
			versions[r.Tool.Name] = p
		}
		switch {
		case r.Schema != Schema:
			return fmt.Errorf("merge: %s is a %q Result, not %q", p.Name, r.Schema, Schema)
		case seen && r.Tool.Version != same.Result.Tool.Version:
			tool := cmp.Or(r.Tool.Name, "natsperf")
			return fmt.Errorf("merge: %s was written by %s %s and %s by %s %s: parts of one run come from one version",
				same.Name, tool, same.Result.Tool.Version, p.Name, tool, r.Tool.Version)
		case r.Command != first.Result.Command:
			return fmt.Errorf("merge: %s ran %q and %s ran %q: only parts of one run merge", first.Name, first.Result.Command, p.Name, r.Command)
		}
		for _, g := range r.Groups {
			if k, ok := kinds[g.Name]; ok && k != g.Kind {
				return fmt.Errorf("merge: group %s is %q in %s and %q in %s: only parts of one run merge", g.Name, k, where[g.Name], g.Kind, p.Name)
			}
			kinds[g.Name], where[g.Name] = g.Kind, p.Name
		}
	}
	return nil
}

// merger accumulates the merged Result.
type merger struct {
	out      *Result
	width    time.Duration // of the series' intervals; 0 when no part shows it
	groups   []*mergedGroup
	byName   map[string]*mergedGroup
	ids      map[clientKey]int // a part's group/client id -> merged id
	warnings []string
	warned   map[string]bool
	err      error
}

type clientKey struct {
	part, group string
	id          int
}

// mergedGroup is one group name's pieces from every part.
type mergedGroup struct {
	g      Group
	parts  []*Group
	shifts []time.Duration // each piece's start after the merged start
}

func (m *merger) warn(msg string) {
	if m.warned == nil {
		m.warned = map[string]bool{}
	}
	if !m.warned[msg] {
		m.warned[msg] = true
		m.warnings = append(m.warnings, msg)
	}
}

func (m *merger) fail(err error) {
	if m.err == nil {
		m.err = err
	}
}

// shift is how long after the merged start a part started: its offsets move by it.
func (m *merger) shift(r *Result) time.Duration {
	if r.Start.IsZero() {
		return 0
	}
	return r.Start.Sub(m.out.Start)
}

func (m *merger) addPart(p Input) {
	r := p.Result
	if len(r.Parts) > 0 { // an already merged Result: keep its parts' names under this one's
		for _, sub := range r.Parts {
			sub.Name = p.Name + "/" + sub.Name
			m.out.Parts = append(m.out.Parts, sub)
		}
	} else {
		tool := r.Tool
		m.out.Parts = append(m.out.Parts, Part{Name: p.Name, Tool: &tool, Host: r.Host, Start: r.Start, End: r.End, Stop: r.Stop})
	}
	reason, why := r.Stop.Reason, r.Stop.Error
	if _, known := stopRank[reason]; !known { // a part that says nothing did not complete
		reason, why = StopFailed, joinNonEmpty(why, fmt.Sprintf("no valid stop reason (%q)", r.Stop.Reason), "; ")
	}
	if m.out.Stop.Reason == "" || stopRank[reason] > stopRank[m.out.Stop.Reason] {
		m.out.Stop.Reason = reason
	}
	if why != "" {
		m.out.Stop.Error = joinNonEmpty(m.out.Stop.Error, p.Name+": "+why, "; ")
	}
	for _, s := range r.Servers {
		if !m.hasServer(s) {
			m.out.Servers = append(m.out.Servers, s)
		}
	}
	for _, w := range r.Warnings {
		m.warn(p.Name + ": " + w)
	}
	m.out.Streams = mergeStreamStates(m.out.Streams, r.Streams)
	shift := m.shift(r)
	for i := range r.Groups {
		g := &r.Groups[i]
		mg := m.group(g)
		mg.parts = append(mg.parts, g)
		mg.shifts = append(mg.shifts, shift)
		mg.g.Expected += g.Expected
		mg.g.TargetRate += g.TargetRate
		mg.g.PacePrecision = max(mg.g.PacePrecision, g.PacePrecision) // the coarsest part's bounds them all
		mg.g.PacePrecisionChosen = mg.g.PacePrecisionChosen || g.PacePrecisionChosen
		if len(mg.parts) == 1 {
			mg.g.Client = g.Client
		} else if mg.g.Client != nil && (g.Client == nil || *g.Client != *mg.g.Client) {
			mg.g.Client = nil // the rows say which library each client used
		}
		if g.Shared != mg.g.Shared || g.Estimated != mg.g.Estimated {
			m.fail(fmt.Errorf("merge: group %s is shared or estimated in some parts and not in others", g.Name))
		}
		for _, c := range g.Clients {
			id := len(mg.g.Clients) + 1
			if m.ids == nil {
				m.ids = map[clientKey]int{}
			}
			m.ids[clientKey{p.Name, g.Name, c.ID}] = id
			c.ID = id
			c.Part = joinNonEmpty(p.Name, c.Part, "/")
			if c.Gap != nil {
				gap := *c.Gap
				gap.From, gap.To = gap.From+shift, gap.To+shift
				c.Gap = &gap
			}
			if len(c.Gaps) > 0 {
				gaps := make([]Gap, len(c.Gaps))
				for i, g := range c.Gaps {
					g.From, g.To = g.From+shift, g.To+shift
					gaps[i] = g
				}
				c.Gaps = gaps
			}
			c.Refused, c.TimedOut = shiftRefusals(c.Refused, shift), shiftRefusals(c.TimedOut, shift)
			if c.NotRecovered != nil {
				gap := *c.NotRecovered
				gap.From, gap.To = gap.From+shift, gap.To+shift
				c.NotRecovered = &gap
			}
			mg.g.Clients = append(mg.g.Clients, c)
		}
	}
}

func (m *merger) hasServer(s Server) bool {
	for _, o := range m.out.Servers {
		if o.ID == s.ID && o.URL == s.URL {
			return true
		}
	}
	return false
}

func (m *merger) group(g *Group) *mergedGroup {
	if m.byName == nil {
		m.byName = map[string]*mergedGroup{}
	}
	if mg, ok := m.byName[g.Name]; ok {
		return mg
	}
	mg := &mergedGroup{g: Group{Name: g.Name, Kind: g.Kind, Shared: g.Shared, Estimated: g.Estimated}}
	m.byName[g.Name] = mg
	m.groups = append(m.groups, mg)
	return mg
}

func (m *merger) finishGroups() {
	for _, mg := range m.groups {
		mg.g.Aggregate = m.aggregate(mg)
		mg.g.Series = m.series(mg)
		m.out.Groups = append(m.out.Groups, mg.g)
	}
}

// aggregate computes the group's figures as the runner does for one process (record.Aggregate):
// totals over the union of the intervals, the spread of the client rates, merged histograms.
func (m *merger) aggregate(mg *mergedGroup) Aggregate {
	var a Aggregate
	var lats, lates, stored, delivered []*Latency
	var clocks []*StoredClock
	for _, g := range mg.parts {
		pa := g.Aggregate
		a.Msgs += pa.Msgs
		a.Bytes += pa.Bytes
		a.Events.Add(pa.Events)
		if !pa.Start.IsZero() && (a.Start.IsZero() || pa.Start.Before(a.Start)) {
			a.Start = pa.Start
		}
		if pa.End.After(a.End) {
			a.End = pa.End
		}
		lats = append(lats, pa.Latency)
		lates = append(lates, pa.SendLateness)
		if b := pa.Breakdown; b != nil {
			stored, delivered = append(stored, b.PublishToStored), append(delivered, b.StoredToDelivered)
			clocks = append(clocks, b.Clock)
		}
	}
	if d := a.End.Sub(a.Start); d > 0 && !a.Start.IsZero() {
		a.MsgsPerSec = float64(a.Msgs) / (float64(d) / 1e9)
		a.BytesPerSec = float64(a.Bytes) / (float64(d) / 1e9)
	}
	var rates, perMsg []float64
	for _, c := range mg.g.Clients {
		if c.MsgsPerSec > 0 {
			rates = append(rates, c.MsgsPerSec)
			perMsg = append(perMsg, 1e9/c.MsgsPerSec)
		}
	}
	a.Rates, a.TimePerMsg = SpreadOf(rates), SpreadOf(perMsg)
	var err error
	if a.Latency, err = mergeLatency(lats); err != nil {
		m.fail(fmt.Errorf("merge: group %s: %w", mg.g.Name, err))
	}
	if a.SendLateness, err = mergeLatency(lates); err != nil {
		m.fail(fmt.Errorf("merge: group %s: send lateness: %w", mg.g.Name, err))
	}
	if len(stored) > 0 {
		a.Breakdown = &Breakdown{}
		a.Breakdown.PublishToStored, err = mergeLatency(stored)
		if err == nil {
			a.Breakdown.StoredToDelivered, err = mergeLatency(delivered)
		}
		if err != nil {
			m.fail(fmt.Errorf("merge: group %s: breakdown: %w", mg.g.Name, err))
		}
		a.Breakdown.Clock = mergeClocks(clocks)
	}
	a.Correctness = m.correctness(mg)
	return a
}

// correctness computes the group's delivery counts as one process does (record.Aggregate):
// the clients' counts add up (each receiver is in one part); what the receivers saw of each
// publisher merges (the furthest sequence, the distinct ones added up), so a publisher heard
// in several parts counts once; a queue group's gaps are judged on that union and its
// not-received tail on the whole group's total.
func (m *merger) correctness(mg *mergedGroup) *Correctness {
	var c Correctness
	seen := false
	for _, cl := range mg.g.Clients {
		x := cl.Correctness
		if x == nil {
			continue
		}
		seen = true
		c.Add(x)
	}
	if !seen {
		return nil
	}
	pubs := map[uint32]*PublisherSeen{}
	most, partial := 0, false
	for _, g := range mg.parts {
		pc := g.Aggregate.Correctness
		if pc == nil {
			continue
		}
		most = max(most, pc.Publishers)
		if pc.Publishers > len(pc.PerPublisher) {
			partial = true
		}
		for _, p := range pc.PerPublisher {
			o := pubs[p.ID]
			if o == nil {
				o = &PublisherSeen{ID: p.ID}
				pubs[p.ID] = o
			}
			o.Highest = max(o.Highest, p.Highest)
			o.Distinct += p.Distinct
		}
	}
	for _, p := range pubs {
		c.PerPublisher = append(c.PerPublisher, *p)
		if c.HighestSeqMin == 0 || p.Highest < c.HighestSeqMin {
			c.HighestSeqMin = p.Highest
		}
		c.HighestSeqMax = max(c.HighestSeqMax, p.Highest)
	}
	sort.Slice(c.PerPublisher, func(i, j int) bool { return c.PerPublisher[i].ID < c.PerPublisher[j].ID })
	c.Publishers = len(c.PerPublisher)
	if partial {
		c.Publishers = max(c.Publishers, most)
		m.warn(fmt.Sprintf("%s: publishers counted as the most one part saw, and delivery judged per part: a part's Result has no per-publisher counts", mg.g.Name))
		for _, g := range mg.parts { // the parts' own judgement is all there is
			if g.Shared && g.Aggregate.Correctness != nil {
				return m.sharedFromParts(mg)
			}
		}
		return &c
	}
	if mg.g.Shared {
		c.Lost = 0
		for _, p := range c.PerPublisher {
			c.Lost += max(0, int64(p.Highest)-p.Distinct)
		}
		c.Expected = 0
		if !mg.g.Estimated {
			c.Expected = mg.g.Expected
		}
		c.NotReceived = 0
		if c.Expected > 0 {
			c.NotReceived = max(0, c.Expected-(c.Received-c.Duplicated+c.Unstamped)-c.Lost)
		}
	}
	return &c
}

// sharedFromParts adds up the parts' own queue-group judgements (Results without
// per-publisher counts).
func (m *merger) sharedFromParts(mg *mergedGroup) *Correctness {
	var c Correctness
	for _, g := range mg.parts {
		if x := g.Aggregate.Correctness; x != nil {
			c.Add(x)
			c.Publishers = max(c.Publishers, x.Publishers)
		}
	}
	return &c
}

// SpreadOf is the min/avg/max/stddev (population) of v, as nats bench prints them across
// clients: the runner computes a group's with it, and Merge recomputes them the same way.
func SpreadOf(v []float64) Spread {
	if len(v) == 0 {
		return Spread{}
	}
	s := Spread{Min: math.Inf(1), Max: math.Inf(-1)}
	var sum float64
	for _, x := range v {
		sum += x
		s.Min = math.Min(s.Min, x)
		s.Max = math.Max(s.Max, x)
	}
	s.Avg = sum / float64(len(v))
	var sq float64
	for _, x := range v {
		sq += (x - s.Avg) * (x - s.Avg)
	}
	s.StdDev = math.Sqrt(sq / float64(len(v)))
	return s
}

// errNoHistogram: a latency summary without its histogram cannot be merged exactly.
var errNoHistogram = errors.New("a latency summary carries no histogram, so its percentiles cannot be merged exactly")

// mergeLatency merges the summaries' histograms (nil entries had no samples) and summarises
// the result with the same percentile table.
func mergeLatency(ls []*Latency) (*Latency, error) {
	var hs, uncorr []*hdrhistogram.Histogram
	var table []float64
	for _, l := range ls {
		if l == nil || l.Count == 0 {
			continue
		}
		h, err := decodeHistogram(l)
		if err != nil {
			return nil, err
		}
		hs = append(hs, h)
		if table == nil {
			for _, p := range l.Percentiles {
				table = append(table, p.P)
			}
		}
		if l.Uncorrected != nil && l.Uncorrected.Count > 0 {
			u, err := decodeHistogram(l.Uncorrected)
			if err != nil {
				return nil, err
			}
			uncorr = append(uncorr, u)
		}
	}
	if len(hs) == 0 {
		return nil, nil
	}
	out := summarise(mergeHistograms(hs), table)
	if len(uncorr) > 0 {
		out.Uncorrected = summarise(mergeHistograms(uncorr), table)
	}
	return out, nil
}

func decodeHistogram(l *Latency) (*hdrhistogram.Histogram, error) {
	if l.Histogram == "" {
		return nil, errNoHistogram
	}
	h, err := hdrhistogram.Decode([]byte(l.Histogram))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// mergeHistograms adds every histogram into a new one with the first's range and precision.
func mergeHistograms(hs []*hdrhistogram.Histogram) *hdrhistogram.Histogram {
	f := hs[0]
	out := hdrhistogram.New(f.LowestTrackableValue(), f.HighestTrackableValue(), int(f.SignificantFigures()))
	for _, h := range hs {
		out.Merge(h)
	}
	return out
}

// summarise is histo.Summary's arithmetic (histo imports this package, so it cannot be called):
// a merged Result reads exactly like one process's.
func summarise(h *hdrhistogram.Histogram, table []float64) *Latency {
	if h.TotalCount() == 0 {
		return nil
	}
	l := &Latency{Count: h.TotalCount(), Min: h.Min(), Mean: h.Mean(), Max: h.Max(), StdDev: h.StdDev()}
	values := h.ValueAtPercentilesSlice(table)
	for i, p := range table {
		v := values[i]
		if p == 100 {
			v = h.Max()
		}
		l.Percentiles = append(l.Percentiles, Percentile{P: p, Ns: v})
	}
	if b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
		l.Histogram = string(b)
	}
	return l
}

// seriesWidth is the interval width the parts' series show (the smallest step between two
// consecutive intervals), or 0 when none has two.
func seriesWidth(in []Input) time.Duration {
	var w time.Duration
	for _, p := range in {
		for _, g := range p.Result.Groups {
			for i := 1; i < len(g.Series); i++ {
				if d := g.Series[i].Offset - g.Series[i-1].Offset; d > 0 && (w == 0 || d < w) {
					w = d
				}
			}
		}
	}
	return w
}

// series aligns the parts' intervals on the merged start (each moved by its part's start,
// rounded to the nearest interval edge) and merges those that fall together.
func (m *merger) series(mg *mergedGroup) []Interval {
	type acc struct {
		iv      Interval
		hs      []*hdrhistogram.Histogram
		inexact bool
	}
	at := map[time.Duration]*acc{}
	var keys []time.Duration
	for i, g := range mg.parts {
		for _, iv := range g.Series {
			off := iv.Offset + mg.shifts[i]
			if m.width > 0 {
				off = (off + m.width/2) / m.width * m.width
				if off < 0 {
					off = 0
				}
			} else {
				off = 0 // no part has two intervals: they are all the first
			}
			a := at[off]
			if a == nil {
				a = &acc{iv: Interval{Offset: off}}
				at[off] = a
				keys = append(keys, off)
			}
			a.iv.Msgs += iv.Msgs
			a.iv.Bytes += iv.Bytes
			a.iv.MaxUncorrected = max(a.iv.MaxUncorrected, iv.MaxUncorrected)
			switch {
			case iv.Histogram != "":
				h, err := hdrhistogram.Decode([]byte(iv.Histogram))
				if err != nil {
					m.fail(fmt.Errorf("merge: group %s: series: decode histogram: %w", mg.g.Name, err))
					continue
				}
				a.hs = append(a.hs, h)
			case iv.Max > 0:
				// An interval without its histogram: the maximum stays exact, the percentiles
				// become the largest of the parts'.
				a.inexact = true
				a.iv.P50, a.iv.P90, a.iv.P99 = max(a.iv.P50, iv.P50), max(a.iv.P90, iv.P90), max(a.iv.P99, iv.P99)
				a.iv.Max = max(a.iv.Max, iv.Max)
			}
		}
	}
	sort.Slice(keys, func(i, j int) bool { return keys[i] < keys[j] })
	out := make([]Interval, 0, len(keys))
	for _, k := range keys {
		a := at[k]
		if len(a.hs) > 0 {
			h := mergeHistograms(a.hs)
			if a.inexact {
				a.iv.P50, a.iv.P90, a.iv.P99 = max(a.iv.P50, h.ValueAtPercentile(50)), max(a.iv.P90, h.ValueAtPercentile(90)), max(a.iv.P99, h.ValueAtPercentile(99))
				a.iv.Max = max(a.iv.Max, h.Max())
			} else {
				a.iv.P50, a.iv.P90, a.iv.P99, a.iv.Max = h.ValueAtPercentile(50), h.ValueAtPercentile(90), h.ValueAtPercentile(99), h.Max()
				if b, err := h.Encode(hdrhistogram.V2CompressedEncodingCookieBase); err == nil {
					a.iv.Histogram = string(b)
				}
			}
		}
		if a.inexact {
			m.warn(fmt.Sprintf("%s: series percentiles are upper bounds: some parts' intervals carry no histograms", mg.g.Name))
		}
		out = append(out, a.iv)
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// verify adds up the parts' delivery checks. Each part reads back its own publishers, whose
// ids must not clash.
func (m *merger) verify(in []Input) *Verify {
	var v *Verify
	owner := map[uint32]string{}
	for _, p := range in {
		pv := p.Result.Verify
		if pv == nil {
			continue
		}
		if v == nil {
			v = &Verify{}
		}
		v.add(pv, p.Name)
		for _, pub := range pv.Publishers {
			if o, ok := owner[pub.ID]; ok {
				m.fail(fmt.Errorf("merge: publisher id %d is in both %s and %s: the parts' publisher ids clash, so their messages cannot be told apart", pub.ID, o, p.Name))
			}
			owner[pub.ID] = p.Name
		}
	}
	return v
}

// faults joins the parts' fault timelines (usually one part runs them) on the merged clock.
func (m *merger) faults(in []Input) *Faults {
	var f *Faults
	byGroup := map[string]int{}
	for _, p := range in {
		pf := p.Result.Faults
		if pf == nil {
			continue
		}
		if f == nil {
			f = &Faults{}
		}
		shift := m.shift(p.Result)
		f.GapMin = max(f.GapMin, pf.GapMin)
		for _, e := range pf.Timeline {
			e.At, e.Started = e.At+shift, e.Started+shift
			f.Timeline = append(f.Timeline, e)
		}
		if u := m.gap(p.Name, pf.Unavailable, shift); u.Duration > f.Unavailable.Duration {
			f.Unavailable = u
		}
		if n := pf.NotRecovered; n != nil {
			if g := m.gap(p.Name, *n, shift); f.NotRecovered == nil || g.Duration > f.NotRecovered.Duration {
				f.NotRecovered = &g
			}
		}
		for _, g := range pf.ByGroup {
			g = m.gap(p.Name, g, shift)
			if i, ok := byGroup[g.Group]; !ok {
				byGroup[g.Group] = len(f.ByGroup)
				f.ByGroup = append(f.ByGroup, g)
			} else if g.Duration > f.ByGroup[i].Duration {
				f.ByGroup[i] = g
			}
		}
	}
	if f != nil {
		sort.SliceStable(f.Timeline, func(i, j int) bool { return f.Timeline[i].At < f.Timeline[j].At })
	}
	return f
}

// gap moves a part's gap onto the merged clock and client numbering.
func (m *merger) gap(part string, g Gap, shift time.Duration) Gap {
	if g.Duration == 0 {
		return g
	}
	g.From, g.To = g.From+shift, g.To+shift
	if id, ok := m.ids[clientKey{part, g.Group, g.Client}]; ok {
		g.Client = id
	}
	return g
}

// windows merges the phases of the parts by label: messages add up, latencies merge.
func (m *merger) windows(in []Input) []Window {
	var out []Window
	at := map[string]int{}
	lats := map[[2]string][]*Latency{}
	for _, p := range in {
		shift := m.shift(p.Result)
		for _, w := range p.Result.Windows {
			i, ok := at[w.Label]
			if !ok {
				i = len(out)
				at[w.Label] = i
				out = append(out, Window{Label: w.Label, From: w.From + shift, To: w.To + shift})
			}
			o := &out[i]
			o.From, o.To = min(o.From, w.From+shift), max(o.To, w.To+shift)
			for _, g := range w.Groups {
				j := -1
				for k := range o.Groups {
					if o.Groups[k].Name == g.Name {
						j = k
					}
				}
				if j < 0 {
					j = len(o.Groups)
					o.Groups = append(o.Groups, WindowGroup{Name: g.Name})
				}
				o.Groups[j].Msgs += g.Msgs
				key := [2]string{w.Label, g.Name}
				lats[key] = append(lats[key], g.Latency)
			}
		}
	}
	for i := range out {
		for j := range out[i].Groups {
			l, err := mergeLatency(lats[[2]string{out[i].Label, out[i].Groups[j].Name}])
			if err != nil {
				m.fail(fmt.Errorf("merge: window %s: %w", out[i].Label, err))
			}
			out[i].Groups[j].Latency = l
		}
	}
	return out
}

// mergeStreamStates folds the parts' states of one stream: what each part published adds up;
// the server's figures are the fullest a part read (a stream only grows during a run: the
// state read after every part had published).
func mergeStreamStates(acc, in []StreamState) []StreamState {
	for _, s := range in {
		i := -1
		for k := range acc {
			if acc[k].Name == s.Name {
				i = k
			}
		}
		if i < 0 {
			acc = append(acc, s)
			continue
		}
		o := &acc[i]
		o.Published += s.Published
		o.ExpectedBytes += s.ExpectedBytes
		o.CreatedByNatsperf = o.CreatedByNatsperf || s.CreatedByNatsperf
		if s.Messages >= o.Messages {
			o.Messages, o.Bytes, o.StoredBytes = s.Messages, s.Bytes, s.StoredBytes
		}
	}
	return acc
}

// stopRank orders the stop reasons from best to worst.
var stopRank = map[string]int{StopCompleted: 0, StopIdle: 1, StopInterrupted: 2, StopFailed: 3}

func joinNonEmpty(a, b, sep string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + sep + b
}

// mergeCPU adds up the parts' processes: they ran side by side, so their CPU seconds, cores
// and messages add up, the wall time is the longest, and the share is of all their cores.
// nil when no part measured its CPU.
func mergeCPU(in []Input) *CPU {
	var c *CPU
	for _, p := range in {
		pc := p.Result.CPU
		if pc == nil {
			continue
		}
		if c == nil {
			c = &CPU{}
		}
		c.UserSeconds += pc.UserSeconds
		c.SysSeconds += pc.SysSeconds
		c.Seconds += pc.Seconds
		c.WallSeconds = max(c.WallSeconds, pc.WallSeconds)
		c.Cores += pc.Cores
		c.Msgs += pc.Msgs
		c.Saturated = c.Saturated || pc.Saturated
	}
	if c == nil {
		return nil
	}
	if c.WallSeconds > 0 && c.Cores > 0 {
		c.CoreShare = c.Seconds / (c.WallSeconds * float64(c.Cores))
	}
	if c.Seconds > 0 {
		c.MsgsPerCPUSecond = float64(c.Msgs) / c.Seconds
	}
	return c
}

// unionRanges is the sorted union of two lists of stream sequence ranges: parts that read back
// the same stream may each have failed to read overlapping sequences.
func unionRanges(a, b []SeqRange) []SeqRange {
	all := append(slices.Clone(a), b...)
	if len(all) == 0 {
		return nil
	}
	slices.SortFunc(all, func(x, y SeqRange) int { return cmp.Compare(x.First, y.First) })
	out := all[:1]
	for _, r := range all[1:] {
		last := &out[len(out)-1]
		if r.First <= last.Last+1 {
			last.Last = max(last.Last, r.Last)
			continue
		}
		out = append(out, r)
	}
	return out
}

// mergeClocks is how the parts' breakdowns were put on one clock: theirs when they all say
// the same, else uncorrected (the parts placed their splits differently).
func mergeClocks(clocks []*StoredClock) *StoredClock {
	for _, c := range clocks[1:] {
		if (c == nil) != (clocks[0] == nil) || (c != nil && *c != *clocks[0]) {
			return &StoredClock{Basis: ClockUncorrected, Note: "the parts placed their splits on different clocks"}
		}
	}
	return clocks[0]
}

// shiftRefusals is rs moved by shift (a part's times onto the merged run's), in a copy: the
// part's Result stays as it was.
func shiftRefusals(rs []Refusals, shift time.Duration) []Refusals {
	if len(rs) == 0 {
		return rs
	}
	out := make([]Refusals, len(rs))
	for i, r := range rs {
		r.From, r.To = r.From+shift, r.To+shift
		out[i] = r
	}
	return out
}
