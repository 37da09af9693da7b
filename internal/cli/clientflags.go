package cli

import (
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// clientFlags choose the NATS client library a command's clients run on (--client).
type clientFlags struct {
	name string // go or rust
	bin  string // --client-bin
	fs   flagSets
}

func (c *clientFlags) add(f *pflag.FlagSet) {
	f.StringVar(&c.name, "client", "go", "the NATS client library the clients run on: go (nats.go, in this process) or rust (async-nats: a natsperf-rust agent started here, or with --agents the agents labelled client=rust)")
	f.StringVar(&c.bin, "client-bin", "", "natsperf-rust's path for --client rust (default: next to natsperf, on PATH, or clients/rust/target/release)")
	c.fs = append(c.fs, f)
}

func (c *clientFlags) changed(name string) bool { return c.fs.changed(name) }

// registerClientFlags puts --client on the commands natsperf-rust runs (runner.RustKinds, as
// command paths without the root).
func (a *app) registerClientFlags(root *cobra.Command) {
	kinds := runner.RustKinds()
	eachCommand(root, func(c *cobra.Command) {
		if path := strings.TrimPrefix(c.CommandPath(), root.Name()+" "); slices.Contains(kinds, path) {
			a.client.add(c.Flags())
		}
	})
}

// withClient records --client in the Spec a command line built (its workloads' client).
func (a *app) withClient(s *spec.Spec) error {
	switch a.client.name {
	case "go", "":
		if a.client.changed("client-bin") {
			return usagef("--client-bin is for --client rust")
		}
	case "rust":
		for i := range s.Workloads {
			s.Workloads[i].Client = "rust"
		}
	default:
		return usagef("--client must be go or rust, got %q", a.client.name)
	}
	return nil
}

// clientBinCheck refuses a --client-bin that is not a file, for a run that starts it here.
func (a *app) clientBinCheck(s *spec.Spec) error {
	if a.client.bin == "" || a.dist.agents != "" || !runner.UsesRust(s) {
		return nil
	}
	if fi, err := os.Stat(a.client.bin); err != nil || fi.IsDir() {
		return usagef("--client-bin %s: no such file", a.client.bin)
	}
	return nil
}
