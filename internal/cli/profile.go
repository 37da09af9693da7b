package cli

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/cmdline"
)

// registerProfile acts on the hidden --cpuprofile flag: for natsperf's maintainers, to see where a
// workload's time goes when it trails its bare nats.go loop (docs/performance.md).
func registerProfile(root *cobra.Command, out *cmdline.Output) {
	var f *os.File
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		path := out.CPUProfile
		if path == "" {
			return nil
		}
		var err error
		if f, err = os.Create(path); err != nil {
			return usagef("--cpuprofile: %v", err)
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			f.Close()
			return fmt.Errorf("--cpuprofile: %w", err)
		}
		return nil
	}
	root.PersistentPostRun = func(*cobra.Command, []string) {
		if f != nil {
			pprof.StopCPUProfile()
			f.Close()
		}
	}
}
