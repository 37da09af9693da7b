package cli

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/scenario"
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
	if r.code != 0 {
		t.Fatalf("exit %d, stop %+v\n%s\n%s", r.code, res.Stop, r.out, r.err)
	}
	v, f := res.Verify, res.Faults
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
