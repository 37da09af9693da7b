package cli

import (
	"bufio"
	"context"
	"errors"
	"github.com/natsperf/natsperf/internal/cmdline"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/connect"
)

// The documents a newcomer reads first: they must name only commands and flags that exist.
var readmeDocs = []string{"README.md", "docs/flags.md", "docs/glossary.md"}

func repoFile(t *testing.T, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("..", "..", name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestReadmeLinesFit: no line of the README or its reference pages is wider than 100
// characters (a 787-character table cell could not be read).
func TestReadmeLinesFit(t *testing.T) {
	for _, name := range readmeDocs {
		for i, line := range strings.Split(repoFile(t, name), "\n") {
			if n := len([]rune(line)); n > 100 {
				t.Errorf("%s:%d is %d characters (at most 100): %.60s...", name, i+1, n, line)
			}
		}
	}
}

// everyFlag is every flag name any natsperf command takes, hidden ones and nats bench's
// spellings included.
func everyFlag() map[string]bool {
	names := map[string]bool{}
	root := newRoot(&Streams{Out: &syncBuffer{}, Err: &syncBuffer{}})
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		add := func(f *pflag.Flag) {
			names[f.Name] = true
			if f.Shorthand != "" {
				names[f.Shorthand] = true
			}
		}
		c.Flags().VisitAll(add)
		c.PersistentFlags().VisitAll(add)
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	names["help"] = true // cobra adds it when a command runs
	for _, alias := range cmdline.NatsBenchNames() {
		names[alias] = true
	}
	return names
}

var (
	codeSpan = regexp.MustCompile("`[^`]+`")
	flagName = regexp.MustCompile("(?:^|[\\s(/\\[,\x60])--([a-z][a-z0-9-]*[a-z0-9])")
)

// TestReadmeNamesRealFlags: every --flag the README and docs/flags.md name in code is a flag
// of some natsperf command (the README once described --connect-timeout twice and named
// flags that no longer existed). Tour lines are checked whole by TestReadmeTourParses.
func TestReadmeNamesRealFlags(t *testing.T) {
	known := everyFlag()
	// Flags of other tools the documents mention.
	foreign := map[string]bool{"timeout": true} // go test -timeout
	for _, name := range readmeDocs {
		inBlock := false
		for i, line := range strings.Split(repoFile(t, name), "\n") {
			if strings.HasPrefix(line, "```") {
				inBlock = !inBlock
				continue
			}
			var spans []string
			if inBlock {
				spans = []string{line}
			} else {
				spans = codeSpan.FindAllString(line, -1)
			}
			for _, span := range spans {
				for _, m := range flagName.FindAllStringSubmatch(span, -1) {
					if !known[m[1]] && !(foreign[m[1]] && strings.Contains(span, "go test")) {
						t.Errorf("%s:%d names --%s, which no natsperf command takes", name, i+1, m[1])
					}
				}
			}
		}
	}
}

// commandPaths expands a README map entry such as "js ordered|consume|get sync|get batch"
// into the command lines it names: js ordered, js consume, js get sync, js get batch.
func commandPaths(span string) [][]string {
	var words []string
	for _, w := range strings.Fields(strings.Trim(span, "`")) {
		if strings.HasPrefix(w, "-") || strings.ToUpper(w) == w || strings.Contains(w, "...") {
			break // SUBJECT, FILE, flags: the command ends here
		}
		words = append(words, w)
	}
	alts := strings.Split(strings.Join(words, " "), "|")
	first := strings.Fields(alts[0])
	if len(first) == 0 {
		return nil
	}
	prefix := first[:len(first)-1]
	paths := [][]string{first}
	for _, a := range alts[1:] {
		paths = append(paths, append(append([]string(nil), prefix...), strings.Fields(a)...))
	}
	return paths
}

// TestReadmeMapNamesRealCommands: each line of the README's map of commands names commands
// that exist and run (js pub atomic, and nats bench's name for it, batch, included).
func TestReadmeMapNamesRealCommands(t *testing.T) {
	readme := repoFile(t, "README.md")
	_, after, ok := strings.Cut(readme, "\n## Commands\n")
	if !ok {
		t.Fatal("README.md has no '## Commands' section")
	}
	section, _, _ := strings.Cut(after, "\n## ")
	n := 0
	for _, line := range strings.Split(section, "\n") {
		if !strings.HasPrefix(line, "- `") || strings.Contains(line, "`--") {
			continue
		}
		head, _, _ := strings.Cut(line, ": ")
		for _, span := range codeSpan.FindAllString(head, -1) {
			for _, path := range commandPaths(span) {
				n++
				root := newRoot(&Streams{Out: &syncBuffer{}, Err: &syncBuffer{}})
				c, rest, err := root.Find(path)
				if err != nil || len(rest) > 0 || c == root || !c.Runnable() {
					t.Errorf("README map: %q is not a natsperf command (%v)", strings.Join(path, " "), err)
				}
			}
		}
	}
	root := newRoot(&Streams{Out: &syncBuffer{}, Err: &syncBuffer{}})
	if c, _, err := root.Find([]string{"js", "pub", "batch"}); err != nil || c.Name() != "atomic" {
		t.Errorf("the README says batch is nats bench's name for js pub atomic; Find gives %v, %v", c, err)
	}
	if n < 25 {
		t.Fatalf("found only %d commands in the README's map", n)
	}
}

// tourLines are the README's runnable lines: the opening block's and the tour's, with lines
// ending in a backslash joined (as tools/readme-tour.sh reads them).
func tourLines(t *testing.T) []string {
	var lines []string
	blocks, part := 0, ""
	inBlock, tour := false, false
	sc := bufio.NewScanner(strings.NewReader(repoFile(t, "README.md")))
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "## A short tour"):
			tour = true
		case strings.HasPrefix(line, "```sh"):
			blocks++
			inBlock = true
		case strings.HasPrefix(line, "```"):
			if inBlock && tour {
				return lines
			}
			inBlock = false
		case inBlock && (blocks == 1 || tour):
			line = strings.TrimSpace(line)
			if strings.HasSuffix(line, `\`) {
				part += strings.TrimSuffix(line, `\`)
				continue
			}
			lines = append(lines, part+line)
			part = ""
		}
	}
	return lines
}

// TestReadmeTourParses: every natsperf line of the tour names a command that runs, with flags
// and arguments it takes (the tour script runs them in CI; this finds a renamed flag in
// milliseconds).
func TestReadmeTourParses(t *testing.T) {
	n := 0
	for _, line := range tourLines(t) {
		cmdline, _, _ := strings.Cut(line, " #")
		cmdline, _, _ = strings.Cut(cmdline, " | ")
		cmdline = strings.TrimSuffix(strings.TrimSpace(cmdline), "&")
		fields := strings.Fields(cmdline)
		if len(fields) < 2 {
			continue
		}
		var args []string
		switch {
		case fields[0] == "./natsperf":
			args = fields[1:]
		case strings.Join(fields[:2], " ") == "go run" && fields[2] == "./cmd/natsperf":
			args = fields[3:]
		default:
			continue
		}
		n++
		root := newRoot(&Streams{Out: &syncBuffer{}, Err: &syncBuffer{}})
		c, rest, err := root.Find(args)
		if err == nil {
			err = c.ParseFlags(rest)
		}
		if err == nil {
			err = c.ValidateArgs(c.Flags().Args())
		}
		if err == nil && !c.Runnable() {
			err = errors.New("not a command that runs")
		}
		if err != nil {
			t.Errorf("tour line %q: %v", line, err)
		}
	}
	if n < 20 {
		t.Fatalf("found only %d natsperf lines in the tour", n)
	}
}

// TestCIRunsTheReadmeTestLine: the README's test command is the one .ci/run runs, word for
// word (the README once said "go test ./..." while deploy/'s module went untested).
func TestCIRunsTheReadmeTestLine(t *testing.T) {
	var want string
	for _, line := range tourLines(t) {
		if strings.HasPrefix(line, "go test ") {
			want, _, _ = strings.Cut(line, "#")
			want = strings.TrimSpace(want)
			break
		}
	}
	if want == "" || !strings.Contains(want, "cd deploy") {
		t.Fatalf("README's opening block has no test line covering deploy/: %q", want)
	}
	for _, line := range strings.Split(repoFile(t, ".ci/run"), "\n") {
		if strings.HasPrefix(line, want) {
			return
		}
	}
	t.Errorf(".ci/run has no line running the README's %q", want)
}

// TestReadmeExitCodes: the exit codes the README lists are the ones natsperf returns.
func TestReadmeExitCodes(t *testing.T) {
	readme := repoFile(t, "README.md")
	for _, c := range []struct {
		code int
		what string
	}{
		{exitFailed, "1 the run failed"}, {exitUsage, "2 bad input"}, {exitLoss, "3 data loss"},
		{exitRegression, "4 `compare` found a regression"}, {exitUnrecovered, "5 not recovered"},
		{exitSLO, "6 a threshold failed"}, {exitInterrupted, "130 interrupted"},
	} {
		if !strings.Contains(strings.Join(strings.Fields(readme), " "), c.what) || !strings.HasPrefix(c.what, strconv.Itoa(c.code)+" ") {
			t.Errorf("README lacks %q (exit %d)", c.what, c.code)
		}
	}
	// A group command without its subcommand is bad input, as the reference says.
	if r := run(context.Background(), t, nil, "js", "pub"); r.code != exitUsage {
		t.Errorf("natsperf js pub: exit %d, want %d", r.code, exitUsage)
	}
}

// TestCapacityHelpListsItsFlags: capacity parses its own flags (the rest of the line is the
// probed command's), and --help lists them under Flags, not only in prose.
func TestCapacityHelpListsItsFlags(t *testing.T) {
	r := run(context.Background(), t, nil, "capacity", "--help")
	_, flags, ok := strings.Cut(r.out, "\nFlags:\n")
	flags, _, _ = strings.Cut(flags, "\nGlobal Flags:")
	if r.code != 0 || !ok {
		t.Fatalf("capacity --help: exit %d, no Flags section:\n%s", r.code, r.out)
	}
	for _, f := range []string{"--min", "--max", "--html", "--probe-duration", "--repeats", "--bisect-precision", "--drain"} {
		if !strings.Contains(flags, f+" ") {
			t.Errorf("capacity --help lists no %s under Flags:\n%s", f, flags)
		}
	}
}

// slug is GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
func slug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(heading)) {
		switch {
		case r == ' ':
			b.WriteRune('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestReadmeLinksResolve: every relative link of the README and its reference pages names a
// file that exists and, with #anchor, a heading of it (the README sends terms to the glossary).
func TestReadmeLinksResolve(t *testing.T) {
	link := regexp.MustCompile(`\]\(([^)#:]+)(?:#([^)]+))?\)`)
	for _, name := range readmeDocs {
		for _, m := range link.FindAllStringSubmatch(repoFile(t, name), -1) {
			target := filepath.ToSlash(filepath.Join(filepath.Dir(name), m[1]))
			if _, err := os.Stat(filepath.Join("..", "..", target)); err != nil {
				t.Errorf("%s links to %s, which does not exist", name, m[1])
				continue
			}
			if m[2] == "" || !strings.HasSuffix(target, ".md") {
				continue
			}
			found := false
			for _, line := range strings.Split(repoFile(t, target), "\n") {
				if h, ok := strings.CutPrefix(strings.TrimLeft(line, "#"), " "); ok && strings.HasPrefix(line, "#") && slug(h) == m[2] {
					found = true
				}
			}
			if !found {
				t.Errorf("%s links to %s#%s: no such heading", name, target, m[2])
			}
		}
	}
}

// background runs the CLI until ctx ends; out is read while it runs, code when it is done.
func background(ctx context.Context, t *testing.T, args ...string) (out *syncBuffer, code <-chan int) {
	out = &syncBuffer{}
	home := t.TempDir()
	c := make(chan int, 1)
	go func() {
		c <- Main(ctx, args, Streams{Out: out, Err: &syncBuffer{}, Env: connect.Env{Getenv: func(string) string { return "" }, Home: home}})
	}()
	return out, c
}

// waitFor polls out until it holds s.
func waitFor(t *testing.T, out *syncBuffer, s string) {
	t.Helper()
	deadline := time.Now().Add(60 * time.Second)
	for !strings.Contains(out.String(), s) {
		if time.Now().After(deadline) {
			t.Fatalf("no %q within 60s in:\n%s", s, out.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestReadmeStoppedServerAndResponders: what the README says lines ending in '&' print when
// stopped: the server prints "Stopping", the responders how many requests they received.
func TestReadmeStoppedServerAndResponders(t *testing.T) {
	readme := strings.Join(strings.Fields(repoFile(t, "README.md")), " ")
	if !strings.Contains(readme, "the server prints `Stopping` and the responders print how many requests they served") {
		t.Fatal("README no longer says what stopped servers and responders print: update this test with it")
	}
	srvCtx, stopSrv := context.WithCancel(context.Background())
	defer stopSrv()
	srvOut, srvCode := background(srvCtx, t, "server", "--port", "0")
	waitFor(t, srvOut, "Connect with: -s ")
	url := strings.Fields(strings.SplitN(srvOut.String(), "Connect with: -s ", 2)[1])[0]
	svcCtx, stopSvc := context.WithCancel(context.Background())
	defer stopSvc()
	svcOut, svcCode := background(svcCtx, t, "service", "serve", "readme.svc", "-s", url, "--clients", "2", "--no-progress")
	waitFor(t, svcOut, "Starting")
	if r := run(context.Background(), t, nil, "service", "request", "readme.svc", "-s", url, "--msgs", "500", "--no-progress"); r.code != 0 {
		t.Fatalf("service request: exit %d\n%s", r.code, r.err)
	}
	stopSvc()
	if code := <-svcCode; code != exitInterrupted && code != 0 {
		t.Errorf("stopped responders exited %d, want 130 or 0", code)
	}
	if !strings.Contains(svcOut.String(), "received 500 ") {
		t.Errorf("stopped responders do not say they received the 500 requests:\n%s", svcOut.String())
	}
	stopSrv()
	if code := <-srvCode; code != 0 || !strings.HasSuffix(srvOut.String(), "Stopping\n") {
		t.Errorf("stopped server: exit %d, output:\n%s", code, srvOut.String())
	}
}
