package cmdline

import (
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/spec"
)

// fillValue is --payload-fill: what follows the stamp in every message body.
type fillValue stamp.Fill

func (v *fillValue) String() string { return string(*v) }
func (v *fillValue) Type() string   { return "fill" }
func (v *fillValue) Set(s string) error {
	f, err := stamp.ParseFill(s)
	if err != nil {
		return err
	}
	*v = fillValue(f)
	return nil
}

// registerPayloadFill adds --payload-fill to a command whose messages can land in a stream.
func registerPayloadFill(f *pflag.FlagSet) {
	v := fillValue(stamp.FillText)
	f.Var(&v, "payload-fill", "what follows the stamp in each message: text (the alphabet repeated) or zeros; both compress well, to pair with --compression s2")
}

// withPayloadFill puts a --payload-fill the command line gave into s's workload.
func withPayloadFill(s *spec.Spec, fs *pflag.FlagSet) {
	if fl := fs.Lookup("payload-fill"); fl != nil && fl.Changed {
		s.Workloads[0].PayloadFill = fl.Value.String()
	}
}
