package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/internal/report"
)

// TestCapacityAcrossAgents: `natsperf capacity ... --agents 2 --control URL` runs every probe
// across two natsperf agents (started here on a loopback control server, as `natsperf agent`
// runs one) and reports a result; the messages its probes say they sent, merged over the
// agents, are the ones the target server counted in (its /varz in_msgs, plus the one
// $JS.API.INFO request a process sends a server it has not asked before). The control server
// is another server, so the target's counters hold the benchmark alone. --warmup 0: every
// message sent is in a probe's count.
func TestCapacityAcrossAgents(t *testing.T) {
	control, target := startServer(t, nil), startServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for _, name := range []string{"cap-a1", "cap-a2"} {
		startGoAgent(t, name, control.ClientURL(), target.ClientURL())
	}
	before, _ := target.Varz(nil)
	r := run(ctx, t, nil, "capacity", "pub", "cap.agents", "-s", target.ClientURL(), "--clients", "2", "--size", "16",
		"--agents", "2", "--control", control.ClientURL(), "--agents-wait", "20s",
		"--slo", "rate>=0.5", "--min", "100", "--max", "400", "--probe-duration", "500ms", "--warmup", "0s", "--repeats", "1", "--drain", "0s", "--json")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	var o capacity.Outcome
	if err := json.Unmarshal([]byte(r.out), &o); err != nil {
		t.Fatalf("%v: %s", err, r.out)
	}
	if o.Verdict != capacity.AboveMax || len(o.Probes) < 2 {
		t.Fatalf("verdict %q after %d probes, want %q (every probe passes rate>=0.5 up to --max): %+v", o.Verdict, len(o.Probes), capacity.AboveMax, o.Probes)
	}
	var sent int64
	for _, p := range o.Probes {
		if p.Sent <= 0 || !p.Pass || len(p.Agents) != 2 {
			t.Fatalf("probe %+v: nothing sent, failed, or not on the two agents", p)
		}
		sent += p.Sent
	}
	const jsInfo = 1
	after := varzAtLeast(t, target, before.InMsgs+sent+jsInfo)
	if in := after.InMsgs - before.InMsgs; in != sent+jsInfo {
		t.Fatalf("the server counted %d messages in, the probes' merged counts say %d sent (+%d $JS.API.INFO)", in, sent, jsInfo)
	}
	t.Logf("%d probes across 2 agents sent %d messages; the server counted %d in", len(o.Probes), sent, after.InMsgs-before.InMsgs)
}

// TestCapacityThroughRust: with --client rust every probe runs in natsperf-rust, and the
// messages the probes say they sent are the ones the server counted from natsperf-rust's
// connections (/connz). natsperf-rust records send lateness and its CPU as the Go engine
// does, so the generator check has them: every probe has both, and the table prints them.
func TestCapacityThroughRust(t *testing.T) {
	bin := rustBinary(t)
	s := startServer(t, nil)
	file := filepath.Join(t.TempDir(), "cap.json")
	r := run(context.Background(), t, nil, "capacity", "pub", "cap.rust", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin, "--size", "16",
		"--slo", "rate>=0.5", "--min", "100", "--max", "200", "--probe-duration", "500ms", "--warmup", "0s", "--repeats", "1", "--drain", "0s", "-o", file)
	if r.code != 0 || !strings.Contains(r.out, "Capacity: at least 200 msgs/s at rate>=0.5") {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	var o capacity.Outcome
	f, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(f, &o); err != nil {
		t.Fatal(err)
	}
	rows := probeRows(r.out)
	var sent int64
	for _, p := range o.Probes {
		if p.LatenessP99 <= 0 || p.CPUShare <= 0 {
			t.Errorf("probe %d: send lateness P99 %d, CPU share %v: natsperf-rust recorded no lateness or CPU", p.N, p.LatenessP99, p.CPUShare)
		}
		row := rows[p.N]
		if len(row) < 10 || row[7] != report.Duration(p.LatenessP99) || !strings.HasSuffix(row[8], "%") {
			t.Errorf("probe %d: table row %q does not print the send lateness P99 %s and the CPU share", p.N, row, report.Duration(p.LatenessP99))
		}
		sent += p.Sent
	}
	if in, _ := rustClientCounts(t, s); sent == 0 || in != sent {
		t.Fatalf("the server counted %d messages from natsperf-rust's connections, the %d probes say %d", in, len(o.Probes), sent)
	}
}

// probeRows are the capacity table's rows by probe number, split into their columns (#,
// offered, achieved, P50, P99, P99.9, loss, late P99, CPU, verdict).
func probeRows(out string) map[int][]string {
	rows := map[int][]string{}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		if n, err := strconv.Atoi(f[0]); err == nil {
			rows[n] = f
		}
	}
	return rows
}
