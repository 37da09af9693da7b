package cli

import (
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/version"
)

func versionCmd(s *Streams) *cobra.Command {
	return &cobra.Command{
		Use:     "version",
		Short:   "Print natsperf's version",
		Example: "  natsperf version",
		Args:    exactArgs(0, "no arguments"),
		RunE: func(*cobra.Command, []string) error {
			_, err := fmt.Fprintf(s.Out, "natsperf %s (%s, %s/%s)\n", version.String(), runtime.Version(), runtime.GOOS, runtime.GOARCH)
			return err
		},
	}
}
