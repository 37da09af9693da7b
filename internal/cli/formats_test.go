package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil/promlint"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
)

// TestCompareJSON: compare --json prints a JSON document whose figures are the Results' own.
func TestCompareJSON(t *testing.T) {
	s := startServer(t, nil)
	dir := t.TempDir()
	files := []string{filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")}
	var totals []float64
	for _, f := range files {
		if r := run(context.Background(), t, nil, "pub", "cmpjson", "-s", s.ClientURL(), "--msgs", "2000", "--no-progress", "-o", f); r.code != 0 {
			t.Fatalf("pub exit %d: %s", r.code, r.err)
		}
		res, err := result.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		totals = append(totals, group(t, res, "pub").Aggregate.MsgsPerSec)
	}
	r := run(context.Background(), t, nil, "compare", files[0], files[1], "--json")
	if r.code != 0 {
		t.Fatalf("compare exit %d: %s", r.code, r.err)
	}
	var doc struct {
		Schema string `json:"schema"`
		Old    string `json:"old"`
		New    string `json:"new"`
		Rows   []struct {
			Cell   string `json:"cell"`
			Metric string `json:"metric"`
			Old    struct {
				N    int     `json:"n"`
				Mean float64 `json:"mean"`
			} `json:"old"`
			New struct {
				N    int     `json:"n"`
				Mean float64 `json:"mean"`
			} `json:"new"`
			Testable   bool `json:"testable"`
			Regression bool `json:"regression"`
		} `json:"rows"`
	}
	if err := json.Unmarshal([]byte(r.out), &doc); err != nil {
		t.Fatalf("compare --json is not JSON: %v\n%s", err, r.out)
	}
	if doc.Schema != "natsperf.compare/v1" || doc.Old != files[0] || doc.New != files[1] {
		t.Errorf("header: schema %q old %q new %q", doc.Schema, doc.Old, doc.New)
	}
	found := false
	for _, row := range doc.Rows {
		if row.Metric != "pub.total" {
			continue
		}
		found = true
		if row.Old.N != 1 || row.New.N != 1 || row.Old.Mean != totals[0] || row.New.Mean != totals[1] || row.Testable {
			t.Errorf("pub.total row %+v, want old %v new %v from the Results, n=1+1, untestable", row, totals[0], totals[1])
		}
	}
	if !found {
		t.Fatalf("no pub.total row in\n%s", r.out)
	}
}

// TestFileCommandsHideConnectionFlags: report and compare only read files; their --help does
// not offer --server, --creds and the other connection flags. A benchmark command still does.
func TestFileCommandsHideConnectionFlags(t *testing.T) {
	for _, cmd := range []string{"report", "compare"} {
		r := run(context.Background(), t, nil, cmd, "--help")
		if r.code != 0 || !strings.Contains(r.out, "Usage:") {
			t.Fatalf("%s --help: exit %d\n%s", cmd, r.code, r.out)
		}
		for _, flag := range []string{"--server", "--creds", "--tlsca", "--connect-timeout", "--context"} {
			if strings.Contains(r.out, flag) {
				t.Errorf("%s --help lists %s", cmd, flag)
			}
		}
	}
	if r := run(context.Background(), t, nil, "pub", "--help"); !strings.Contains(r.out, "--server") || !strings.Contains(r.out, "--creds") {
		t.Errorf("pub --help lost the connection flags:\n%s", r.out)
	}
}

const metricsScenario = `name: metrics
target: {embedded: {nodes: 1}}
workloads:
  - name: core
    command: pubsub metrics.x --pub 1 --sub 1
    flags: {rate: 400, duration: 8s, interval: 100ms}
`

// TestMetricsEndpointLints scrapes the real --metrics-addr endpoint while a scenario runs:
// client_golang's linter finds nothing, latency is a summary (not a gauge with a quantile
// label), only counters end in _total, and the message counter never exceeds what the Result
// then says the group handled.
func TestMetricsEndpointLints(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "m.yaml")
	if err := os.WriteFile(file, []byte(metricsScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr syncBuffer
	code := make(chan int, 1)
	go func() {
		code <- Main(context.Background(), []string{"run", file, "-o", out, "--metrics-addr", "127.0.0.1:0"}, Streams{
			Out: &stdout, Err: &stderr,
			Env: connect.Env{Getenv: func(string) string { return "" }, Home: t.TempDir()},
		})
	}()
	addrRE := regexp.MustCompile(`Prometheus metrics on (http://\S+/metrics)`)
	var url, body string
	quantileRE := regexp.MustCompile(`(?m)^natsperf_latency_seconds\{[^}]*group="core1/sub"[^}]*quantile="0.99"\} (\S+)$`)
	natstest.Eventually(t, 60*time.Second, 50*time.Millisecond, func() error {
		if url == "" {
			m := addrRE.FindStringSubmatch(stderr.String())
			if m == nil {
				return fmt.Errorf("no metrics address printed; stderr: %s", stderr.String())
			}
			url = m[1]
		}
		resp, err := http.Get(url)
		if err != nil {
			return err
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if body = string(b); !quantileRE.MatchString(body) {
			return fmt.Errorf("no latency quantiles scraped from %q:\n%s\nstderr: %s", url, body, stderr.String())
		}
		return nil
	})
	if q, err := strconv.ParseFloat(quantileRE.FindStringSubmatch(body)[1], 64); err != nil || q <= 0 || q > 10 {
		t.Errorf("core1/sub p99 %v s (%v): want a latency between 0 and 10s", q, err)
	}
	problems, err := promlint.New(strings.NewReader(body)).Lint()
	if err != nil {
		t.Fatalf("lint: %v\n%s", err, body)
	}
	for _, p := range problems {
		t.Errorf("promlint: %s: %s", p.Metric, p.Text)
	}
	typeRE := regexp.MustCompile(`(?m)^# TYPE (\S+) (\S+)$`)
	types := map[string]string{}
	for _, m := range typeRE.FindAllStringSubmatch(body, -1) {
		types[m[1]] = m[2]
		if strings.HasSuffix(m[1], "_total") && m[2] != "counter" {
			t.Errorf("%s is a %s: _total is for counters", m[1], m[2])
		}
	}
	if types["natsperf_latency_seconds"] != "summary" {
		t.Errorf("natsperf_latency_seconds is %q, want summary", types["natsperf_latency_seconds"])
	}
	msgsRE := regexp.MustCompile(`(?m)^natsperf_messages_total\{[^}]*group="core1/sub"[^}]*\} (\S+)$`)
	m := msgsRE.FindStringSubmatch(body)
	if m == nil {
		t.Fatalf("no natsperf_messages_total for core1/sub:\n%s", body)
	}
	scraped, err := strconv.ParseFloat(m[1], 64)
	if err != nil || scraped <= 0 {
		t.Fatalf("natsperf_messages_total %q", m[1])
	}
	if c := <-code; c != 0 {
		t.Fatalf("run exit %d\n%s\n%s", c, stdout.String(), stderr.String())
	}
	ix, err := scenario.ReadIndex(out)
	if err != nil {
		t.Fatal(err)
	}
	res, err := result.ReadFile(filepath.Join(out, ix.Cells[0].Runs[0].Result))
	if err != nil {
		t.Fatal(err)
	}
	if final := group(t, res, "core1/sub").Aggregate.Msgs; scraped > float64(final) {
		t.Errorf("scraped %v messages mid-run, more than the Result's final %d", scraped, final)
	}
}
