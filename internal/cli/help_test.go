package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

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

// example is one natsperf command of a --help Examples section.
type example struct {
	line string   // as shown
	args []string // after "natsperf"
	bg   bool     // ends with '&': runs while the next lines do
}

// helpExamples returns every command's examples, one slice per Examples section, in the
// order the command tree lists them.
func helpExamples(root *cobra.Command) [][]example {
	var blocks [][]example
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		var block []example
		for _, line := range strings.Split(c.Example, "\n") {
			if i := strings.Index(line, "#"); i >= 0 {
				line = line[:i] // a comment
			}
			for _, seg := range strings.FieldsFunc(line, func(r rune) bool { return r == '|' }) {
				for _, part := range strings.Split(seg, "&&") {
					part = strings.TrimSpace(part)
					bg := strings.HasSuffix(part, "&")
					f := strings.Fields(strings.TrimSuffix(part, "&"))
					for i, a := range f { // a shell's single quotes ('p99<5ms'), without spaces inside
						if len(a) > 1 && a[0] == '\'' && a[len(a)-1] == '\'' {
							f[i] = a[1 : len(a)-1]
						}
					}
					if len(f) > 0 && f[0] == "natsperf" {
						block = append(block, example{line: strings.TrimSpace(part), args: f[1:], bg: bg})
					}
				}
			}
		}
		if len(block) > 0 {
			blocks = append(blocks, block)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
	return blocks
}

// TestHelpExamplesParse: every example names a command that exists, with flags it has and
// values they accept, and the arguments it takes.
func TestHelpExamplesParse(t *testing.T) {
	n := 0
	for _, block := range helpExamples(newRoot(&Streams{Out: &syncBuffer{}, Err: &syncBuffer{}})) {
		for _, ex := range block {
			n++
			root := newRoot(&Streams{Out: &syncBuffer{}, Err: &syncBuffer{}})
			c, rest, err := root.Find(ex.args)
			if err == nil {
				err = c.ParseFlags(rest)
			}
			if err == nil {
				err = c.ValidateArgs(c.Flags().Args())
			}
			if err == nil && (!c.Runnable() || c.HasSubCommands()) {
				err = fmt.Errorf("%q is not a command that runs", c.CommandPath())
			}
			if err != nil {
				t.Errorf("example %q: %v", ex.line, err)
			}
		}
	}
	if n < 40 {
		t.Fatalf("found only %d examples", n)
	}
}

// TestHelpExamplesRun runs every --help example as written (NATSPERF_EXAMPLES=1; CI does, see
// .ci/run), in a scratch directory, on the embedded servers they start or the 'natsperf server'
// on :4222 the examples with -s assume. Receivers and responders (and lines ending in '&') run
// in the background until their section ends; they must have started and then exit 0 or 130.
// Not run: examples that reach hosts other than this one (tests stay on loopback), and
// run/report/compare over Result directories of earlier runs (the README tour runs those).
func TestHelpExamplesRun(t *testing.T) {
	if os.Getenv("NATSPERF_EXAMPLES") == "" {
		t.Skip("set NATSPERF_EXAMPLES=1 to run every --help example (about a minute)")
	}
	repo, _ := filepath.Abs("../..")
	t.Chdir(t.TempDir())
	if err := os.Symlink(filepath.Join(repo, "examples"), "examples"); err != nil {
		t.Fatal(err)
	}
	blocks := helpExamples(newRoot(&Streams{Out: &syncBuffer{}, Err: &syncBuffer{}}))
	// The server command's own examples first, while :4222 is free; then the shared server.
	for _, block := range blocks {
		for _, ex := range block {
			if ex.args[0] == "server" {
				stop := startExample(t, ex, "Running")
				stop()
			}
		}
	}
	stopServer := startExample(t, example{line: "natsperf server", args: []string{"server"}}, "Running")
	defer stopServer()
	ran := 0
	for _, block := range blocks {
		var stops []func()
		for _, ex := range block {
			if why := notRun(ex); why != "" {
				t.Logf("not run: %s (%s)", ex.line, why)
				continue
			}
			ran++
			if ex.bg || ex.args[0] == "sub" || (len(ex.args) > 1 && ex.args[1] == "serve") {
				ready := "Starting"
				if ex.args[0] == "agent" {
					ready = "waiting for runs"
				}
				stops = append(stops, startExample(t, ex, ready))
				continue
			}
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			start := time.Now()
			r := run(ctx, t, nil, ex.args...)
			cancel()
			if r.code != 0 {
				t.Errorf("%s: exit %d\n%s\n%s", ex.line, r.code, tail(r.out), tail(r.err))
			}
			t.Logf("ran %s (%s)", ex.line, time.Since(start).Round(time.Millisecond))
		}
		for i := len(stops) - 1; i >= 0; i-- {
			stops[i]()
		}
	}
	t.Logf("%d examples run", ran)
}

func notRun(ex example) string {
	for i, a := range ex.args {
		if (a == "-s" || a == "--server-b") && i+1 < len(ex.args) && !strings.Contains(ex.args[i+1], "127.0.0.1") {
			return "reaches another host"
		}
	}
	switch {
	case ex.args[0] == "server":
		return "the shared server on :4222 is running"
	case ex.args[0] == "report" || ex.args[0] == "compare":
		return "reads Result files of earlier runs"
	case ex.args[0] == "run" && !slices.Contains(ex.args, "--dry-run"):
		return "a whole scenario; the README tour runs a pinned one"
	}
	return ""
}

// startExample runs ex in the background until it printed ready (on stdout or stderr); the
// returned stop cancels it and checks that it exited 0 or 130.
func startExample(t *testing.T, ex example, ready string) func() {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, ex.args, Streams{Out: &out, Err: &errb, Env: envWithHome(t.TempDir())})
	}()
	deadline := time.Now().Add(time.Minute)
	for !strings.Contains(out.String()+errb.String(), ready) {
		select {
		case code := <-done:
			cancel()
			if ex.args[0] == "server" && strings.Contains(errb.String(), "address already in use") {
				t.Logf("not run: %s (its port is taken on this machine)", ex.line)
				return func() {}
			}
			t.Fatalf("%s: exit %d before %q\n%s\n%s", ex.line, code, ready, tail(out.String()), tail(errb.String()))
		default:
		}
		if time.Now().After(deadline) {
			cancel()
			t.Fatalf("%s: no %q within a minute\n%s", ex.line, ready, tail(errb.String()))
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Logf("started %s", ex.line)
	return func() {
		cancel()
		if code := <-done; code != 0 && code != exitInterrupted {
			t.Errorf("%s: exit %d\n%s\n%s", ex.line, code, tail(out.String()), tail(errb.String()))
		}
	}
}

func tail(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(0, len(lines)-5):], "\n")
}
