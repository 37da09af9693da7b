package cli

import (
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/spf13/cobra"
)

// registerProfile adds the hidden --cpuprofile flag: for natsperf's maintainers, to see where a
// workload's time goes when it trails its bare nats.go loop (docs/performance.md).
func registerProfile(root *cobra.Command) {
	var path string
	var f *os.File
	root.PersistentFlags().StringVar(&path, "cpuprofile", "", "write a CPU profile of the run to this file")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
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
