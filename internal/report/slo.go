package report

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/natsperf/natsperf/internal/slo"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/result"
)

// SLO writes one verdict line per threshold of res (--slo), or nothing without any.
func SLO(w io.Writer, res *result.Result) error {
	if len(res.SLO) == 0 {
		return nil
	}
	if _, err := fmt.Fprintln(w); err != nil {
		return err
	}
	for _, v := range res.SLO {
		if _, err := fmt.Fprintln(w, VerdictLine(v)); err != nil {
			return err
		}
	}
	return nil
}

// VerdictLine is a verdict as its text line: "SLO p99<5ms: 3.21ms (limit 5.00ms): pass".
func VerdictLine(v result.Verdict) string {
	verdict := "FAIL"
	if v.Pass {
		verdict = "pass"
	}
	if v.Missing != "" {
		return fmt.Sprintf("SLO %s: %s: %s", v.SLO, v.Missing, verdict)
	}
	m := slo.Of(v).Metric
	return fmt.Sprintf("SLO %s: %s (limit %s): %s", v.SLO, SLOValue(m, v.Value), SLOValue(m, v.Limit), verdict)
}

// SLOValue writes a value of an SLO's metric (spec.Threshold.Metric): a duration for a
// percentile, a count for loss, a ratio for rate.
func SLOValue(metric string, x float64) string {
	switch metric {
	case "loss":
		return units.Comma(int64(x))
	case "rate":
		return strconv.FormatFloat(x, 'f', 3, 64)
	}
	return Duration(int64(x))
}

// LoadSteps writes the steps of a shaped run (--steps, or the intervals of a --ramp): offered
// rate, then each group's messages, rate and latency percentiles in the step.
func LoadSteps(w io.Writer, res *result.Result) error {
	if len(res.LoadSteps) == 0 {
		return nil
	}
	fmt.Fprintf(w, "\nLoad steps:\n")
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "from\tfor\toffered/s\t")
	for _, g := range res.LoadSteps[0].Groups {
		fmt.Fprintf(tw, "%s msgs\t%s /s\t%s P50\t%s P99\t%s P99.9\t", g.Name, g.Name, g.Name, g.Name, g.Name)
	}
	fmt.Fprintln(tw)
	for _, st := range res.LoadSteps {
		fmt.Fprintf(tw, "%v\t%v\t%s\t", st.Offset, st.Duration, units.Comma(int64(st.Offered+0.5)))
		for _, g := range st.Groups {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t", units.Comma(g.Msgs), units.Comma(int64(g.Rate+0.5)), stepLatency(g.P50), stepLatency(g.P99), stepLatency(g.P999))
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

func stepLatency(ns int64) string {
	if ns == 0 {
		return "-"
	}
	return Duration(ns)
}
