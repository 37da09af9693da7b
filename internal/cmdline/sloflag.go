package cmdline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/natsperf/natsperf/spec"
)

// sloFlag is --slo: each use is read once into a typed threshold (spec.ParseThreshold), which
// the Spec then carries; a bad one is a usage error when the flag is parsed.
type sloFlag struct{ to *[]spec.Threshold }

func (f sloFlag) Set(s string) error {
	t, err := spec.ParseThreshold(s)
	if err != nil { // pflag names the flag and the value already
		return errors.New(strings.TrimPrefix(err.Error(), fmt.Sprintf("--slo %q: ", s)))
	}
	*f.to = append(*f.to, t)
	return nil
}

func (f sloFlag) String() string {
	if f.to == nil || len(*f.to) == 0 {
		return ""
	}
	return "[" + strings.Join(spec.Texts(*f.to), ",") + "]"
}

// Type is pflag's name for a repeatable string, so --help reads as it did.
func (f sloFlag) Type() string { return "stringArray" }
