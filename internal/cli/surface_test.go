package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

// TestServeWithoutMsgsServesUntilStopped: a responder started by hand serves until Ctrl-C
// (it used to stop after the default 100,000 requests, so the README's next requester got
// "no responders"), then reports what it served.
func TestServeWithoutMsgsServesUntilStopped(t *testing.T) {
	s := startServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	served := make(chan cliRun, 1)
	go func() { served <- run(ctx, t, nil, "service", "serve", "open", "-s", s.ClientURL(), "--clients", "2") }()
	waitForSubs(t, s, "open", 2)
	for range 2 {
		if r := run(context.Background(), t, nil, "service", "request", "open", "-s", s.ClientURL(), "--msgs", "500", "--no-progress"); r.code != 0 {
			t.Fatalf("request exit %d: %s", r.code, r.err)
		}
	}
	if got := s.GlobalAccount().Interest("open"); got != 2 {
		t.Fatalf("responders gone after 1,000 requests: %d left", got)
	}
	cancel()
	r := <-served
	if strings.Contains(r.out, "serving 100,000") || !strings.Contains(r.out, "serving until stopped") {
		t.Errorf("start lines do not say the responders serve until stopped:\n%s", r.out)
	}
	if r.code != exitInterrupted || !strings.Contains(r.out, "stats:") {
		t.Fatalf("serve exit %d, no stats printed on the way out:\n%s\n%s", r.code, r.out, r.err)
	}
}

// TestEmbeddedServerIsPrivate: a requester (or a receiver) with no server given gets its own
// embedded server, which nobody else can reach: the message says so and what to do instead.
func TestEmbeddedServerIsPrivate(t *testing.T) {
	r := run(context.Background(), t, nil, "service", "request", "alone", "--msgs", "10")
	if r.code != exitFailed || !strings.Contains(r.err, "private to this process") || !strings.Contains(r.err, "natsperf server") {
		t.Fatalf("exit %d, stderr does not explain the private embedded server:\n%s", r.code, r.err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	r = run(ctx, t, nil, "sub", "alone", "--no-progress")
	if !strings.Contains(r.err, "private to this process") || !strings.Contains(r.err, "-s nats://127.0.0.1:4222") {
		t.Fatalf("sub on an embedded server: exit %d, stderr lacks the hint:\n%s", r.code, r.err)
	}
}

// TestUsageErrorsExit2: a typo in a command or a flag is one line on stderr, exit 2, with
// suggestions; so is a group command without its subcommand (natsperf alone shows its help).
func TestUsageErrorsExit2(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"js", "pub", "asink", "foo"}, "async"},
		{[]string{"kv", "gett"}, "get"},
		{[]string{"service", "reqest", "foo"}, "request"},
		{[]string{"pubb", "foo"}, "pub"},
		{[]string{"pub", "foo", "--msg", "10"}, "--msgs"},
		{[]string{"js", "ordred"}, "ordered"},
		{[]string{"help", "pubb"}, "pub"},
		{[]string{"help", "service", "reqest"}, "request"},
	} {
		r := run(context.Background(), t, nil, tc.args...)
		lines := strings.Split(strings.TrimSpace(r.err), "\n")
		if r.code != exitUsage || len(lines) != 1 || !strings.Contains(r.err, "did you mean") || !strings.Contains(r.err, tc.want) {
			t.Errorf("natsperf %s: exit %d, stderr %q, want exit 2, one line suggesting %s", strings.Join(tc.args, " "), r.code, r.err, tc.want)
		}
		if r.out != "" {
			t.Errorf("natsperf %s printed help on stdout", strings.Join(tc.args, " "))
		}
	}
	// The likeliest suggestion first: --msg is the start of --msgs, two edits from --csv.
	if r := run(context.Background(), t, nil, "pub", "foo", "--msg", "10"); !strings.Contains(r.err, "did you mean --msgs") {
		t.Errorf("natsperf pub foo --msg 10: %q, want --msgs suggested first", r.err)
	}
	if r := run(context.Background(), t, nil, "publish", "foo"); r.code != exitUsage || !strings.Contains(r.err, "did you mean pub?") {
		t.Errorf("natsperf publish foo: exit %d, %q, want exit 2 suggesting pub", r.code, r.err)
	}
	// A group without its subcommand ran nothing: a usage error naming the subcommands.
	for _, args := range [][]string{{"js"}, {"js", "pub"}, {"js", "get"}, {"kv"}, {"service"}} {
		r := run(context.Background(), t, nil, args...)
		if r.code != exitUsage || !strings.Contains(r.err, "needs a subcommand") || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
			t.Errorf("natsperf %s: exit %d, stderr %q, want exit 2 and one line naming the subcommands", strings.Join(args, " "), r.code, r.err)
		}
	}
	if r := run(context.Background(), t, nil); r.code != 0 || !strings.Contains(r.out, "Available Commands") {
		t.Errorf("natsperf: exit %d, want its help", r.code)
	}
}

// TestFailedCellShowsItsReason: the progress line of a failed scenario run says why.
func TestFailedCellShowsItsReason(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	sc := "name: nobody\ntarget: {embedded: {nodes: 1}}\nworkloads:\n  - name: ask\n    command: service request nobody.home\n    flags: {msgs: 10}\n"
	if err := os.WriteFile(file, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(context.Background(), t, nil, "run", file, "-o", filepath.Join(dir, "out"))
	if r.code != exitFailed {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	var line string
	for _, l := range strings.Split(r.out, "\n") {
		if strings.Contains(l, result.StopFailed) {
			line = l
		}
	}
	if !strings.Contains(line, "no responders") {
		t.Fatalf("progress line %q does not say why the run failed:\n%s", line, r.out)
	}
}
