package cli

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/natsperf/natsperf/internal/natstest"
)

// TestJSPubFast: js pub fast publishes each client's share as one fast batch; what the server
// stored (its stream state, read after the run, and --verify's read-back) equals what was
// acked, every message has a latency, and the flow window and outstanding acks are echoed.
// With --payload the stamp rides in the header and --verify still finds every message.
func TestJSPubFast(t *testing.T) {
	s := startServer(t, nil)
	file := filepath.Join(t.TempDir(), "body.json")
	if err := os.WriteFile(file, []byte(`{"order":42,"items":["a","b"]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		extra []string
	}{
		{"stamped payload", []string{"--size", "64"}},
		{"payload file", []string{"--payload", file}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			stream := "fast_" + map[bool]string{true: "file", false: "stamp"}[tt.extra[0] == "--payload"]
			args := append([]string{"js", "pub", "fast", stream + ".in", "--create", "--stream", stream, "--storage", "memory",
				"--clients", "3", "--msgs", "3000", "--batch", "50", "--max-outstanding-acks", "2", "--verify"}, tt.extra...)
			res, r := runJSON(context.Background(), t, at(s, args...)...)
			if r.code != exitOK {
				t.Fatalf("exit %d: %s", r.code, r.err)
			}
			g := group(t, res, "pub").Aggregate
			if g.Msgs != 3000 || g.Latency == nil || g.Latency.Count != 3000 {
				t.Fatalf("pub: %d msgs, latency %+v; want 3000 acked, each with a latency", g.Msgs, g.Latency)
			}
			if len(res.Streams) != 1 || res.Streams[0].Messages != 3000 || res.Streams[0].Published != 3000 {
				t.Fatalf("stream state %+v: want 3000 stored = 3000 acked", res.Streams)
			}
			info, err := natstest.JetStream(t, s.ClientURL()).Stream(context.Background(), stream)
			if err != nil || info.CachedInfo().State.Msgs != 3000 {
				t.Fatalf("the server's own stream info: %v, %+v", err, info)
			}
			v := res.Verify
			if v == nil || v.Acked != 3000 || v.Stored != 3000 || v.AckedButMissing != 0 || v.Duplicates != 0 {
				t.Fatalf("verify %+v: want 3000 acked and found", v)
			}
			ws := decodeSettings(t, res)["workload"]
			if findKey(ws, "batch") != float64(50) || findKey(ws, "max_outstanding_acks") != float64(2) {
				t.Errorf("settings %v: want batch 50 and max_outstanding_acks 2", ws)
			}
		})
	}
}
