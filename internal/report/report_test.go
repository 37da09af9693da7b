package report_test

import (
	"bytes"
	"context"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/report/reporttest"
	"github.com/natsperf/natsperf/internal/result"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func fixture(t *testing.T) *report.Set {
	t.Helper()
	dir := t.TempDir()
	if err := reporttest.Write(dir, 42, 3, 1, 1); err != nil {
		t.Fatal(err)
	}
	s, err := report.Load([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file (go test -update rewrites it)\n--- got\n%s", name, got)
	}
}

func TestGolden(t *testing.T) {
	s := fixture(t)
	for _, tc := range []struct {
		name string
		f    func(*bytes.Buffer) error
	}{
		{"report.md", func(b *bytes.Buffer) error { return report.Markdown(b, s, "") }},
		{"report.csv", func(b *bytes.Buffer) error { return report.CSV(b, s) }},
		{"report.json", func(b *bytes.Buffer) error { return report.JSON(b, s) }},
		{"report.hgrm", func(b *bytes.Buffer) error { return report.HGRM(b, s) }},
		{"report.html", func(b *bytes.Buffer) error { return report.HTML(b, s, "") }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := tc.f(&b); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, b.Bytes())
		})
	}
}

func TestMarkdownFigures(t *testing.T) {
	var b bytes.Buffer
	if err := report.Markdown(&b, fixture(t), ""); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"| storage | runs | pub msgs/s per client |", "| file | 3 |", "| memory | 3 |",
		"storage=file: per instance", "| pod2 |", "6.0 MiB / 5.9 MiB (1.03x)"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q", want)
		}
	}
}

func TestHTMLSelfContained(t *testing.T) {
	var b bytes.Buffer
	if err := report.HTML(&b, fixture(t), ""); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	if regexp.MustCompile(`(?i)(src|href)\s*=\s*"(https?:)?//`).MatchString(page) {
		t.Fatal("the page loads something from the network")
	}
	if n := strings.Count(page, `<svg class="chart`); n < 8 {
		t.Fatalf("%d charts, want at least 8", n)
	}
}

// TestHTMLInChromium renders the page in headless Chromium: the script ran to its end (it sets
// data-charts) and the browser logged no error.
func TestHTMLInChromium(t *testing.T) {
	bin := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			bin = p
			break
		}
	}
	if bin == "" {
		t.Skip("chromium is not installed (apt-get install -y chromium; .ci/run installs it)")
	}
	dir := t.TempDir()
	page := filepath.Join(dir, "report.html")
	var b bytes.Buffer
	if err := report.HTML(&b, fixture(t), ""); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(page, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	want := strings.Count(b.String(), `<svg class="chart`)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--disable-component-update", "--disable-sync", "--no-first-run", "--user-data-dir="+t.TempDir(),
		"--enable-logging=stderr", "--v=0", "--dump-dom", "file://"+page)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	dom := stdout.String()
	if !strings.Contains(dom, `data-charts="`+strconv.Itoa(want)+`"`) {
		t.Fatalf("the page's script did not finish (want data-charts=%d); stderr:\n%s", want, stderr.String())
	}
	if strings.Count(dom, "<path class=\"line\"") < 4 || strings.Count(dom, "<rect class=\"bar\"") < 8 {
		t.Fatal("the rendered page lacks its lines or bars")
	}
	for _, line := range strings.Split(stderr.String(), "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("console: %s", line)
		}
	}
}

func FuzzReadResult(f *testing.F) {
	f.Add([]byte(`{"schema":"natsperf.result/v1","command":"run","groups":[{"name":"pod1/pub","clients":[{"id":1,"msgs_per_sec":5}],"aggregate":{"latency":{"histogram":"HISTFAAAAB"}}}]}`))
	f.Add([]byte(`{"schema":"natsperf.result/v1","groups":[],"streams":[{"name":"x"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := result.Read(bytes.NewReader(data))
		if err != nil {
			return
		}
		_ = report.Values(r)
		s := &report.Set{Cells: []*report.Cell{{Name: "x", Runs: []report.Run{{Result: r}}}}}
		var b bytes.Buffer
		_ = report.Markdown(&b, s, "")
		_ = report.HTML(&b, s, "")
	})
}
