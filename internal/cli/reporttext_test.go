package cli

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestReportText: `report --format text` draws md's sections for a terminal (the same Cells
// row as the Markdown, in columns), and an unknown format names text among the choices.
func TestReportText(t *testing.T) {
	s := startServer(t, nil)
	file := filepath.Join(t.TempDir(), "pub.json")
	if r := run(context.Background(), t, nil, "pub", "txt", "-s", s.ClientURL(), "--msgs", "1000", "-o", file); r.code != 0 {
		t.Fatalf("pub: exit %d, %s", r.code, r.err)
	}
	md := run(context.Background(), t, nil, "report", file)
	text := run(context.Background(), t, nil, "report", file, "--format", "text", "--title", "T")
	if md.code != 0 || text.code != 0 {
		t.Fatalf("md exit %d (%s), text exit %d (%s)", md.code, md.err, text.code, text.err)
	}
	var row []string // md's Cells row: | pub | 1 | rate | total |
	for _, l := range strings.Split(md.out, "\n") {
		if strings.HasPrefix(l, "| pub | 1 |") {
			row = strings.Split(strings.Trim(l, "| "), " | ")
		}
	}
	if len(row) < 4 {
		t.Fatalf("no Cells row for pub in the Markdown:\n%s", md.out)
	}
	for i := range row {
		row[i] = regexp.QuoteMeta(row[i])
	}
	want := strings.Join(row[:4], `\s+`)
	for _, w := range []string{`(?m)^T\n=\n`, `(?m)^Cells\n-----\n`, `(?m)^cell\s+runs\s+pub msgs/s per client\s+pub msgs/s total`, `(?m)^` + want + `(\s|$)`} {
		if !regexp.MustCompile(w).MatchString(text.out) {
			t.Errorf("text lacks %s:\n%s", w, text.out)
		}
	}
	if r := run(context.Background(), t, nil, "report", file, "--format", "tex"); r.code != 2 || !strings.Contains(r.err, "md, html, text, csv, json or hgrm") {
		t.Errorf("--format tex: exit %d, %q", r.code, r.err)
	}
}
