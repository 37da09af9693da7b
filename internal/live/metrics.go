package live

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/record"
)

// Metrics holds what the Prometheus endpoint serves. The text exposition format is written by
// hand: a dozen lines do not justify client_golang and its dependency tree.
type Metrics struct {
	mu       sync.Mutex
	cell     string
	run      string
	interval time.Duration
	done     int
	total    int
	groups   map[string]*groupStats
}

type groupStats struct {
	msgs, bytes int64 // since the run started
	cur         int64 // start of the interval being filled
	curMsgs     int64
	curLat      *hdrhistogram.Histogram
	lastMsgs    int64 // the last complete interval
	lastLat     *hdrhistogram.Histogram
}

// NewMetrics returns empty metrics for total runs.
func NewMetrics(total int) *Metrics {
	return &Metrics{total: total, groups: map[string]*groupStats{}}
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
	m.mu.Lock()
	defer m.mu.Unlock()
	g := m.groups[group]
	if g == nil {
		g = &groupStats{curLat: histo.New(), lastLat: histo.New()}
		m.groups[group] = g
	}
	g.msgs += s.Msgs
	g.bytes += s.Bytes
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
		if s.Lat != "" {
			if h, err := histo.Decode(s.Lat); err == nil {
				g.curLat.Merge(h)
			}
		}
	}
}

var quantiles = []float64{0.5, 0.9, 0.99, 0.999}

// WriteTo writes the Prometheus text exposition format.
func (m *Metrics) WriteTo(w io.Writer) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "# HELP natsperf_runs_completed Runs of the scenario finished.\n# TYPE natsperf_runs_completed gauge\nnatsperf_runs_completed %d\n", m.done)
	fmt.Fprintf(&b, "# HELP natsperf_runs_total Runs the scenario holds.\n# TYPE natsperf_runs_total gauge\nnatsperf_runs_total %d\n", m.total)
	names := make([]string, 0, len(m.groups))
	for n := range m.groups {
		names = append(names, n)
	}
	sort.Strings(names)
	labels := func(g string) string {
		return fmt.Sprintf(`cell="%s",run="%s",group="%s"`, esc(m.cell), esc(m.run), esc(g))
	}
	b.WriteString("# HELP natsperf_messages_total Messages handled in the current run (intervals closed so far).\n# TYPE natsperf_messages_total counter\n")
	for _, n := range names {
		fmt.Fprintf(&b, "natsperf_messages_total{%s} %d\n", labels(n), m.groups[n].msgs)
	}
	b.WriteString("# HELP natsperf_bytes_total Payload bytes handled in the current run.\n# TYPE natsperf_bytes_total counter\n")
	for _, n := range names {
		fmt.Fprintf(&b, "natsperf_bytes_total{%s} %d\n", labels(n), m.groups[n].bytes)
	}
	b.WriteString("# HELP natsperf_rate_msgs_per_second Messages per second over the last complete interval.\n# TYPE natsperf_rate_msgs_per_second gauge\n")
	for _, n := range names {
		rate := 0.0
		if m.interval > 0 {
			rate = float64(m.groups[n].lastMsgs) / m.interval.Seconds()
		}
		fmt.Fprintf(&b, "natsperf_rate_msgs_per_second{%s} %g\n", labels(n), rate)
	}
	b.WriteString("# HELP natsperf_latency_seconds Latency percentiles over the last complete interval.\n# TYPE natsperf_latency_seconds gauge\n")
	for _, n := range names {
		h := m.groups[n].lastLat
		if h.TotalCount() == 0 {
			continue
		}
		for _, q := range quantiles {
			fmt.Fprintf(&b, "natsperf_latency_seconds{%s,quantile=\"%g\"} %g\n", labels(n), q, float64(h.ValueAtPercentile(q*100))/1e9)
		}
	}
	k, err := io.WriteString(w, b.String())
	return int64(k), err
}

// ServeHTTP serves /metrics.
func (m *Metrics) ServeHTTP(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	_, _ = m.WriteTo(w)
}

func esc(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}
