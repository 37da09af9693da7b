package report

import (
	"math"
	"sort"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/result"
)

// Metric is one figure a report tabulates and compare tests.
type Metric struct {
	Key    string `json:"key"`              // "sub.rate"
	Label  string `json:"label"`            // "sub msgs/s per client"
	Unit   string `json:"unit"`             // "msgs/s", "ns", "B", ""
	Higher bool   `json:"higher_is_better"` // higher is better
}

// Metrics lists the figures of the roles present, in table order.
func Metrics(s *Set) []Metric {
	roles := map[string]bool{}
	streams, checked := false, false
	for _, c := range s.Cells {
		for _, r := range c.Runs {
			for _, g := range r.Result.Groups {
				roles[Role(g.Name)] = true
				if g.Aggregate.Correctness != nil {
					checked = true
				}
			}
			if len(r.Result.Streams) > 0 {
				streams = true
			}
		}
	}
	var names []string
	for r := range roles {
		names = append(names, r)
	}
	sort.Slice(names, func(i, j int) bool { return roleOrder(names[i]) < roleOrder(names[j]) })
	var out []Metric
	for _, r := range names {
		out = append(out, Metric{Key: r + ".rate", Label: r + " msgs/s per client", Unit: "msgs/s", Higher: true},
			Metric{Key: r + ".total", Label: r + " msgs/s total", Unit: "msgs/s", Higher: true})
	}
	for _, r := range names {
		out = append(out, Metric{Key: r + ".p50", Label: r + " P50", Unit: "ns"}, Metric{Key: r + ".p99", Label: r + " P99", Unit: "ns"},
			Metric{Key: r + ".p999", Label: r + " P99.9", Unit: "ns"})
	}
	if checked {
		out = append(out, Metric{Key: "lost", Label: "lost"}, Metric{Key: "duplicated", Label: "duplicates"})
	}
	if streams {
		out = append(out, Metric{Key: "stored", Label: "stored", Unit: "B"}, Metric{Key: "expected", Label: "expected", Unit: "B"})
	}
	return out
}

func roleOrder(r string) string {
	switch r {
	case "pub":
		return "0"
	case "sub":
		return "1"
	}
	return "2" + r
}

// Values computes every metric of one Result. Rates are per client averaged over all the
// instances' clients that have one (the seed's "avg pub msg/sec"), and the instances' totals
// added up (the whole cluster's rate).
func Values(r *result.Result) map[string]float64 {
	v := map[string]float64{}
	clients := map[string]int{}
	hists := map[string]*hdrhistogram.Histogram{}
	for _, g := range r.Groups {
		role := Role(g.Name)
		v[role+".rate"] += 0 // present, if 0, when no client has a rate
		for _, c := range g.Clients {
			// A client with no rate (no message, or one without an interval) is left out, as
			// in the Result's rates spread: it did not run slowly, it did not run.
			if c.MsgsPerSec > 0 {
				v[role+".rate"] += c.MsgsPerSec
				clients[role]++
			}
		}
		v[role+".total"] += g.Aggregate.MsgsPerSec
		if g.Aggregate.Correctness != nil {
			v["lost"] += float64(g.Aggregate.Correctness.Lost)
			v["duplicated"] += float64(g.Aggregate.Correctness.Duplicated)
		}
		if l := g.Aggregate.Latency; l != nil && l.Histogram != "" {
			if h, err := histo.Decode(l.Histogram); err == nil {
				if hists[role] == nil {
					hists[role] = histo.New()
				}
				hists[role].Merge(h)
			}
		}
	}
	for role, n := range clients {
		if n > 0 {
			v[role+".rate"] /= float64(n)
		}
	}
	for role, h := range hists {
		if h.TotalCount() > 0 {
			v[role+".p50"] = float64(h.ValueAtPercentile(50))
			v[role+".p99"] = float64(h.ValueAtPercentile(99))
			v[role+".p999"] = float64(h.ValueAtPercentile(99.9))
		}
	}
	for _, s := range r.Streams {
		v["stored"] += float64(s.StoredBytes)
		v["expected"] += float64(s.ExpectedBytes)
		if s.DiskBytes > 0 {
			v["disk"] += float64(s.DiskBytes)
		}
	}
	return v
}

// Stats is one metric over a cell's repetitions. Its JSON form is the one report's and
// compare's JSON outputs share.
type Stats struct {
	N       int       `json:"n"`
	Mean    float64   `json:"mean"`
	StdDev  float64   `json:"stddev"`
	Min     float64   `json:"min"`
	Max     float64   `json:"max"`
	Samples []float64 `json:"samples"`
}

// Of summarises samples.
func Of(samples []float64) Stats {
	s := Stats{N: len(samples), Samples: samples}
	if s.N == 0 {
		return s
	}
	s.Min, s.Max = math.Inf(1), math.Inf(-1)
	for _, x := range samples {
		s.Mean += x
		s.Min, s.Max = math.Min(s.Min, x), math.Max(s.Max, x)
	}
	s.Mean /= float64(s.N)
	if s.N > 1 {
		for _, x := range samples {
			s.StdDev += (x - s.Mean) * (x - s.Mean)
		}
		s.StdDev = math.Sqrt(s.StdDev / float64(s.N-1))
	}
	return s
}

// CellStats computes every metric of a cell over its repetitions that did not fail; a metric
// absent from a run is left out of that run's samples.
func CellStats(c *Cell, metrics []Metric) map[string]Stats {
	out := map[string]Stats{}
	samples := map[string][]float64{}
	for _, r := range c.OK() {
		v := Values(r.Result)
		for _, m := range metrics {
			if x, ok := v[m.Key]; ok {
				samples[m.Key] = append(samples[m.Key], x)
			}
		}
	}
	for k, s := range samples {
		out[k] = Of(s)
	}
	return out
}

// Latency merges a role's latency histograms over a cell's runs that did not fail (nil when none).
func (c *Cell) Latency(role string) *hdrhistogram.Histogram {
	var h *hdrhistogram.Histogram
	for _, r := range c.OK() {
		for _, g := range r.Result.Groups {
			if Role(g.Name) != role || g.Aggregate.Latency == nil || g.Aggregate.Latency.Histogram == "" {
				continue
			}
			if x, err := histo.Decode(g.Aggregate.Latency.Histogram); err == nil {
				if h == nil {
					h = histo.New()
				}
				h.Merge(x)
			}
		}
	}
	return h
}
