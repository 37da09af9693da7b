package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
)

// TestExitCodeReceiverLoss: a subscriber that saw sequence gaps exits with exitLoss; one whose
// only shortfall is messages never sent ("not received") still exits 0.
func TestExitCodeReceiverLoss(t *testing.T) {
	t.Run("gaps are loss", func(t *testing.T) {
		seqs := append(seqRange(1, 499), seqRange(501, 1000)...)
		res, r := subAgainst(t, "gaps", 1000, func(url string) { handPublish(t, url, "gaps", seqs) }, "--idle-timeout", "500ms")
		if c := group(t, res, "sub").Aggregate.Correctness; c == nil || c.Lost != 1 {
			t.Fatalf("correctness %+v, want lost 1", c)
		}
		if r.code != exitLoss {
			t.Fatalf("exit %d, want %d (data loss); stderr %s", r.code, exitLoss, r.err)
		}
		if !strings.Contains(r.err, "lost") {
			t.Errorf("stderr does not say why the exit code: %q", r.err)
		}
	})
	t.Run("not received is not loss", func(t *testing.T) {
		res, r := subAgainst(t, "short", 1000, func(url string) { handPublish(t, url, "short", seqRange(1, 600)) }, "--idle-timeout", "500ms")
		if c := group(t, res, "sub").Aggregate.Correctness; c == nil || c.Lost != 0 || c.NotReceived != 400 {
			t.Fatalf("correctness %+v, want lost 0, not received 400", c)
		}
		if r.code != exitOK {
			t.Fatalf("exit %d, want 0: a publisher that sent less is no loss; stderr %s", r.code, r.err)
		}
	})
}

// TestExitCodeVerifyLoss: pubsub --verify whose slow subscriber dropped messages (the client
// library's count is the reference) exits with exitLoss.
func TestExitCodeVerifyLoss(t *testing.T) {
	s := startServer(t, nil)
	res, r := runJSON(context.Background(), t, "pubsub", "slowx", "-s", s.ClientURL(), "--msgs", "3000", "--size", "64",
		"--sub-sleep", "200us", "--pending-msgs", "100", "--idle-timeout", "500ms", "--verify")
	sub := group(t, res, "sub").Aggregate
	if sub.Events.Dropped == 0 || res.Verify == nil || res.Verify.Lost != sub.Events.Dropped {
		t.Fatalf("dropped %d, verify %+v: want drops reported as lost", sub.Events.Dropped, res.Verify)
	}
	if r.code != exitLoss {
		t.Fatalf("exit %d, want %d; stderr %s", r.code, exitLoss, r.err)
	}
}

// TestExitCodeCompare: a regression exits exitRegression; a missing or unreadable file is a
// failed command (1), not bad usage (2).
func TestExitCodeCompare(t *testing.T) {
	s := startServer(t, nil)
	dir := t.TempDir()
	old, slower := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
	if r := run(context.Background(), t, nil, "pub", "cmpexit", "-s", s.ClientURL(), "--msgs", "2000", "--no-progress", "-o", old); r.code != 0 {
		t.Fatalf("pub exit %d: %s", r.code, r.err)
	}
	res, err := result.ReadFile(old)
	if err != nil {
		t.Fatal(err)
	}
	for i := range res.Groups { // the same run at half the rate: a regression of 50%
		a := &res.Groups[i].Aggregate
		a.MsgsPerSec /= 2
		a.BytesPerSec /= 2
	}
	if err := result.WriteFile(slower, res); err != nil {
		t.Fatal(err)
	}
	if r := run(context.Background(), t, nil, "compare", old, slower, "--fail-on-regression", "10"); r.code != exitRegression {
		t.Fatalf("regression: exit %d, want %d\n%s\n%s", r.code, exitRegression, r.out, r.err)
	}
	if r := run(context.Background(), t, nil, "compare", old, old, "--fail-on-regression", "10"); r.code != exitOK {
		t.Fatalf("no regression: exit %d, want 0\n%s", r.code, r.err)
	}
	garbled := filepath.Join(dir, "garbled.json")
	if err := os.WriteFile(garbled, []byte("{not json"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want int
	}{
		{[]string{old, filepath.Join(dir, "missing.json")}, exitFailed}, // a file error
		{[]string{t.TempDir(), old}, exitFailed},                        // a directory without index.json
		{[]string{garbled, old}, exitUsage},                             // not a Result: bad input, as for report
	} {
		if r := run(context.Background(), t, nil, append([]string{"compare"}, tt.args...)...); r.code != tt.want {
			t.Errorf("compare %v: exit %d, want %d: %s", tt.args, r.code, tt.want, r.err)
		}
	}
}

// TestExitCodeScenarioLoss: a scenario whose runs completed but one of them lost messages (a
// slow subscriber that the client library dropped messages for) exits with exitLoss, and the
// index says which run.
func TestExitCodeScenarioLoss(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	const sc = `name: lossy
target: {embedded: {nodes: 1}}
workloads:
  - name: slow
    command: pubsub slow.x --pub 1 --sub 1
    flags: {msgs: 3000, size: 64, sub-sleep: 200us, pending-msgs: 100, idle-timeout: 500ms}
`
	if err := os.WriteFile(file, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := run(context.Background(), t, nil, "run", file, "-o", out)
	ix, err := scenario.ReadIndex(out)
	if err != nil {
		t.Fatalf("exit %d, %s: %v", r.code, r.err, err)
	}
	ir := ix.Cells[0].Runs[0]
	res, err := result.ReadFile(filepath.Join(out, ir.Result))
	if err != nil {
		t.Fatal(err)
	}
	sub := group(t, res, "slow1/sub").Aggregate
	if sub.Events.Dropped == 0 || sub.Correctness == nil || sub.Correctness.Lost != sub.Events.Dropped {
		t.Fatalf("dropped %d, correctness %+v: want the drops counted as lost", sub.Events.Dropped, sub.Correctness)
	}
	if ir.Lost != sub.Events.Dropped {
		t.Errorf("index run lost %d, want %d", ir.Lost, sub.Events.Dropped)
	}
	if r.code != exitLoss || !strings.Contains(r.err, "1 run(s) lost messages") {
		t.Fatalf("exit %d, want %d\n%s\n%s", r.code, exitLoss, r.out, r.err)
	}
}
