package cli

import (
	"context"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHasExamples walks the command tree: every command a user can run has a
// short description and examples in its --help.
func TestEveryCommandHasExamples(t *testing.T) {
	s := &Streams{Out: &syncBuffer{}, Err: &syncBuffer{}}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			walk(sub)
		}
		if c.Hidden || c.Name() == "help" || strings.HasPrefix(c.CommandPath(), "natsperf completion") {
			return
		}
		if c.Short == "" || (c.Runnable() && c.Example == "") {
			t.Errorf("%q lacks a short description or examples", c.CommandPath())
		}
	}
	walk(newRoot(s))
}

func TestHelpAndCompletion(t *testing.T) {
	for _, args := range [][]string{
		{"pub", "--help"}, {"js", "pub", "async", "--help"}, {"completion", "bash"}, {"completion", "zsh"}, {"completion", "fish"}, {"version"},
	} {
		r := run(context.Background(), t, nil, args...)
		if r.code != 0 || r.out == "" {
			t.Errorf("natsperf %s: exit %d, %d bytes of output, stderr %q", strings.Join(args, " "), r.code, len(r.out), r.err)
		}
	}
	if r := run(context.Background(), t, nil, "pub", "--help"); !strings.Contains(r.out, "Examples:") || !strings.Contains(r.out, "--multisubject") {
		t.Errorf("pub --help lacks its examples or flags:\n%s", r.out)
	}
}
