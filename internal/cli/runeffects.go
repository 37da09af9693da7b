package cli

import (
	"fmt"
	"io"

	"github.com/natsperf/natsperf/internal/report"
)

// printEffects prints, after a scenario's runs, what each matrix choice changed (the report's
// effects, one line each, then the verdicts): an upgrade check's version effect at once.
// Nothing without a matrix or when the results do not load.
func printEffects(w io.Writer, dir string) {
	set, err := report.Load([]string{dir})
	if err != nil {
		return
	}
	lines, verdicts, _ := report.EffectLines(report.Effects(set))
	if len(lines) == 0 {
		return
	}
	fmt.Fprintln(w, "\nWhat each choice changes (ratio of the means, 95% interval from the repetitions):")
	for _, l := range lines {
		fmt.Fprintln(w, "  "+l)
	}
	for _, v := range verdicts {
		fmt.Fprintln(w, "  "+v)
	}
}
