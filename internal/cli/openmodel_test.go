package cli

import (
	"context"
	"testing"
)

// TestOpenModelSyncPublishesAndPuts: js pub sync and kv put at a fixed rate run in the open
// model (the Result's events name its bound), and every publish is accounted for by the
// server: --verify finds each acknowledged sequence stored and nothing stored unacknowledged, with message ids
// (--dedup) rewritten per publish in place; the KV bucket's stream stored every put counted.
func TestOpenModelSyncPublishesAndPuts(t *testing.T) {
	s := startServer(t, nil)
	res, r := runJSON(context.Background(), t, "js", "pub", "sync", "open.sync", "-s", s.ClientURL(), "--create", "--storage", "memory",
		"--stream", "OPENSYNC", "--maxbytes", "16MiB", "--rate", "2000", "--duration", "1s", "--clients", "2", "--dedup", "--verify", "--slo", "p99<200ms")
	if r.code != 0 {
		t.Fatalf("js pub sync: exit %d\n%s", r.code, r.err)
	}
	g := res.Groups[0]
	if g.Aggregate.Events.MaxInflight != 800 || g.Aggregate.Msgs < 1000 {
		t.Fatalf("js pub sync: events %+v, %d msgs: want a bound of 2,000/s x 2 x 200ms and about 2,000 acks", g.Aggregate.Events, g.Aggregate.Msgs)
	}
	v := res.Verify
	if v == nil || v.Acked != g.Aggregate.Msgs || v.Stored != v.Acked || v.AckedButMissing != 0 || v.StoredNotAcked != 0 || v.Duplicates != 0 {
		t.Fatalf("js pub sync: verify %+v with %d acks counted", v, g.Aggregate.Msgs)
	}
	if l := g.Aggregate.Latency; l == nil || l.Uncorrected == nil || l.Count != g.Aggregate.Msgs {
		t.Fatalf("js pub sync: latency %+v: want one per ack, from the intended and the actual sends", l)
	}
	res, r = runJSON(context.Background(), t, "kv", "put", "-s", s.ClientURL(), "--bucket", "openkv", "--storage", "memory", "--maxbytes", "16MiB",
		"--rate", "2000", "--duration", "1s", "--max-inflight", "50")
	if r.code != 0 {
		t.Fatalf("kv put: exit %d\n%s", r.code, r.err)
	}
	g = res.Groups[0]
	if g.Aggregate.Events.MaxInflight != 50 || g.Aggregate.Latency == nil || g.Aggregate.Latency.Uncorrected == nil {
		t.Fatalf("kv put: events %+v, latency %+v: want the bound of --max-inflight 50, latency both ways", g.Aggregate.Events, g.Aggregate.Latency)
	}
	for _, st := range res.Streams {
		if st.Name == "KV_openkv" && int64(st.Messages) != g.Aggregate.Msgs {
			t.Fatalf("kv put: the bucket stored %d, the putters counted %d", st.Messages, g.Aggregate.Msgs)
		}
	}
}
