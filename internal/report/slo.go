package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/units"
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
	return fmt.Sprintf("SLO %s: %s (limit %s): %s", v.SLO, SLOValue(v.SLO, v.Value), SLOValue(v.SLO, v.Limit), verdict)
}

// SLOValue writes a value of an SLO's metric: a duration for a percentile, a count for loss, a
// ratio for rate.
func SLOValue(slo string, x float64) string {
	switch s := strings.ToLower(strings.TrimSpace(slo)); {
	case strings.HasPrefix(s, "loss"):
		return units.Comma(int64(x))
	case strings.HasPrefix(s, "rate"):
		return strconv.FormatFloat(x, 'f', 3, 64)
	}
	return Duration(int64(x))
}
