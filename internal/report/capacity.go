package report

import (
	"fmt"
	"io"
	"math"
	"strings"
	"text/tabwriter"

	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/spec"
)

// Capacity writes a capacity search: every probe, then the capacity line.
func Capacity(w io.Writer, o *capacity.Outcome) error {
	fmt.Fprintf(w, "Capacity search: natsperf %s\n", o.Command)
	fmt.Fprintf(w, "Thresholds: %s · probes of %v after a %v warm-up · %s to %s msgs/s\n\n",
		strings.Join(spec.Texts(o.SLO), ", "), o.ProbeDuration, o.Warmup, perSec(o.Min), perSec(o.Max))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "#\toffered\tachieved\tP50\tP99\tP99.9\tloss\tlate P99\tCPU\tverdict\tevidence\t")
	for _, p := range o.Probes {
		ev := p.Evidence
		if ev == "" {
			ev = "-" // a search saved before probes kept their evidence
		}
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", p.N, perSec(p.Offered), perSec(p.Achieved),
			Duration(p.P50), Duration(p.P99), Duration(p.P999), units.Comma(p.Loss), Duration(p.LatenessP99), cpuShare(p.CPUShare), verdict(p), ev)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range o.Probes {
		if p.Note != "" {
			fmt.Fprintf(w, "probe %d: %s\n", p.N, p.Note)
		}
	}
	_, err := fmt.Fprintf(w, "\n%s\nSearch took %.0fs (%d probes).\n", CapacityLine(o), o.Seconds, len(o.Probes))
	return err
}

// CapacityLine is the search's one-line answer.
func CapacityLine(o *capacity.Outcome) string {
	at := strings.Join(spec.Texts(o.SLO), " and ")
	switch o.Verdict {
	case capacity.Found:
		agree := fmt.Sprintf("%d repeats agree", o.Repeats)
		if o.PassRepeats != o.Repeats || o.FailRepeats != o.Repeats {
			agree = fmt.Sprintf("%s passed %d of %d repeats, %s failed %d of %d", perSec(o.Low), o.PassRepeats, o.Repeats, perSec(o.High), o.FailRepeats, o.Repeats)
		}
		return fmt.Sprintf("Capacity: %s msgs/s at %s (between %s and %s; %s)", perSec(o.Capacity), at, perSec(o.Low), perSec(o.High), agree)
	case capacity.AboveMax:
		return fmt.Sprintf("Capacity: at least %s msgs/s at %s: every probe passed up to --max", perSec(o.Capacity), at)
	case capacity.BelowMin:
		return fmt.Sprintf("Capacity: none found: %s fails already at --min %s msgs/s", at, perSec(o.High))
	case capacity.GeneratorBound:
		why := o.Bottleneck
		if why == "" {
			why = capacity.Probe{Offered: o.GeneratorRate}.Bottleneck()
		}
		s := "Capacity: not found: " + why
		if o.Low > 0 {
			s += fmt.Sprintf(" (every threshold held up to %s msgs/s)", perSec(o.Low))
		}
		return s
	}
	return "Capacity: search interrupted"
}

// ProbeLine is one probe as a progress line.
func ProbeLine(p capacity.Probe) string {
	return fmt.Sprintf("probe %d: %s msgs/s offered, %s achieved, P99 %s, loss %s: %s",
		p.N, perSec(p.Offered), perSec(p.Achieved), Duration(p.P99), units.Comma(p.Loss), verdict(p))
}

func verdict(p capacity.Probe) string {
	switch {
	case p.GeneratorBound:
		return "generator-bound"
	case p.Pass:
		return "pass"
	}
	return "FAIL " + strings.Join(p.Failed, ", ")
}

func perSec(r float64) string { return units.Comma(int64(math.Round(r))) }

// cpuShare is a probe's CPU share as a percentage, n/a when the run did not record it.
func cpuShare(share float64) string {
	if share < 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*share)
}
