package cli

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

func latCluster(t *testing.T, nodes int) *embedded.Cluster {
	t.Helper()
	c, err := embedded.Start(context.Background(), embedded.Options{Nodes: nodes, JetStreamMaxMemory: 16 << 20, JetStreamMaxStore: 32 << 20})
	if err != nil {
		t.Fatalf("start %d node(s): %v", nodes, err)
	}
	t.Cleanup(c.Shutdown)
	return c
}

func latRun(ctx context.Context, args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(ctx, args, Streams{Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

// latencyShape is latency-tests' report, line by line, then natsperf's counts.
var latencyShape = []string{
	`==============================`,
	`Pub Server RTT : (?P<d>\S+)`,
	`Sub Server RTT : (?P<d>\S+)`,
	`Message Payload: 24B`,
	`Target Duration: 1s`,
	`Target Msgs/Sec: 500`,
	`Target Band/Sec: 23K`,
	`==============================`,
	`HDR Percentiles:`,
	`10:       (?P<p>\S+)`,
	`50:       (?P<p>\S+)`,
	`75:       (?P<p>\S+)`,
	`90:       (?P<p>\S+)`,
	`99:       (?P<p>\S+)`,
	`99.9:     (?P<p>\S+)`,
	`99.99:    (?P<p>\S+)`,
	`99.999:   (?P<p>\S+)`,
	`99.9999:  (?P<p>\S+)`,
	`99.99999: (?P<p>\S+)`,
	`100:      (?P<p>\S+)`,
	`==============================`,
	`Actual Msgs/Sec: \d+`, // 500 on a quiet host; the Result's figures are checked below
	`Actual Band/Sec: \d+K?`,
	`Minimum Latency: (?P<d>\S+)`,
	`Median Latency : (?P<d>\S+)`,
	`Maximum Latency: (?P<d>\S+)`,
	`1st Sent Wall Time : (?P<d>\S+)`,
	`Last Sent Wall Time: (?P<w>\S+)`,
	`Last Recv Wall Time: (?P<w>\S+)`,
	`==============================`,
	`Messages Sent  : \d+`,
	`Messages Recv  : \d+`,
	`Lost Messages  : 0`,
	`Uncorrected \(from the actual send; the percentiles above count from the intended send\):`,
	`  P50 \S+ ~ P99 \S+ ~ P99.9 \S+ ~ max \S+`,
}

// checkShape matches out line by line and returns the percentile rows as durations.
func checkShape(t *testing.T, out string) []time.Duration {
	t.Helper()
	lines := strings.Split(strings.TrimRight(out, "\n"), "\n")
	if len(lines) < len(latencyShape) {
		t.Fatalf("%d lines, want at least %d:\n%s", len(lines), len(latencyShape), out)
	}
	var pcts []time.Duration
	for i, pattern := range latencyShape {
		re := regexp.MustCompile("^" + pattern + "$")
		m := re.FindStringSubmatch(lines[i])
		if m == nil {
			t.Fatalf("line %d %q does not match %q:\n%s", i+1, lines[i], pattern, out)
		}
		for j, name := range re.SubexpNames() {
			if name == "" {
				continue
			}
			d, err := time.ParseDuration(m[j])
			if err != nil || d <= 0 {
				t.Fatalf("line %d %q: %q is not a positive duration", i+1, lines[i], m[j])
			}
			if name == "p" {
				pcts = append(pcts, d)
			}
			if name == "w" && (d < 990*time.Millisecond || d > 1500*time.Millisecond) {
				t.Fatalf("line %d %q: want about the 1s duration", i+1, lines[i])
			}
		}
	}
	for i := 1; i < len(pcts); i++ {
		if pcts[i] < pcts[i-1] {
			t.Fatalf("percentiles decrease: %v", pcts)
		}
	}
	return pcts
}

// checkHGRM reads a .hgrm file as HdrHistogram's plotter does: rows of four space-separated
// numbers (value in ms, percentile, total count, 1/(1-percentile)), then the #[...] footer.
func checkHGRM(t *testing.T, path string, count int64, maxLat time.Duration) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows int
	var lastValue, lastPct float64
	var lastCount int64
	footer := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "":
		case strings.HasPrefix(line, "#["):
			footer[strings.Fields(line[2:])[0]] = true
			if strings.HasPrefix(line, "#[Max") && !strings.Contains(line, "Total count    = "+strings.Repeat(" ", 12-len(strconv.FormatInt(count, 10)))+strconv.FormatInt(count, 10)+"]") {
				t.Errorf("footer %q, want total count %d", line, count)
			}
		case strings.Contains(line, "Percentile"):
			if rows > 0 || !strings.Contains(line, "Value") || !strings.Contains(line, "TotalCount") || !strings.Contains(line, "1/(1-Percentile)") {
				t.Errorf("header %q", line)
			}
		default:
			fields := strings.Fields(line)
			if len(fields) != 4 {
				t.Fatalf("row %q has %d fields, the plotter needs 4", line, len(fields))
			}
			v, err1 := strconv.ParseFloat(fields[0], 64)
			p, err2 := strconv.ParseFloat(fields[1], 64)
			n, err3 := strconv.ParseInt(fields[2], 10, 64)
			if err1 != nil || err2 != nil || err3 != nil || v < lastValue || p < lastPct || n < lastCount {
				t.Fatalf("row %q: not numbers, or not increasing", line)
			}
			lastValue, lastPct, lastCount = v, p, n
			rows++
		}
	}
	if rows < 10 || lastPct != 1 || lastCount != count {
		t.Fatalf("%d rows, last percentile %v count %d; want the distribution up to 1.0 and %d", rows, lastPct, lastCount, count)
	}
	if got := time.Duration(lastValue * 1e6); got < maxLat*99/100-time.Microsecond || got > maxLat*101/100+time.Microsecond {
		t.Errorf("last value %v ms, want the maximum latency %v", lastValue, maxLat)
	}
	for _, k := range []string{"Mean", "Max", "Buckets"} {
		if !footer[k] {
			t.Errorf("footer lacks #[%s ...]", k)
		}
	}
}

func TestLatencyCommand(t *testing.T) {
	if testing.Short() {
		t.Skip("two 1s runs and a cluster")
	}
	single := latCluster(t, 1)
	pair := latCluster(t, 2)
	urls := pair.ClientURLs()
	tests := []struct {
		name string
		args []string
	}{
		{"one server", []string{"-s", single.URL()}},
		{"A and B on two clustered servers", []string{"-s", urls[0], "--server-b", urls[1]}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			hist, out := filepath.Join(dir, "lat.hgrm"), filepath.Join(dir, "res.json")
			args := append([]string{"latency", "--rate", "500", "--duration", "1s", "--size", "24", "--hist", hist, "-o", out, "--no-progress"}, tt.args...)
			code, stdout, stderr := latRun(context.Background(), args...)
			if code != 0 {
				t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
			}
			pcts := checkShape(t, stdout)
			res, err := result.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			if res.Command != "latency" || len(res.Groups) != 2 || res.Groups[0].TargetRate != 500 {
				t.Fatalf("result: command %q, %d groups", res.Command, len(res.Groups))
			}
			// A host whose cores are taken may keep the sender more than the grace behind its
			// schedule at the end of the 1s: --duration then stops it short of 500 messages.
			pub, sub := res.Groups[0].Aggregate, res.Groups[1].Aggregate
			sent := pub.Msgs
			if sent > 500 || sent < 250 || pub.MsgsPerSec > 500*1.001 {
				t.Fatalf("sent %d at %.1f msgs/sec, want up to 500 at up to 500/s (at least half on a busy host)", sent, pub.MsgsPerSec)
			}
			if !strings.Contains(stdout, fmt.Sprintf("Messages Sent  : %d\nMessages Recv  : %d\n", sent, sent)) {
				t.Fatalf("sent and received lines do not say %d:\n%s", sent, stdout)
			}
			if sub.Latency == nil || sub.Latency.Count != sent || sub.Latency.Uncorrected == nil || sub.Correctness.Lost != 0 {
				t.Fatalf("sub latency %+v correctness %+v", sub.Latency, sub.Correctness)
			}
			if max := time.Duration(sub.Latency.Max).Truncate(time.Microsecond); pcts[len(pcts)-1] != max {
				t.Errorf("printed 100th percentile %v, Result max %v", pcts[len(pcts)-1], max)
			}
			wantServers := 1
			if len(tt.args) > 2 {
				wantServers = 2
			}
			if len(res.Servers) != wantServers {
				t.Errorf("connected to %d servers, want %d: %+v", len(res.Servers), wantServers, res.Servers)
			}
			checkHGRM(t, hist, sent, time.Duration(sub.Latency.Max))
		})
	}
}

func TestLatencyCommandUsage(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"payload too small for the stamp", []string{"latency", "--size", "8"}, "at least 16 bytes"},
		{"server B without server A", []string{"latency", "--server-b", "nats://127.0.0.1:1"}, "--server-b needs --server"},
		{"no rate", []string{"latency", "--rate", "0"}, "--rate must be positive"},
		{"warm-up longer than the run", []string{"latency", "--duration", "1s", "--warmup", "2s"}, "--warmup"},
		{"arguments", []string{"latency", "foo"}, "no arguments"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, _, stderr := latRun(context.Background(), tt.args...)
			if code != exitUsage || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
				t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, stderr, tt.want)
			}
		})
	}
}

// TestRateNotReached asks one responder that takes 5ms per request for 1,000 requests/s: the
// report must say the rate was not reached, and the latency counts the queueing behind the
// schedule. --hist writes the requesters' histogram.
func TestRateNotReached(t *testing.T) {
	srv := latCluster(t, 1)
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan struct{})
	go func() {
		defer close(served)
		latRun(ctx, "service", "serve", "slow", "--sleep", "5ms", "--no-progress", "-s", srv.URL())
	}()
	t.Cleanup(func() { cancel(); <-served })
	nc, err := nats.Connect(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	natstest.Eventually(t, 5*time.Second, time.Millisecond, func() error {
		if _, err := nc.Request("slow", nil, 100*time.Millisecond); err != nil {
			return fmt.Errorf("responder never answered: %w", err)
		}
		return nil
	})
	hist := filepath.Join(t.TempDir(), "req.hgrm")
	code, stdout, stderr := latRun(context.Background(), "service", "request", "slow", "--rate", "1000", "--msgs", "100",
		"--size", "16", "--hist", hist, "--no-progress", "-s", srv.URL())
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	re := regexp.MustCompile(`target rate not reached: 1,000 msgs/sec asked, (\d+) msgs/sec achieved`)
	m := re.FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("no rate warning:\n%s", stdout)
	}
	// A 5ms service gives ~200 on a quiet host; a busy one stretches the 5ms sleeps.
	if got, _ := strconv.Atoi(m[1]); got < 10 || got > 250 {
		t.Errorf("achieved %d msgs/sec, a 5ms service gives ~200 at most", got)
	}
	if !strings.Contains(stdout, "uncorrected (from the actual send):") {
		t.Errorf("no uncorrected line:\n%s", stdout)
	}
	f, err := os.ReadFile(hist)
	if err != nil || !strings.Contains(string(f), "Total count    =          100]") {
		t.Fatalf("histogram file: %v\n%s", err, f)
	}
}

// TestLatencyInterval: --interval sets the width of the series' slices (and so the spike
// lines' resolution): a 1 s run at 250ms has four slices of the receiver's series, 250ms
// apart, whose messages add up to what it received; a width under 10ms is refused.
func TestLatencyInterval(t *testing.T) {
	single := latCluster(t, 1)
	out := filepath.Join(t.TempDir(), "res.json")
	code, stdout, stderr := latRun(context.Background(), "latency", "-s", single.URL(), "--rate", "400", "--duration", "1s",
		"--interval", "250ms", "-o", out, "--no-progress")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	res, err := result.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	sub := res.Groups[1]
	var msgs int64
	for i, iv := range sub.Series {
		if want := time.Duration(i) * 250 * time.Millisecond; iv.Offset != want {
			t.Fatalf("slice %d starts at %v, want %v: %+v", i, iv.Offset, want, sub.Series)
		}
		msgs += iv.Msgs
	}
	if n := len(sub.Series); n < 4 || n > 6 || msgs != sub.Aggregate.Msgs {
		t.Fatalf("%d slices holding %d msgs, want 4 (up to 6 for a late end) holding the %d received: %+v", n, msgs, sub.Aggregate.Msgs, sub.Series)
	}
	code, _, stderr = latRun(context.Background(), "latency", "-s", single.URL(), "--interval", "1ms")
	if code != 2 || !strings.Contains(stderr, "--interval must be at least 10ms") || strings.Count(strings.TrimSpace(stderr), "\n") != 0 {
		t.Fatalf("--interval 1ms: exit %d, stderr %q", code, stderr)
	}
}
