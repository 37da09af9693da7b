package report

import (
	"fmt"
	"sort"

	"github.com/natsperf/natsperf/internal/units"
)

// Table is one table of a report's section. Title, when set, heads it; Class is the HTML
// table's class.
type Table struct {
	Title string
	Head  []string
	Rows  [][]string
	Class string
}

// EffectTables is one table per matrix axis: a row per level against the baseline, a column
// per headline metric, "x0.48 [0.41-0.55]" in each (a trailing * when the interval excludes 1).
func EffectTables(s *Set, effects []Effect) []Table {
	var out []Table
	for _, a := range s.Axes {
		var metrics []Metric
		rows := map[string]map[string]string{}
		var levels []string
		for _, e := range effects {
			if e.Axis != a {
				continue
			}
			if !containsMetric(metrics, e.Metric.Key) {
				metrics = append(metrics, e.Metric)
			}
			l := e.Level + " vs " + e.Baseline
			if rows[l] == nil {
				rows[l] = map[string]string{}
				levels = append(levels, l)
			}
			v := e.Value()
			if !e.CI {
				v = "x" + ratio(e.Ratio)
			}
			if e.Significant() {
				v += " *"
			}
			if len(e.Flips) > 0 {
				v += " (flips)"
			}
			rows[l][e.Metric.Key] = v
		}
		if len(levels) == 0 {
			continue
		}
		t := Table{Head: []string{a}, Class: "effects"}
		for _, m := range metrics {
			t.Head = append(t.Head, m.Label)
		}
		for _, l := range levels {
			row := []string{l}
			for _, m := range metrics {
				row = append(row, rows[l][m.Key])
			}
			t.Rows = append(t.Rows, row)
		}
		out = append(out, t)
	}
	return out
}

func containsMetric(ms []Metric, key string) bool {
	for _, m := range ms {
		if m.Key == key {
			return true
		}
	}
	return false
}

// StorageTable checks each cell's storage: the bytes the servers hold (every replica) against
// messages x replicas x size, averaged over the runs that did not fail. When the runs know
// the bytes on disk (natsperf's embedded server), it adds them and their share of the
// expected bytes: what S2 compression saved, or what encryption added.
func StorageTable(s *Set) *Table {
	t := &Table{Class: "storage", Head: []string{"cell", "streams", "messages", "replicas", "size", "expected (msgs x replicas x size)", "stored", "stored / expected"}}
	disk := false
	for _, c := range s.Cells {
		for _, r := range c.OK() {
			for _, x := range r.Result.Streams {
				disk = disk || x.DiskBytes > 0
			}
		}
	}
	if disk {
		t.Head = append(t.Head, "compression", "on disk", "on disk / expected")
	}
	for _, c := range s.Cells {
		var msgs, expected, stored, ondisk []float64
		streams, replicas, size, compression := 0, 0, int64(0), ""
		for _, r := range c.OK() {
			var m, e, st, d float64
			for _, x := range r.Result.Streams {
				if x.ExpectedBytes == 0 && x.StoredBytes == 0 {
					continue
				}
				m += float64(x.Published)
				e += float64(x.ExpectedBytes)
				st += float64(x.StoredBytes)
				d += float64(x.DiskBytes)
				replicas, size = max(replicas, x.Replicas), max(size, x.MsgSize)
				compression = max(compression, x.Compression) // "s2" > "none" > ""
			}
			if e == 0 && st == 0 {
				continue
			}
			streams = max(streams, len(r.Result.Streams))
			msgs, expected, stored, ondisk = append(msgs, m), append(expected, e), append(stored, st), append(ondisk, d)
		}
		if len(expected) == 0 {
			continue
		}
		e, st, d := Of(expected).Mean, Of(stored).Mean, Of(ondisk).Mean
		row := []string{c.Name, fmt.Sprint(streams), units.Comma(int64(Of(msgs).Mean)), fmt.Sprint(replicas), units.FormatSize(size),
			units.FormatSize(int64(e)), units.FormatSize(int64(st)), ratioOf(st, e)}
		if disk {
			row = append(row, compression, units.FormatSize(int64(d)), ratioOf(d, e))
		}
		t.Rows = append(t.Rows, row)
	}
	if len(t.Rows) == 0 {
		return nil
	}
	return t
}

// ratioOf is "1.02x", "" without a denominator or a numerator.
func ratioOf(x, of float64) string {
	if of <= 0 || x <= 0 {
		return ""
	}
	return fmt.Sprintf("%.2fx", x/of)
}

// InstanceTable is a cell's per-instance (per pod) figures, averaged over its runs that did
// not fail; nil when the groups have no instance prefix.
func InstanceTable(c *Cell) *Table {
	type acc struct{ rate, lat50, lat99 []float64 }
	rows := map[string]map[string]*acc{}
	var order []string
	roles := map[string]bool{}
	for _, r := range c.OK() {
		for _, g := range r.Result.Groups {
			inst, role := Instance(g.Name), Role(g.Name)
			if inst == "" {
				return nil // not a scenario run: the main table says it all
			}
			if rows[inst] == nil {
				rows[inst] = map[string]*acc{}
				order = append(order, inst)
			}
			if rows[inst][role] == nil {
				rows[inst][role] = &acc{}
			}
			roles[role] = true
			a := rows[inst][role]
			a.rate = append(a.rate, g.Aggregate.Rates.Avg)
			if l := g.Aggregate.Latency; l != nil {
				a.lat50 = append(a.lat50, float64(pct(l, 50)))
				a.lat99 = append(a.lat99, float64(pct(l, 99)))
			}
		}
	}
	if len(order) == 0 {
		return nil
	}
	var rs []string
	for r := range roles {
		rs = append(rs, r)
	}
	sort.Slice(rs, func(i, j int) bool { return roleOrder(rs[i]) < roleOrder(rs[j]) })
	t := &Table{Title: c.Name + ": per instance", Head: []string{"instance"}, Class: "instances"}
	for _, r := range rs {
		t.Head = append(t.Head, r+" msgs/s per client", r+" P50", r+" P99")
	}
	for _, inst := range order {
		cells := []string{inst}
		for _, r := range rs {
			a := rows[inst][r]
			if a == nil {
				cells = append(cells, "", "", "")
				continue
			}
			cells = append(cells, msgRate(Of(a.rate).Mean), durOf(a.lat50), durOf(a.lat99))
		}
		t.Rows = append(t.Rows, cells)
	}
	return t
}
