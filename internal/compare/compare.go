package compare

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/natsperf/natsperf/internal/report"
)

// Row is one metric of one cell in both sets.
type Row struct {
	Cell     string
	Metric   report.Metric
	Old, New report.Stats
	Delta    float64 // percent, new against old
	P        float64
	// Significant: the difference is beyond noise. Testable is false when the samples are
	// too few for any difference to be significant.
	Significant, Testable bool
	Regression            bool // worse by more than the threshold (see Compare)
	// OldClient and NewClient are the client libraries of the two sides (nats.go,
	// async-nats, ...), so comparing a Go run with a Rust one says so on each row.
	OldClient, NewClient string
	// OldPacing and NewPacing are the pacing precisions of the two sides' paced runs (0:
	// unpaced or not recorded): the pacer's lateness is in the corrected latency, so rows
	// comparing runs paced at different precisions say so.
	OldPacing, NewPacing time.Duration
	// OldNetwork and NewNetwork are the two sides' link conditions (result.Network's, "":
	// none). When they differ the row is NotComparable: the runs measured different networks,
	// so no delta is tested and no regression marked.
	OldNetwork, NewNetwork string
	NotComparable          bool
}

// Compare matches the cells of old and new by name and compares every metric both have.
// A row is a regression when it is worse by more than pct percent and either significant or
// untestable (too few repetitions: then the delta alone decides, which is what CI with one run
// per side needs). pct < 0 marks none.
func Compare(old, new *report.Set, pct float64) []Row {
	metrics := report.Metrics(new)
	byName := map[string]*report.Cell{}
	for _, c := range old.Cells {
		byName[c.Name] = c
	}
	single := len(old.Cells) == 1 && len(new.Cells) == 1 // two files: compare them whatever their names
	var rows []Row
	for _, nc := range new.Cells {
		oc := byName[nc.Name]
		if single {
			oc = old.Cells[0]
		}
		if oc == nil {
			continue
		}
		os, ns := report.CellStats(oc, metrics), report.CellStats(nc, metrics)
		for _, m := range metrics {
			o, n := os[m.Key], ns[m.Key]
			if o.N == 0 || n.N == 0 {
				continue
			}
			r := Row{Cell: nc.Name, Metric: m, Old: o, New: n, P: MannWhitney(o.Samples, n.Samples),
				OldClient: cellClient(oc), NewClient: cellClient(nc), OldPacing: cellPacing(oc), NewPacing: cellPacing(nc),
				OldNetwork: cellNetwork(oc), NewNetwork: cellNetwork(nc)}
			if r.OldNetwork != r.NewNetwork {
				r.NotComparable = true
				rows = append(rows, r)
				continue
			}
			if o.Mean != 0 {
				r.Delta = (n.Mean - o.Mean) / math.Abs(o.Mean) * 100
			} else if n.Mean != 0 {
				r.Delta = math.Inf(1)
			}
			r.Testable = MinP(o.N, n.N) < Alpha
			r.Significant = r.Testable && r.P < Alpha
			worse := (m.Higher && r.Delta < 0) || (!m.Higher && r.Delta > 0)
			gated := strings.HasSuffix(m.Key, ".rate") || strings.HasSuffix(m.Key, ".total") || strings.HasSuffix(m.Key, ".p50") || strings.HasSuffix(m.Key, ".p99")
			r.Regression = pct >= 0 && gated && worse && math.Abs(r.Delta) > pct && (r.Significant || !r.Testable)
			rows = append(rows, r)
		}
	}
	return rows
}

// cellClient is the client libraries of a cell's first run.
func cellClient(c *report.Cell) string {
	if len(c.Runs) == 0 {
		return ""
	}
	return c.Runs[0].Result.Libraries()
}

// cellPacing is the pacing precision of a cell's first run.
func cellPacing(c *report.Cell) time.Duration {
	if len(c.Runs) == 0 {
		return 0
	}
	return c.Runs[0].Result.PacePrecision()
}

// cellNetwork is the link conditions of a cell's first run.
func cellNetwork(c *report.Cell) string {
	if len(c.Runs) == 0 {
		return ""
	}
	return c.Runs[0].Result.Network.Conditions()
}

// network names a side's link conditions in a not-comparable row.
func network(conditions string) string {
	if conditions == "" {
		return "direct"
	}
	return conditions
}

// Write prints rows as benchstat does: old, new, delta or "~", and the test's p and n.
func Write(w io.Writer, rows []Row) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "cell\tmetric\told\tnew\tdelta\t")
	last := ""
	for _, r := range rows {
		cell := r.Cell
		if r.OldClient != r.NewClient {
			cell += fmt.Sprintf(" (%s vs %s)", r.OldClient, r.NewClient)
		}
		if r.OldPacing != r.NewPacing && r.OldPacing > 0 && r.NewPacing > 0 {
			cell += fmt.Sprintf(" (paced at %v vs %v)", r.OldPacing, r.NewPacing)
		}
		if cell == last {
			cell = ""
		} else {
			last = cell
		}
		if r.NotComparable {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\tnot comparable: network %s vs %s\t\n", cell, r.Metric.Label, stat(r.Metric, r.Old), stat(r.Metric, r.New),
				network(r.OldNetwork), network(r.NewNetwork))
			continue
		}
		delta := "~"
		if r.Significant {
			delta = fmt.Sprintf("%+.2f%%", r.Delta)
		}
		note := fmt.Sprintf("(p=%.3f n=%d+%d)", r.P, r.Old.N, r.New.N)
		if !r.Testable {
			note = fmt.Sprintf("(%+.2f%%, too few repetitions to test: n=%d+%d)", r.Delta, r.Old.N, r.New.N)
		}
		if r.Regression {
			note += " REGRESSION"
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s %s\t\n", cell, r.Metric.Label, stat(r.Metric, r.Old), stat(r.Metric, r.New), delta, note)
	}
	return tw.Flush()
}

func stat(m report.Metric, s report.Stats) string {
	if s.N < 2 || s.Mean == 0 {
		return report.Format(m, s.Mean)
	}
	return fmt.Sprintf("%s ±%.0f%%", report.Format(m, s.Mean), s.StdDev/math.Abs(s.Mean)*100)
}

// JSONSchema names the document WriteJSON prints.
const JSONSchema = "natsperf.compare/v1"

// jsonDoc is `compare --json`: the rows with every figure the text shows, keys in snake_case.
type jsonDoc struct {
	Schema string  `json:"schema"`
	Old    string  `json:"old"`
	New    string  `json:"new"`
	Alpha  float64 `json:"alpha"`
	// FailOnRegression is the threshold in percent; absent when none was given.
	FailOnRegression *float64  `json:"fail_on_regression,omitempty"`
	Regressions      int       `json:"regressions"`
	Rows             []jsonRow `json:"rows"`
}

type jsonRow struct {
	Cell   string       `json:"cell"`
	Metric string       `json:"metric"` // "pub.rate"
	Label  string       `json:"label"`  // "pub msgs/s per client"
	Unit   string       `json:"unit,omitempty"`
	Higher bool         `json:"higher_is_better"`
	Old    report.Stats `json:"old"`
	New    report.Stats `json:"new"`
	// DeltaPct is new against old in percent; null when old is 0 and new is not.
	DeltaPct    *float64 `json:"delta_pct"`
	P           float64  `json:"p"`
	Testable    bool     `json:"testable"`
	Significant bool     `json:"significant"`
	Regression  bool     `json:"regression"`
	// NotComparable: the two sides ran on different networks (OldNetwork, NewNetwork: their
	// link conditions, "" for none); delta_pct is then null.
	NotComparable bool   `json:"not_comparable,omitempty"`
	OldNetwork    string `json:"old_network,omitempty"`
	NewNetwork    string `json:"new_network,omitempty"`
}

// WriteJSON prints rows as one JSON document; oldName and newName are the inputs as given,
// pct the regression threshold (< 0: none).
func WriteJSON(w io.Writer, oldName, newName string, rows []Row, pct float64) error {
	doc := jsonDoc{Schema: JSONSchema, Old: oldName, New: newName, Alpha: Alpha, Rows: make([]jsonRow, 0, len(rows))}
	if pct >= 0 {
		doc.FailOnRegression = &pct
	}
	for _, r := range rows {
		jr := jsonRow{
			Cell: r.Cell, Metric: r.Metric.Key, Label: r.Metric.Label, Unit: r.Metric.Unit, Higher: r.Metric.Higher,
			Old: statsJSON(r.Old), New: statsJSON(r.New), P: r.P,
			Testable: r.Testable, Significant: r.Significant, Regression: r.Regression,
			NotComparable: r.NotComparable,
		}
		if r.NotComparable {
			jr.OldNetwork, jr.NewNetwork = r.OldNetwork, r.NewNetwork
		} else if !math.IsInf(r.Delta, 0) && !math.IsNaN(r.Delta) {
			d := r.Delta
			jr.DeltaPct = &d
		}
		if r.Regression {
			doc.Regressions++
		}
		doc.Rows = append(doc.Rows, jr)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return fmt.Errorf("encode comparison: %w", err)
	}
	return nil
}

// statsJSON is s with its samples a list, never null.
func statsJSON(s report.Stats) report.Stats {
	if s.Samples == nil {
		s.Samples = []float64{}
	}
	return s
}

// WriteFailed names the runs of sets that failed and were left out of every figure.
func WriteFailed(w io.Writer, sets ...*report.Set) error {
	for _, s := range sets {
		for _, c := range s.Cells {
			for _, r := range c.FailedRuns() {
				if _, err := fmt.Fprintf(w, "%s: %s repetition %d failed (%s), left out\n", r.Path, c.Name, r.Repetition, r.FailReason()); err != nil {
					return err
				}
			}
		}
	}
	return nil
}
