package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
)

// TestScenarioVerifyAndFault: --verify and --fault inside a scenario workload (issue 11), as
// examples/failover.yaml runs them. Two instances publish (js pub async) to one R3 stream on the embedded 3-node cluster while its leader is killed
// and restarted. The faults run once (not once per instance), the read-back covers both
// instances' publishers, and its figures agree with the stream's state as the server reports
// it: every stored copy is one of the run's messages (stored + duplicates), none acked is
// missing.
func TestScenarioVerifyAndFault(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a cluster node: about 10s")
	}
	dir := t.TempDir()
	file := filepath.Join("..", "..", "examples", "failover.yaml") // the example, as written
	out := filepath.Join(dir, "out")
	r := run(context.Background(), t, nil, "run", file, "-o", out)
	ix, err := scenario.ReadIndex(out)
	if err != nil {
		t.Fatalf("exit %d\n%s\n%s: %v", r.code, r.out, r.err, err)
	}
	res, err := result.ReadFile(filepath.Join(out, ix.Cells[0].Runs[0].Result))
	if err != nil {
		t.Fatal(err)
	}
	v, f := res.Verify, res.Faults
	// Exit 5 is natsperf saying the publishers had not recovered by the run's end: on a busy
	// machine the election after the kill can outlast the 2.5s left (CI once: nothing acked
	// from the kill at 1.5s to the end at 4s). It must then be the fault's doing: the
	// stretch without an ack began at the kill or after it.
	switch n := res.NotRecovered(); {
	case r.code == 5 && n != nil && f != nil && len(f.Timeline) > 0 && n.From >= f.Timeline[0].At-100*time.Millisecond:
		t.Logf("not recovered by the end on this machine: %s %d without an ack from %v to %v", n.Group, n.Client, n.From, n.To)
	case r.code != 0:
		t.Fatalf("exit %d, stop %+v, not recovered %+v\n%s\n%s", r.code, res.Stop, n, r.out, r.err)
	}
	if v == nil || f == nil {
		t.Fatalf("verify %+v, faults %+v: want both in the Result", v, f)
	}
	if len(f.Timeline) != 2 || f.Timeline[0].Error != "" || f.Timeline[1].Error != "" || f.Timeline[0].Node == "" {
		t.Fatalf("timeline %+v: want the kill and the restart, once each", f.Timeline)
	}
	if v.Error != "" || v.AckedButMissing != 0 || v.Acked == 0 || v.Stored < v.Acked || len(v.Publishers) != 2 {
		t.Fatalf("verify %+v: want both instances' acknowledged messages stored", *v)
	}
	if len(res.Streams) != 1 || res.Streams[0].Name != "orders" {
		t.Fatalf("streams %+v: want orders once", res.Streams)
	}
	st := res.Streams[0]
	if got := int64(st.Messages); got != v.Stored+v.Duplicates {
		t.Errorf("stream orders holds %d messages, the read-back found %d stored + %d duplicates", got, v.Stored, v.Duplicates)
	}
	if st.Published != v.Acked {
		t.Errorf("stream state: %d published (acked), read-back: %d acked", st.Published, v.Acked)
	}
	for _, name := range []string{"pod1/pub", "pod2/pub"} {
		group(t, res, name)
	}
}

// TestScenarioSetupKeepAndForeignStream: a cell's setup runs in the engine now. The stream it
// creates is deleted after the run, or kept with --keep (then replaced, empty, by the next
// run); a stream natsperf did not create is used as it is, with a warning, and never deleted.
func TestScenarioSetupKeepAndForeignStream(t *testing.T) {
	srv := startServer(t, nil)
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx := context.Background()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "theirs", Subjects: []string{"theirs.>"}, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	sc := `name: setup
target: {servers: "` + srv.ClientURL() + `"}
setup:
  streams:
    - {name: "ours", subjects: ["ours.>"], storage: memory}
    - {name: "theirs", subjects: ["theirs.>"], storage: memory}
workloads:
  - name: a
    command: js pub async ours.x --stream ours
    flags: {msgs: 300, size: 32}
  - name: b
    command: js pub async theirs.x --stream theirs
    flags: {msgs: 200, size: 32}
`
	if err := os.WriteFile(file, []byte(sc), 0o644); err != nil {
		t.Fatal(err)
	}
	msgs := func(name string) (uint64, bool) {
		s, err := js.Stream(ctx, name)
		if err != nil {
			return 0, false
		}
		return s.CachedInfo().State.Msgs, true
	}
	for i, keep := range []bool{true, true, false} {
		args := []string{"run", file, "-o", filepath.Join(dir, fmt.Sprint("out", i))}
		if keep {
			args = append(args, "--keep")
		}
		r := run(ctx, t, nil, args...)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d\n%s\n%s", i, r.code, r.out, r.err)
		}
		n, ok := msgs("ours")
		if keep && (!ok || n != 300) {
			t.Fatalf("run %d with --keep: stream ours has %d messages (exists %v), want 300: replaced empty, then this run's", i, n, ok)
		}
		if !keep && ok {
			t.Fatalf("run %d without --keep: stream ours was not deleted", i)
		}
		if n, ok := msgs("theirs"); !ok || n != uint64(200*(i+1)) {
			t.Fatalf("run %d: stream theirs has %d messages (exists %v), want %d: used as it is, never replaced", i, n, ok, 200*(i+1))
		}
		ix, err := scenario.ReadIndex(filepath.Join(dir, fmt.Sprint("out", i)))
		if err != nil {
			t.Fatal(err)
		}
		res, err := result.ReadFile(filepath.Join(dir, fmt.Sprint("out", i), ix.Cells[0].Runs[0].Result))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Contains(res.Warnings, "stream theirs exists and was not created by natsperf: used as it is") {
			t.Fatalf("run %d: warnings %q", i, res.Warnings)
		}
	}
}
