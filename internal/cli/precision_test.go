package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// TestPacePrecisionBatchesCloserSends: --pace-precision is the least time between two
// wake-ups of the pacer. At 1,000 msgs/s (1ms apart) with a 5ms precision the sends due
// within each 5ms go together, 0 to 4ms late: the Result's send lateness has a median of
// about 2ms, which a busy host can only raise (with the 1ms default each send keeps its own
// time). Every message is still sent, the Result says 5ms, and the precision lasts for the
// run only.
func TestPacePrecisionBatchesCloserSends(t *testing.T) {
	s := startServer(t, nil)
	res, r := runJSON(context.Background(), t, "pub", "prec.x", "-s", s.ClientURL(), "--rate", "1000", "--duration", "1s", "--pace-precision", "5ms")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	a := group(t, res, "pub").Aggregate
	p50 := time.Duration(histo.At(a.SendLateness, 50))
	t.Logf("sent %d, send lateness P50 %v P99 %v", a.Msgs, p50, time.Duration(histo.At(a.SendLateness, 99)))
	if a.Msgs != 1000 || a.SendLateness == nil || a.SendLateness.Count != 1000 {
		t.Fatalf("sent %d, send lateness %+v: want 1,000 and one each", a.Msgs, a.SendLateness)
	}
	if p50 < 1500*time.Microsecond {
		t.Fatalf("send lateness P50 %v: with a 5ms precision sends 1ms apart wait for their batch (about 2ms)", p50)
	}
	if g := group(t, res, "pub"); g.PacePrecision != 5*time.Millisecond {
		t.Fatalf("the Result says the run paced at %v, want the 5ms it was given", g.PacePrecision)
	}
}

// TestPacePrecisionInResult: every paced group of a Result says the precision it was paced
// at (pace_precision_ns): --pace-precision's, else the one natsperf chose from the rate (1ms
// at 1,000 msgs/s, 200us at 50,000: 10 messages a wake-up), marked pace_precision_chosen; a
// group without a fixed rate (the receivers, an unpaced publisher) says none. `natsperf spec`
// shows the flag as the Spec's pace_precision.
func TestPacePrecisionInResult(t *testing.T) {
	s := startServer(t, nil)
	for _, tt := range []struct {
		args     []string
		pub, sub time.Duration
		chosen   bool
	}{
		{[]string{"--rate", "1000", "--pace-precision", "250us"}, 250 * time.Microsecond, 0, false},
		{[]string{"--rate", "1000"}, time.Millisecond, 0, true},
		{[]string{"--rate", "50000"}, 200 * time.Microsecond, 0, true},
		{[]string{"--rate", "50000", "--pace-precision", "1ms"}, time.Millisecond, 0, false},
		{nil, 0, 0, false},
	} {
		args := append([]string{"pubsub", "prec.rec", "-s", s.ClientURL(), "--msgs", "200", "--size", "16"}, tt.args...)
		res, r := runJSON(context.Background(), t, args...)
		if r.code != exitOK {
			t.Fatalf("%v: exit %d: %s", tt.args, r.code, r.err)
		}
		if pub, sub := group(t, res, "pub").PacePrecision, group(t, res, "sub").PacePrecision; pub != tt.pub || sub != tt.sub {
			t.Errorf("%v: the Result says pub paced at %v, sub at %v; want %v and %v", tt.args, pub, sub, tt.pub, tt.sub)
		}
		if chosen := group(t, res, "pub").PacePrecisionChosen; chosen != tt.chosen {
			t.Errorf("%v: pace_precision_chosen %v, want %v", tt.args, chosen, tt.chosen)
		}
	}
	r := run(context.Background(), t, nil, "spec", "pub", "x", "--rate", "10", "--pace-precision", "250us", "--json")
	var sp spec.Spec
	if err := json.Unmarshal([]byte(r.out), &sp); r.code != exitOK || err != nil || sp.PacePrecision.D() != 250*time.Microsecond {
		t.Fatalf("natsperf spec: exit %d, pace_precision %v (%v): want 250us\n%s", r.code, sp.PacePrecision.D(), err, r.out)
	}
}

// TestCompareMarksPrecisions: compare marks the rows of two Results paced at different
// precisions, whose corrected latencies hold different pacer lateness; two at one precision
// are not marked.
func TestCompareMarksPrecisions(t *testing.T) {
	s := startServer(t, nil)
	dir := t.TempDir()
	files := map[string]string{}
	for _, p := range []string{"1ms", "250us"} {
		files[p] = filepath.Join(dir, p+".json")
		r := run(context.Background(), t, nil, "pubsub", "prec.cmp", "-s", s.ClientURL(), "--rate", "1000", "--msgs", "200", "--size", "16", "--pace-precision", p, "-o", files[p])
		if r.code != exitOK {
			t.Fatalf("--pace-precision %s: exit %d: %s", p, r.code, r.err)
		}
	}
	r := run(context.Background(), t, nil, "compare", files["1ms"], files["250us"])
	if r.code != exitOK || !strings.Contains(r.out, "(paced at 1ms vs 250µs)") {
		t.Fatalf("compare 1ms 250us: exit %d, no mark of the two precisions:\n%s%s", r.code, r.out, r.err)
	}
	r = run(context.Background(), t, nil, "compare", files["1ms"], files["1ms"])
	if r.code != exitOK || strings.Contains(r.out, "paced at") {
		t.Fatalf("compare 1ms 1ms: exit %d, marked:\n%s%s", r.code, r.out, r.err)
	}
}

// TestPacePrecisionReachesAgents: --pace-precision goes to the agents in the Spec. The agent
// runs in this test's process but the command line no longer sets the process's precision,
// so only the Spec can make its senders batch: at 1,000 msgs/s and 5ms its sends wait for
// their batch (send lateness P50 about 2ms, where the 1ms default sends each on time), and
// the agent's part of the Result says 5ms.
func TestPacePrecisionReachesAgents(t *testing.T) {
	control, target := startServer(t, nil), startServer(t, nil)
	startGoAgent(t, "prec-a1", control.ClientURL(), target.ClientURL())
	res, r := runJSON(context.Background(), t, "pub", "prec.agents", "-s", target.ClientURL(), "--agents", "1", "--control", control.ClientURL(), "--agents-wait", "20s",
		"--rate", "1000", "--duration", "1s", "--size", "16", "--pace-precision", "5ms")
	if r.code != exitOK || res.Distributed == nil || len(res.Distributed.Agents) != 1 {
		t.Fatalf("exit %d, distributed %+v: %s", r.code, res.Distributed, r.err)
	}
	checkBatched(t, group(t, res, "pub"), 5*time.Millisecond)
}

// checkBatched: g sent 1,000 msgs/s paced at precision (5ms): its Result says so, and its
// sends 1ms apart waited for their batch (send lateness P50 at least 1.5ms, which a busy host
// can only raise; a 1ms or 250us precision sends each on its own time).
func checkBatched(t *testing.T, g result.Group, precision time.Duration) {
	t.Helper()
	a := g.Aggregate
	p50 := time.Duration(histo.At(a.SendLateness, 50))
	t.Logf("%s: sent %d paced at %v, send lateness P50 %v P99 %v", g.Name, a.Msgs, g.PacePrecision, p50, time.Duration(histo.At(a.SendLateness, 99)))
	if g.PacePrecision != precision {
		t.Fatalf("the Result says the senders paced at %v, want %v", g.PacePrecision, precision)
	}
	if a.Msgs < 900 || a.SendLateness == nil || a.SendLateness.Count < a.Msgs {
		t.Fatalf("sent %d, send lateness %+v: want about 1,000, one lateness each", a.Msgs, a.SendLateness)
	}
	if p50 < 1500*time.Microsecond {
		t.Fatalf("send lateness P50 %v: at %v the sends 1ms apart should wait for their batch (about 2ms): the precision did not reach the senders", p50, precision)
	}
}

// TestPacePrecisionReachesRust: natsperf-rust paces at the Spec's precision when it gives one
// (5ms: its sends batch, as Go's) and records it; without one it chooses from the rate (its
// 250us default at 1,000 msgs/s, 200us at 50,000) and says so.
func TestPacePrecisionReachesRust(t *testing.T) {
	bin := rustBinary(t)
	s := startServer(t, nil)
	res, r := runJSON(context.Background(), t, "pub", "prec.rust", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin,
		"--rate", "1000", "--duration", "1s", "--size", "16", "--pace-precision", "5ms")
	if r.code != exitOK || res.Libraries() != "async-nats" {
		t.Fatalf("exit %d, libraries %q: %s", r.code, res.Libraries(), r.err)
	}
	checkBatched(t, group(t, res, "pub"), 5*time.Millisecond)
	res, r = runJSON(context.Background(), t, "pub", "prec.rust", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin,
		"--rate", "1000", "--msgs", "200", "--size", "16")
	if g := group(t, res, "pub"); r.code != exitOK || g.PacePrecision != 250*time.Microsecond || !g.PacePrecisionChosen {
		t.Fatalf("exit %d: without --pace-precision natsperf-rust says it paced at %v (chosen %v), want its 250us default, chosen", r.code, g.PacePrecision, g.PacePrecisionChosen)
	}
	// At 50,000 msgs/s it chooses 10 messages a wake-up, as natsperf does.
	res, r = runJSON(context.Background(), t, "pub", "prec.rust", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin,
		"--rate", "50000", "--msgs", "1000", "--size", "16")
	if g := group(t, res, "pub"); r.code != exitOK || g.PacePrecision != 200*time.Microsecond || !g.PacePrecisionChosen {
		t.Fatalf("exit %d: at 50,000 msgs/s natsperf-rust says it paced at %v (chosen %v), want 200us, chosen", r.code, g.PacePrecision, g.PacePrecisionChosen)
	}
}

// TestCapacityProbesCarryPrecision: a search's probes carry its precision in their Spec, so
// natsperf-rust and agents pace at it: p99<10ms probes at 500us, which is neither
// natsperf-rust's default (250us) nor natsperf's (1ms), and every probe says so. An explicit
// --pace-precision wins.
func TestCapacityProbesCarryPrecision(t *testing.T) {
	bin := rustBinary(t)
	s := startServer(t, nil)
	for _, tt := range []struct {
		extra []string
		want  time.Duration
	}{
		{nil, 500 * time.Microsecond},
		{[]string{"--pace-precision", "2ms"}, 2 * time.Millisecond},
	} {
		// js pub sync, not pub: a latency threshold on core pub is refused (it records none).
		args := append([]string{"capacity", "js", "pub", "sync", "cap.prec", "--stream", "CAPPREC", "--storage", "memory", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin, "--size", "16",
			"--slo", "p99<10ms", "--min", "100", "--max", "200", "--probe-duration", "500ms", "--warmup", "0s", "--repeats", "1", "--drain", "0s", "--json"}, tt.extra...)
		r := run(context.Background(), t, nil, args...)
		var o capacity.Outcome
		if err := json.Unmarshal([]byte(r.out), &o); (r.code != exitOK && r.code != exitSLO) || err != nil || len(o.Probes) == 0 {
			t.Fatalf("%v: exit %d (%v)\n%s\n%s", tt.extra, r.code, err, r.out, r.err)
		}
		for _, p := range o.Probes {
			if p.PacePrecision != tt.want {
				t.Errorf("%v: probe %d at %v msgs/s paced at %v, want %v", tt.extra, p.N, p.Offered, p.PacePrecision, tt.want)
			}
		}
	}
}

// TestScenarioCellPrecision: a scenario sets the precision per cell through its workloads'
// pace-precision flag (a matrix axis here); each cell's Result says its own, and a bad value
// is refused when the file loads, in one line at its file:line as every mistake of a scenario.
func TestScenarioCellPrecision(t *testing.T) {
	s := startServer(t, nil)
	dir := t.TempDir()
	file := filepath.Join(dir, "prec.yaml")
	yaml := `name: precision
matrix:
  precision: [250us, 5ms]
workloads:
  - name: p
    command: pub prec.cell
    flags: {rate: 1000, msgs: 1000, size: 16, pace-precision: "${precision}"}
`
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	if r := run(context.Background(), t, nil, "run", file, "-o", out, "-s", s.ClientURL()); r.code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	ix, err := scenario.ReadIndex(out)
	if err != nil || len(ix.Cells) != 2 {
		t.Fatalf("index %v %+v", err, ix)
	}
	for _, c := range ix.Cells {
		res, err := result.ReadFile(filepath.Join(out, c.Runs[0].Result))
		if err != nil {
			t.Fatal(err)
		}
		want, _ := time.ParseDuration(c.Values["precision"])
		g := group(t, res, "p1/pub")
		if g.PacePrecision != want || g.Aggregate.Msgs != 1000 {
			t.Errorf("cell %s: sent %d paced at %v, want 1,000 at %v", c.Name, g.Aggregate.Msgs, g.PacePrecision, want)
		}
		if want == 5*time.Millisecond {
			checkBatched(t, g, want)
		}
	}
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte(strings.Replace(yaml, "[250us, 5ms]", "[1us]", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(context.Background(), t, nil, "run", bad, "--dry-run")
	if first, _, _ := strings.Cut(r.err, "\n"); r.code != exitUsage || !strings.Contains(first, "bad.yaml:6:") || !strings.Contains(first, "--pace-precision") || !strings.Contains(first, "1µs: the precision must be 50µs to 100ms") {
		t.Fatalf("a 1us precision: exit %d, stderr %q; want exit 2 and the mistake in one line at its line", r.code, r.err)
	}
}

// TestSpecPrecisionRefused: a Spec file's pace_precision out of range is refused in one line
// naming the key.
func TestSpecPrecisionRefused(t *testing.T) {
	file := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(file, []byte("version: natsperf.spec/v1\npace_precision: 200ms\nworkloads:\n  - kind: pub\n    pacing: {rate: 10, duration: 1s}\n    config: {subject: x}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := run(context.Background(), t, nil, "run", file)
	if msg := strings.TrimSpace(r.err); r.code != exitUsage || !strings.Contains(msg, "pace_precision: 200ms: the precision must be 50µs to 100ms") || strings.Contains(msg, "\n") {
		t.Fatalf("exit %d, stderr %q; want exit 2 and one line naming pace_precision", r.code, r.err)
	}
}
