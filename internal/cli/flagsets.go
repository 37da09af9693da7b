package cli

import (
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagSets are the flag sets a group of flags was put on (one per command), to tell which
// flags were given.
type flagSets []*pflag.FlagSet

func (fs flagSets) changed(name string) bool {
	for _, f := range fs {
		if f.Changed(name) {
			return true
		}
	}
	return false
}

// eachCommand calls f on c and on every command under it.
func eachCommand(c *cobra.Command, f func(*cobra.Command)) {
	f(c)
	for _, sub := range c.Commands() {
		eachCommand(sub, f)
	}
}
