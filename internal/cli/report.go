package cli

import (
	"bytes"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/report"
)

func (a *app) reportCmd() *cobra.Command {
	var format, title string
	cmd := &cobra.Command{
		Use:   "report DIR|FILE...",
		Short: "Turn run directories and Result files into Markdown, HTML (with plots), text, CSV, JSON or .hgrm",
		Long: `Read run directories ('natsperf run -o DIR') and Result files, and write one report:
md (a header with the run's context, failed runs with their reasons, what each matrix choice
changes (ratios with 95% intervals from paired cells), a table with one row per cell, the
storage check, per-instance tables, and a stability view of long runs), html (the same on one
self-contained page with plots: cells compared, small multiples of throughput over time and of
the latency percentile spectrum, throughput and latency per window of long runs), text (md's
sections for a terminal), csv (one row per run), json (per-cell statistics) or hgrm (each
cell's merged latency distribution). Failed runs are left out of every figure. Printed on
stdout, or saved with -o.`,
		Example: `  natsperf report results/eval
  natsperf report results/eval --format html -o eval.html
  natsperf report a.json b.json --format csv`,
		Args: minArgs(1, "one or more run directories or Result files"),
		RunE: func(cmd *cobra.Command, args []string) error {
			write := map[string]func(*bytes.Buffer, *report.Set) error{
				"md":   func(b *bytes.Buffer, s *report.Set) error { return report.Markdown(b, s, title) },
				"html": func(b *bytes.Buffer, s *report.Set) error { return report.HTML(b, s, title) },
				"text": func(b *bytes.Buffer, s *report.Set) error { return report.TextReport(b, s, title) },
				"csv":  func(b *bytes.Buffer, s *report.Set) error { return report.CSV(b, s) },
				"json": func(b *bytes.Buffer, s *report.Set) error { return report.JSON(b, s) },
				"hgrm": func(b *bytes.Buffer, s *report.Set) error { return report.HGRM(b, s) },
			}[format]
			if write == nil {
				return usagef("--format must be md, html, text, csv, json or hgrm, got %q", format)
			}
			if err := checkOutputFile("-o", a.out.File); err != nil {
				return err
			}
			s, err := report.Load(args)
			if err != nil {
				return loadError(err)
			}
			var b bytes.Buffer
			if err := write(&b, s); err != nil {
				return err
			}
			if a.out.File == "" {
				_, err = a.streams.Out.Write(b.Bytes())
				return err
			}
			if err := os.WriteFile(a.out.File, b.Bytes(), 0o644); err != nil {
				fmt.Fprintf(a.streams.Err, "natsperf: cannot save the report to %s; here it is:\n", a.out.File)
				_, _ = a.streams.Err.Write(b.Bytes())
				return fmt.Errorf("write report: %w", err)
			}
			fmt.Fprintf(a.streams.Err, "Report saved to %s\n", a.out.File)
			return nil
		},
	}
	fileCommand(cmd, map[string]string{"output": "write the report to this file instead of stdout"})
	cmd.Flags().StringVar(&format, "format", "md", "md, html, text, csv, json or hgrm")
	cmd.Flags().StringVar(&title, "title", "", "report title (default: natsperf report)")
	return cmd
}
