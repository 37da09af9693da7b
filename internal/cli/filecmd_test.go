package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReportWithoutArgumentsIsUsage: 'natsperf report' with nothing to read is a usage mistake
// (exit 2, one line naming what it takes), as every other command's.
func TestReportWithoutArgumentsIsUsage(t *testing.T) {
	r := run(context.Background(), t, nil, "report")
	if r.code != exitUsage || !strings.Contains(r.err, "takes one or more run directories or Result files") || strings.Count(r.err, "\n") != 1 {
		t.Fatalf("exit %d, stderr %q; want exit 2 and one line", r.code, r.err)
	}
}

// TestFileCommandsHelpListsTheirFlags: report and compare read files; their --help lists only
// the flags that do something there, -o is described as what it does for report, and a flag
// that does not apply is refused (exit 2) instead of ignored.
func TestFileCommandsHelpListsTheirFlags(t *testing.T) {
	for _, tt := range []struct {
		cmd           string
		absent, shown []string
	}{
		{"report", []string{"--cpu", "--csv", "--json", "--no-progress", "Result document"}, []string{"-o, --output", "write the report to this file instead of stdout", "--format"}},
		{"compare", []string{"--cpu", "--csv", "--output", "--no-progress", "Result document"}, []string{"--json", "natsperf.compare/v1", "--fail-on-regression"}},
	} {
		r := run(context.Background(), t, nil, tt.cmd, "--help")
		for _, s := range tt.absent {
			if strings.Contains(r.out, s) {
				t.Errorf("%s --help lists %q:\n%s", tt.cmd, s, r.out)
			}
		}
		for _, s := range tt.shown {
			if !strings.Contains(r.out, s) {
				t.Errorf("%s --help lacks %q:\n%s", tt.cmd, s, r.out)
			}
		}
	}
	// Help for another command is unchanged afterwards (the flags are the root's, shared).
	if r := run(context.Background(), t, nil, "pub", "--help"); !strings.Contains(r.out, "also write the Result document to this file") || !strings.Contains(r.out, "--cpu") {
		t.Errorf("pub --help lost -o or --cpu:\n%s", r.out)
	}
	for _, args := range [][]string{{"report", "x", "--cpu"}, {"report", "x", "--json"}, {"compare", "a", "b", "-o", "c"}} {
		r := run(context.Background(), t, nil, args...)
		if r.code != exitUsage || !strings.Contains(r.err, "does not take --") {
			t.Errorf("%v: exit %d, stderr %q; want 2 and 'does not take'", args, r.code, r.err)
		}
	}
}

// TestReportHGRMWithoutLatency: a Result with no latency histogram (a core publisher measures
// none) asked for --format hgrm says so and exits non-zero instead of printing nothing.
func TestReportHGRMWithoutLatency(t *testing.T) {
	s := startServer(t, nil)
	file := filepath.Join(t.TempDir(), "pub.json")
	if r := run(context.Background(), t, nil, "pub", "nolat", "-s", s.ClientURL(), "--msgs", "100", "-o", file); r.code != 0 {
		t.Fatalf("pub: exit %d, %s", r.code, r.err)
	}
	out := filepath.Join(t.TempDir(), "pub.hgrm")
	r := run(context.Background(), t, nil, "report", file, "--format", "hgrm", "-o", out)
	if r.code == 0 || !strings.Contains(r.err, "no latency histogram") || r.out != "" {
		t.Fatalf("exit %d, stdout %q, stderr %q; want non-zero and 'no latency histogram'", r.code, r.out, r.err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Errorf("an empty %s was written", out)
	}
	if r := run(context.Background(), t, nil, "report", file, "--format", "md"); r.code != 0 {
		t.Errorf("md of the same Result: exit %d, %s", r.code, r.err)
	}
}
