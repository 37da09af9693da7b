package cli

import (
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/compare"
	"github.com/natsperf/natsperf/internal/report"
)

func (a *app) compareCmd() *cobra.Command {
	var failOn float64
	cmd := &cobra.Command{
		Use:   "compare OLD NEW",
		Short: "Compare two runs per metric: old, new, delta, and whether it is beyond noise",
		Long: `Compare OLD and NEW (Result files or run directories; cells are matched by name). For every
metric: old and new (mean ±spread over the repetitions), and the delta when a Mann-Whitney U test
on the repetitions finds it significant (p < 0.05), "~" when it does not, as benchstat does.
With fewer than 4 repetitions a side no difference can be significant: the delta is shown and
said to be untested. --fail-on-regression PCT exits 4 when a rate or latency percentile is worse
by more than PCT percent and the difference is significant or untestable. --json prints the
rows as one JSON document (natsperf.compare/v1, see docs/reports.md). A missing or unreadable
file exits 1, one that is not a valid Result 2.`,
		Example: `  natsperf compare results/before results/after
  natsperf compare old.json new.json --fail-on-regression 10
  natsperf compare old.json new.json --json`,
		Args: exactArgs(2, "OLD and NEW"),
		RunE: func(cmd *cobra.Command, args []string) error {
			old, err := report.Load(args[:1])
			if err != nil {
				return loadError(err)
			}
			new, err := report.Load(args[1:])
			if err != nil {
				return loadError(err)
			}
			pct := -1.0
			if cmd.Flags().Changed("fail-on-regression") {
				if failOn < 0 {
					return usagef("--fail-on-regression must not be negative")
				}
				pct = failOn
			}
			rows := compare.Compare(old, new, pct)
			if len(rows) == 0 {
				return usagef("%s and %s have no cells in common", args[0], args[1])
			}
			write := compare.Write
			if a.out.JSON {
				write = func(w io.Writer, rows []compare.Row) error { return compare.WriteJSON(w, args[0], args[1], rows, pct) }
			}
			if err := write(a.streams.Out, rows); err != nil {
				return err
			}
			if !a.out.JSON { // the JSON's n says how many runs each figure comes from
				if err := compare.WriteFailed(a.streams.Out, old, new); err != nil {
					return err
				}
			}
			n := 0
			for _, r := range rows {
				if r.Regression {
					n++
				}
			}
			if n > 0 {
				fmt.Fprintf(a.streams.Err, "natsperf: %d metric(s) regressed by more than %g%%\n", n, pct)
				return exitCode(exitRegression)
			}
			return nil
		},
	}
	fileCommand(cmd, map[string]string{"json": "print the rows as one JSON document (natsperf.compare/v1) instead of text"})
	cmd.Flags().Float64Var(&failOn, "fail-on-regression", 0, "exit 4 when a rate or latency is worse by more than this percentage")
	return cmd
}
