package cli

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
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
		didYouMean(suggestions, ""), strings.Join(names, ", "))
}

func didYouMean(suggestions []string, prefix string) string {
	if len(suggestions) == 0 {
		return ""
	}
	for i, s := range suggestions {
		suggestions[i] = prefix + s
	}
	return "; did you mean " + strings.Join(suggestions, " or ") + "?"
}

// flagError turns pflag's errors into one-line usage errors; an unknown flag gets the
// natsperf name of a nats bench flag, or the closest flags of the command.
func flagError(cmd *cobra.Command, err error) error {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return usageError{err}
	}
	if why, ok := natsBenchRefused[name]; ok {
		return usagef("--%s (nats bench) is not supported: %s", name, why)
	}
	var close []string
	cmd.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && (levenshtein(name, f.Name) <= 2 || strings.HasPrefix(f.Name, name)) {
			close = append(close, f.Name)
		}
	})
	// The likeliest first: a flag the typed name begins (--msg: --msgs), then the fewest edits.
	rank := func(f string) int {
		if strings.HasPrefix(f, name) {
			return len(f) - len(name) - 100
		}
		return levenshtein(name, f)
	}
	slices.SortStableFunc(close, func(a, b string) int { return rank(a) - rank(b) })
	return usagef("unknown flag: --%s%s (see %s --help)", name, didYouMean(close, "--"), cmd.CommandPath())
}

// natsBenchAliases are nats bench's flag names (old and new syntax) that natsperf spells
// differently; they are accepted everywhere under the old name.
var natsBenchAliases = map[string]string{
	"multisubjectmax":       "multisubject-max",
	"multisubjectrandomize": "multisubject-randomize",
	"no-doubleack":          "no-double-ack",
	"dedupwindow":           "dedup-window",
	"doubleack":             "double-ack",
	"maxackpending":         "max-ack-pending",
	"jstimeout":             "ack-timeout",
	"js-timeout":            "ack-timeout",
	"pubsleep":              "sleep",
	"subsleep":              "sub-sleep",
	"pubbatch":              "batch",
	"consumerbatch":         "batch",
	"pullbatch":             "batch",
	"noprogress":            "no-progress",
}

// natsBenchRefused are nats bench flags natsperf has no use for, with what to do instead.
var natsBenchRefused = map[string]string{
	"newjsapi": "natsperf always uses the jetstream package (the new API)",
	"retries":  "natsperf does not retry: a publish that times out is counted in the Result (see --ack-timeout)",
	"ack":      "use --acks explicit|none|all (js consume, fetch, push)",
	"noqueue":  "service serve responders always join one queue group; run several 'natsperf sub' for fan-out",
	"jsfile":   "use --storage file",
	"nopurge":  "natsperf purges only with --purge",
	"nodelete": "natsperf deletes only what it created, with 'natsperf clean'",
}

// natsBenchNames maps nats bench's spelling of a flag to natsperf's.
func natsBenchNames(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if to, ok := natsBenchAliases[name]; ok {
		return pflag.NormalizedName(to)
	}
	return pflag.NormalizedName(name)
}

// registerProgress accepts nats bench's --progress (default true): --progress=false is
// --no-progress.
func registerProgress(root *cobra.Command, out *outputFlags) {
	f := root.PersistentFlags()
	f.BoolFunc("progress", "nats bench's spelling: --progress=false is --no-progress", func(v string) error {
		switch strings.ToLower(v) {
		case "true", "1", "t":
		case "false", "0", "f":
			out.NoProgress = true
		default:
			return fmt.Errorf("--progress takes true or false, got %q", v)
		}
		return nil
	})
	_ = f.MarkHidden("progress")
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
