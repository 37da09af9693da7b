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
	"github.com/natsperf/natsperf/result"
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
		{"report.txt", func(b *bytes.Buffer) error { return report.TextReport(b, s, "") }},
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

// chromium finds a headless Chromium, or skips the test.
func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("chromium is not installed (apt-get install -y chromium; .ci/run installs it)")
	return ""
}

// rendered is what headless Chromium made of a page.
type rendered struct {
	dom, log   string
	charts     int
	renderMs   int
	unlabelled int
}

// render writes page to the test's temp dir, loads it in headless Chromium, and saves a
// screenshot next to it (name.png: a CI artifact, and what docs/img is made from).
func render(t *testing.T, name, page string) rendered {
	t.Helper()
	bin := chromium(t)
	dir := os.Getenv("NATSPERF_SCREENSHOTS")
	if dir == "" {
		dir = t.TempDir()
	}
	file := filepath.Join(dir, name+".html")
	if err := os.WriteFile(file, []byte(page), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(args ...string) (string, string) {
		ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
		defer cancel()
		base := []string{"--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
			"--disable-sync", "--no-first-run", "--hide-scrollbars", "--user-data-dir=" + t.TempDir(), "--enable-logging=stderr", "--v=0"}
		cmd := exec.CommandContext(ctx, bin, append(append(base, args...), "file://"+file)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("chromium: %v\n%s", err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	r := rendered{}
	r.dom, r.log = run("--dump-dom", "--window-size=800,600")
	shot := filepath.Join(dir, name+".png")
	_, log2 := run("--screenshot="+shot, "--window-size=1200,"+strconv.Itoa(height(page)))
	r.log += log2
	if st, err := os.Stat(shot); err != nil || st.Size() < 1000 {
		t.Errorf("no screenshot at %s: %v", shot, err)
	}
	t.Logf("screenshot: %s", shot)
	attr := func(name string) int {
		m := regexp.MustCompile(name + `="(\d+)"`).FindStringSubmatch(r.dom)
		if m == nil {
			t.Fatalf("the page's script did not finish (no %s); log:\n%s", name, r.log)
		}
		n, _ := strconv.Atoi(m[1])
		return n
	}
	r.charts, r.renderMs, r.unlabelled = attr("data-charts"), attr("data-render-ms"), attr("data-unlabelled")
	for _, line := range strings.Split(r.log, "\n") {
		if strings.Contains(line, "CONSOLE") || strings.Contains(line, "Uncaught") {
			t.Errorf("console: %s", line)
		}
	}
	// Wide tables and long lines scroll inside their boxes: the page itself is never wider
	// than its window (an 800-pixel one here).
	if pw, ww := attr("data-page-width"), attr("data-window-width"); pw > ww {
		t.Errorf("the page is %d pixels wide in a window of %d", pw, ww)
	}
	if r.unlabelled > 0 {
		t.Errorf("%d of %d charts lack an axis label", r.unlabelled, r.charts)
	}
	for _, bad := range []string{">-0", "e+0", "NaN", "Inf"} {
		if strings.Contains(r.dom, bad) {
			t.Errorf("the page shows %q", bad)
		}
	}
	return r
}

// TestHTMLInChromium renders the evaluation report (a fixture with a matrix, a failed run, an
// interaction) and a 2-minute stability run: the script ran to its end, the browser logged no
// error, every chart has labelled axes.
func TestHTMLInChromium(t *testing.T) {
	var b bytes.Buffer
	if err := report.HTML(&b, knownEffects(t), "evaluation"); err != nil {
		t.Fatal(err)
	}
	r := render(t, "evaluation", b.String())
	if r.charts != strings.Count(b.String(), `<svg class="chart`) || r.charts < 10 {
		t.Errorf("%d charts rendered", r.charts)
	}
	if strings.Count(r.dom, `<path class="line"`) < 14 || strings.Count(r.dom, `<rect class="bar"`) < 7 {
		t.Error("the rendered page lacks its lines or bars")
	}
	for _, want := range []string{"What each choice changes", "Failed runs", "Per instance", "Storage"} {
		if !strings.Contains(r.dom, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	b.Reset()
	if err := report.HTML(&b, soak(t, shortSoak), "stability, 2 minutes"); err != nil {
		t.Fatal(err)
	}
	r = render(t, "stability", b.String())
	if r.charts != 2 || strings.Count(r.dom, `<rect class="band"`) != 3*2 {
		t.Errorf("stability: %d charts, %d bands; want 2 charts with the stall, the fault shaded", r.charts, strings.Count(r.dom, `<rect class="band"`))
	}
}

// TestHTML12hInChromium: the report of a 12-hour series renders in the browser within 5 s.
func TestHTML12hInChromium(t *testing.T) {
	var b bytes.Buffer
	if err := report.HTML(&b, soak(t, twelveHours), "stability, 12 hours"); err != nil {
		t.Fatal(err)
	}
	if b.Len() > 2<<20 {
		t.Errorf("the page is %d bytes; the windows should bound it", b.Len())
	}
	r := render(t, "stability-12h", b.String())
	if r.renderMs > 5000 {
		t.Errorf("rendered in %d ms, want under 5 s", r.renderMs)
	}
	t.Logf("12-hour page: %d bytes, rendered in %d ms", b.Len(), r.renderMs)
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
		s := &report.Set{Cells: []*report.Cell{{Name: "x", Runs: []report.Entry{{Result: r}}}}}
		var b bytes.Buffer
		_ = report.Markdown(&b, s, "")
		_ = report.HTML(&b, s, "")
	})
}

// height guesses a page's height in pixels so the screenshot holds all of it.
func height(page string) int {
	h := 400 + 22*strings.Count(page, "<tr>") + 60*strings.Count(page, "<h2>")
	for _, m := range regexp.MustCompile(`<svg class="chart[^>]* height="(\d+)"`).FindAllStringSubmatch(page, -1) {
		n, _ := strconv.Atoi(m[1])
		h += n + 50
	}
	return min(h, 16000)
}
