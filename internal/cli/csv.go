package cli

import (
	"fmt"
	"os"

	"github.com/nats-io/nuid"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/result"
)

// saveCSV writes --csv: nats bench's per-client CSV of the run, for scripts that read it.
func (a *app) saveCSV(res *result.Result) error {
	if a.out.CSV == "" {
		return nil
	}
	f, err := os.Create(a.out.CSV)
	if err != nil {
		return fmt.Errorf("--csv: %w", err)
	}
	if err := report.BenchCSV(f, res, nuid.Next()); err != nil {
		f.Close()
		return fmt.Errorf("--csv %s: %w", a.out.CSV, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--csv %s: %w", a.out.CSV, err)
	}
	if !a.out.JSON {
		fmt.Fprintf(a.streams.Out, "Saved metric data in csv file %s\n", a.out.CSV)
	}
	return nil
}
