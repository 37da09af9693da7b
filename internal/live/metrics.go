package live

import (
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/record"
)

// Metrics holds what the Prometheus endpoint serves. client_golang writes the exposition (types,
// escaping, content negotiation); the figures are kept here and turned into constant metrics
// at each scrape. Nothing of this is on the hot path: the sink's goroutine feeds it once per
// closed interval per client.
type Metrics struct {
	mu       sync.Mutex
	cell     string
	run      string
	interval time.Duration
	done     int
	total    int
	groups   map[string]*groupStats
	handler  http.Handler
}

type groupStats struct {
	msgs, bytes int64 // since the run started
	cur         int64 // start of the interval being filled
	curMsgs     int64
	curLat      *hdrhistogram.Histogram
	lastMsgs    int64 // the last complete interval
	lastLat     *hdrhistogram.Histogram
	// latCount and latSum (seconds) are every latency recorded since the run started: the
	// summary's _count and _sum, cumulative as Prometheus expects them to be.
	latCount uint64
	latSum   float64
}

var (
	groupLabels  = []string{"cell", "run", "group"}
	runsDoneDesc = prometheus.NewDesc("natsperf_runs_completed_total", "Runs of the scenario finished.", nil, nil)
	runsDesc     = prometheus.NewDesc("natsperf_runs_planned", "Runs the scenario holds.", nil, nil)
	msgsDesc     = prometheus.NewDesc("natsperf_messages_total", "Messages handled in the current run (intervals closed so far).", groupLabels, nil)
	bytesDesc    = prometheus.NewDesc("natsperf_bytes_total", "Payload bytes handled in the current run.", groupLabels, nil)
	rateDesc     = prometheus.NewDesc("natsperf_rate_msgs_per_second", "Messages per second over the last complete interval.", groupLabels, nil)
	latDesc      = prometheus.NewDesc("natsperf_latency_seconds",
		"Latency: quantiles over the last complete interval; count and sum over the run so far.", groupLabels, nil)
)

var quantiles = []float64{0.5, 0.9, 0.99, 0.999}

// NewMetrics returns empty metrics for total runs.
func NewMetrics(total int) *Metrics {
	m := &Metrics{total: total, groups: map[string]*groupStats{}}
	reg := prometheus.NewPedanticRegistry()
	reg.MustRegister(m)
	m.handler = promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorHandling: promhttp.HTTPErrorOnError})
	return m
}

// StartRun resets the per-run figures.
func (m *Metrics) StartRun(cell, run string, interval time.Duration) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.cell, m.run, m.interval = cell, run, interval
	m.groups = map[string]*groupStats{}
}

// EndRun counts a finished run.
func (m *Metrics) EndRun() {
	m.mu.Lock()
	m.done++
	m.mu.Unlock()
}

// observe folds one client's closed interval into its group.
func (m *Metrics) observe(s record.Slice) {
	group := s.Src
	if i := strings.LastIndexByte(group, '/'); i > 0 {
		group = group[:i]
	}
	var h *hdrhistogram.Histogram
	if s.Lat != "" {
		h, _ = histo.Decode(s.Lat) // decoded outside the lock; a bad one is skipped
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.groups[group]
	if g == nil {
		g = &groupStats{curLat: histo.New(), lastLat: histo.New()}
		m.groups[group] = g
	}
	g.msgs += s.Msgs
	g.bytes += s.Bytes
	if h != nil {
		n := h.TotalCount()
		g.latCount += uint64(n)
		g.latSum += h.Mean() * float64(n) / 1e9
	}
	if s.Start > g.cur { // a newer interval: the one being filled is complete
		if g.cur != 0 {
			g.lastMsgs = g.curMsgs
			g.lastLat, g.curLat = g.curLat, g.lastLat
		}
		g.curLat.Reset()
		g.cur, g.curMsgs = s.Start, 0
	}
	if s.Start == g.cur {
		g.curMsgs += s.Msgs
		if h != nil {
			g.curLat.Merge(h)
		}
	}
}

// Describe implements prometheus.Collector.
func (m *Metrics) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{runsDoneDesc, runsDesc, msgsDesc, bytesDesc, rateDesc, latDesc} {
		ch <- d
	}
}

// Collect implements prometheus.Collector: one scrape's worth of constant metrics.
func (m *Metrics) Collect(ch chan<- prometheus.Metric) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ch <- prometheus.MustNewConstMetric(runsDoneDesc, prometheus.CounterValue, float64(m.done))
	ch <- prometheus.MustNewConstMetric(runsDesc, prometheus.GaugeValue, float64(m.total))
	for name, g := range m.groups {
		lv := []string{m.cell, m.run, name}
		ch <- prometheus.MustNewConstMetric(msgsDesc, prometheus.CounterValue, float64(g.msgs), lv...)
		ch <- prometheus.MustNewConstMetric(bytesDesc, prometheus.CounterValue, float64(g.bytes), lv...)
		rate := 0.0
		if m.interval > 0 {
			rate = float64(g.lastMsgs) / m.interval.Seconds()
		}
		ch <- prometheus.MustNewConstMetric(rateDesc, prometheus.GaugeValue, rate, lv...)
		if g.latCount == 0 {
			continue
		}
		var q map[float64]float64
		if g.lastLat.TotalCount() > 0 { // no complete interval yet: count and sum only
			q = make(map[float64]float64, len(quantiles))
			for _, p := range quantiles {
				q[p] = float64(g.lastLat.ValueAtPercentile(p*100)) / 1e9
			}
		}
		ch <- prometheus.MustNewConstSummary(latDesc, g.latCount, g.latSum, q, lv...)
	}
}

// ServeHTTP serves /metrics.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, r *http.Request) { m.handler.ServeHTTP(w, r) }
