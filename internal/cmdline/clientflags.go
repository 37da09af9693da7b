package cmdline

import (
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/spec"
)

// clientFlags choose the NATS client library a command's clients run on (--client), on the
// commands natsperf-rust runs.
type clientFlags struct {
	name string // go or rust
	Bin  string // --client-bin
	fs   *pflag.FlagSet
}

func (c *clientFlags) register(f *pflag.FlagSet) {
	f.StringVar(&c.name, "client", "go", "the NATS client library the clients run on: go (nats.go, in this process) or rust (async-nats: a natsperf-rust agent started here, or with --agents the agents labelled client=rust)")
	f.StringVar(&c.Bin, "client-bin", "", "natsperf-rust's path for --client rust (default: next to natsperf, on PATH, or clients/rust/target/release)")
	c.fs = f
}

// apply records --client in the Spec a command line built (its workloads' client).
func (c *clientFlags) apply(s *spec.Spec) error {
	switch c.name {
	case "go", "":
		if fl := c.fs; fl != nil && fl.Changed("client-bin") {
			return usagef("--client-bin is for --client rust")
		}
	case "rust":
		for i := range s.Workloads {
			s.Workloads[i].Client = "rust"
		}
	default:
		return usagef("--client must be go or rust, got %q", c.name)
	}
	return nil
}
