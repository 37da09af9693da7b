package cli

import (
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/cmdline"
	"github.com/natsperf/natsperf/internal/suggest"
)

// guardGroups makes every command that only groups others (the root, js, js pub, js get, kv,
// service) refuse an unknown subcommand as a usage error with suggestions, instead of printing
// its help and exiting 0. Without arguments the root shows its help; a group below it is a
// usage error too ('natsperf js pub' ran nothing, so it has not succeeded).
func guardGroups(c *cobra.Command) {
	for _, sub := range c.Commands() {
		guardGroups(sub)
	}
	if c.Runnable() || !c.HasSubCommands() {
		return
	}
	c.Args = func(cmd *cobra.Command, args []string) error {
		if len(args) == 0 {
			return nil
		}
		return unknownCommand(cmd, args[0])
	}
	c.RunE = func(cmd *cobra.Command, _ []string) error {
		if !cmd.HasParent() {
			return cmd.Help()
		}
		return usagef("%s needs a subcommand: %s (see %s --help)",
			strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" "),
			strings.Join(subcommands(cmd), ", "), cmd.CommandPath())
	}
}

// subcommands are the names a user can type after cmd.
func subcommands(cmd *cobra.Command) []string {
	var names []string
	for _, s := range cmd.Commands() {
		if s.IsAvailableCommand() {
			names = append(names, s.Name())
		}
	}
	return names
}

// guardHelp makes 'natsperf help TYPO' the same usage error as 'natsperf TYPO' (cobra's help
// command shows the nearest command's help and exits 0).
func guardHelp(root *cobra.Command) {
	root.InitDefaultHelpCmd()
	for _, h := range root.Commands() {
		if h.Name() != "help" {
			continue
		}
		show := h.Run
		h.Run = nil
		h.RunE = func(cmd *cobra.Command, args []string) error {
			c, rest, err := root.Find(args)
			if err == nil && len(rest) > 0 && c.HasSubCommands() {
				return unknownCommand(c, rest[0])
			}
			show(cmd, args)
			return nil
		}
	}
}

func unknownCommand(cmd *cobra.Command, name string) error {
	cmd.SuggestionsMinimumDistance = 2
	names := subcommands(cmd)
	suggestions := cmd.SuggestionsFor(name)
	// A longer spelling of a command ('publish' for pub, 'subscribe' for sub) is too far from
	// it for the edit distance; a command its first letters name is what the user meant.
	for _, n := range names {
		if len(n) >= 3 && len(name) > len(n) && strings.HasPrefix(strings.ToLower(name), n) && !slices.Contains(suggestions, n) {
			suggestions = append([]string{n}, suggestions...)
		}
	}
	return usagef("unknown command %q for %q%s (commands: %s)", name, cmd.CommandPath(),
		suggest.DidYouMean(suggestions, ""), strings.Join(names, ", "))
}

// flagError turns pflag's errors into one-line usage errors (cmdline.FlagError).
func flagError(cmd *cobra.Command, err error) error {
	return cmdline.FlagError(cmd.Flags(), cmd.CommandPath(), err)
}
