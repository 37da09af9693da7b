package cli

import (
	"slices"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/cmdline"
)

// benchOutputFlags are the root's persistent flags that only mean something to a command that runs a
// benchmark: where its Result goes and what is printed beside it.
var benchOutputFlags = []string{"json", "output", "no-progress", "cpu", "csv"}

// fileCommand sets up a command that only reads files (report, compare): its --help leaves out
// the connection flags and those of benchOutputFlags it has no use for, and shows the ones it keeps
// (own: flag name -> what the flag does here) with their meaning for this command. A dropped
// flag given anyway is bad input rather than silently ignored. The flags are the root's, shared
// by every command, so they are changed only while cmd's help is printed.
func fileCommand(cmd *cobra.Command, own map[string]string) {
	applies := func(f *pflag.Flag) bool {
		if cmdline.IsConnection(f) {
			return false
		}
		_, kept := own[f.Name]
		return kept || !slices.Contains(benchOutputFlags, f.Name)
	}
	cmd.SetHelpFunc(func(c *cobra.Command, args []string) {
		type saved struct {
			f      *pflag.Flag
			hidden bool
			usage  string
		}
		var restore []saved
		c.Root().PersistentFlags().VisitAll(func(f *pflag.Flag) {
			restore = append(restore, saved{f, f.Hidden, f.Usage})
			if !applies(f) {
				f.Hidden = true
			} else if u, ok := own[f.Name]; ok {
				f.Usage = u
			}
		})
		defer func() {
			for _, s := range restore {
				s.f.Hidden, s.f.Usage = s.hidden, s.usage
			}
		}()
		c.Root().HelpFunc()(c, args)
	})
	cmd.PreRunE = func(c *cobra.Command, _ []string) error {
		var err error
		c.Flags().Visit(func(f *pflag.Flag) {
			if err == nil && slices.Contains(benchOutputFlags, f.Name) && !applies(f) {
				err = usagef("%s does not take --%s (see --help)", c.CommandPath(), f.Name)
			}
		})
		return err
	}
}

// minArgs checks that at least n positional arguments were given, with a usage error.
func minArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) < n {
			return usagef("%s takes %s; see --help", cmd.CommandPath(), what)
		}
		return nil
	}
}
