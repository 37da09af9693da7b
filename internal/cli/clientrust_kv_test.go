//go:build unix

package cli

import (
	"context"
	"encoding/json"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/link"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

// bucketStream is the state of a KV bucket's stream, read from the server.
func bucketStream(t *testing.T, url, bucket string) *jetstream.StreamInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := natstest.JetStream(t, url).Stream(ctx, "KV_"+bucket)
	if err != nil {
		t.Fatalf("KV bucket %s: %v", bucket, err)
	}
	return st.CachedInfo()
}

// TestClientRustKVPut: `natsperf kv put --client rust` creates the bucket (marked as
// natsperf's, with the storage and history asked) and puts through async-nats's KV API: the
// bucket's stream stored exactly the puts the Result acknowledged (its last sequence and its
// messages: keys 0..n-1, one each), every put has its round trip, and the Result's stream
// state says the same. A second run with --randomize into the same bucket (natsperf's, so no
// --force) adds exactly its acknowledged puts.
func TestClientRustKVPut(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	const n = 3000
	res := rustRun(t, "kv", "put", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin, "--bucket", "RUSTKV",
		"--storage", "memory", "--history", "2", "--msgs", strconv.Itoa(n), "--clients", "3", "--size", "64")
	checkRustClients(t, res)
	g := res.Groups[0]
	a := g.Aggregate
	if res.Command != "kv put" || g.Kind != "JetStream KV putter" || res.Stop.Reason != result.StopCompleted {
		t.Fatalf("command %q, group kind %q, stop %+v", res.Command, g.Kind, res.Stop)
	}
	info := bucketStream(t, s.ClientURL(), "RUSTKV")
	if a.Msgs != n || a.Events.Errors != 0 || a.Events.Timeouts != 0 || info.State.Msgs != n || info.State.LastSeq != n {
		t.Fatalf("acked %d (errors %d, timeouts %d); the bucket holds %d, last sequence %d: want %d each", a.Msgs, a.Events.Errors, a.Events.Timeouts, info.State.Msgs, info.State.LastSeq, n)
	}
	if a.Latency == nil || a.Latency.Count != n || a.Latency.At(50) <= 0 {
		t.Fatalf("latency %+v: want one round trip per put", a.Latency)
	}
	if c := info.Config; !js.Marked(c.Metadata) || c.Storage != jetstream.MemoryStorage || c.MaxMsgsPerSubject != 2 || !c.AllowDirect {
		t.Fatalf("bucket config %+v: want natsperf's mark, memory storage, history 2 and direct gets", c)
	}
	if len(res.Streams) != 1 || res.Streams[0].Bucket != "RUSTKV" || res.Streams[0].Published != n || res.Streams[0].Messages != n || !res.Streams[0].CreatedByNatsperf {
		t.Fatalf("Result streams %+v", res.Streams)
	}

	const more = 500
	res = rustRun(t, "kv", "put", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin, "--bucket", "RUSTKV",
		"--randomize", "10", "--msgs", strconv.Itoa(more), "--size", "64")
	info = bucketStream(t, s.ClientURL(), "RUSTKV")
	if a := res.Groups[0].Aggregate; res.Stop.Reason != result.StopCompleted || a.Msgs != more || info.State.LastSeq != n+more {
		t.Fatalf("stop %+v, acked %d; last sequence %d: want %d more puts stored after %d", res.Stop, a.Msgs, info.State.LastSeq, more, n)
	}
	// Keys 0..9 keep their last two values (history 2), the others theirs.
	if info.State.Msgs > n+10 {
		t.Fatalf("the bucket holds %d messages: --randomize 10 put keys beyond 0..9", info.State.Msgs)
	}
}

// TestClientRustKVGet: `natsperf kv get --client rust` fills a bucket it creates with the
// keys first (setup, not measured) and then gets each once: every get found its value of
// --size bytes, and the bucket holds only the fill.
func TestClientRustKVGet(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	const n = 2000
	res := rustRun(t, "kv", "get", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin, "--bucket", "RUSTGET",
		"--storage", "memory", "--msgs", strconv.Itoa(n), "--clients", "2", "--size", "100")
	checkRustClients(t, res)
	g := res.Groups[0]
	a := g.Aggregate
	if res.Command != "kv get" || g.Kind != "JetStream KV getter" || res.Stop.Reason != result.StopCompleted {
		t.Fatalf("command %q, group kind %q, stop %+v", res.Command, g.Kind, res.Stop)
	}
	if a.Msgs != n || a.Bytes != n*100 || a.Events.Errors != 0 || a.Latency == nil || a.Latency.Count != n {
		t.Fatalf("got %d values, %d bytes, errors %d, latency %+v: want %d values of 100 bytes", a.Msgs, a.Bytes, a.Events.Errors, a.Latency, n)
	}
	if info := bucketStream(t, s.ClientURL(), "RUSTGET"); info.State.Msgs != n || info.State.LastSeq != n {
		t.Fatalf("the bucket holds %d, last sequence %d: want the fill's %d", info.State.Msgs, info.State.LastSeq, n)
	}
}

// TestClientRustKVLeavesOthersBuckets: a bucket natsperf did not create (no created-by mark) is
// never written without --force: kv put is refused before anything is put (exit 1, naming
// --force), and kv get does not fill its missing keys: it warns, and each get of a missing key
// counts as an error, the others as gets.
func TestClientRustKVLeavesOthersBuckets(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	ctx := context.Background()
	kv, err := natstest.JetStream(t, s.ClientURL()).CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "THEIRS", Storage: jetstream.MemoryStorage})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := kv.Put(ctx, strconv.Itoa(i), []byte("theirs")); err != nil {
			t.Fatal(err)
		}
	}
	r := run(ctx, t, nil, "kv", "put", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin, "--bucket", "THEIRS", "--msgs", "100")
	if r.code == 0 || !strings.Contains(r.err, "refusing to put") || !strings.Contains(r.err, "--force") {
		t.Fatalf("exit %d, stderr %q: want a refusal naming --force", r.code, r.err)
	}
	if info := bucketStream(t, s.ClientURL(), "THEIRS"); info.State.LastSeq != 10 {
		t.Fatalf("their bucket's last sequence is %d after a refused put, want 10", info.State.LastSeq)
	}
	res := rustRun(t, "kv", "get", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin, "--bucket", "THEIRS", "--msgs", "25")
	a := res.Groups[0].Aggregate
	if a.Msgs != 10 || a.Events.Errors != 15 {
		t.Fatalf("got %d values and %d errors: want keys 0..9 found and 10..24 counted as errors", a.Msgs, a.Events.Errors)
	}
	if !strings.Contains(strings.Join(res.Warnings, "\n"), "lacks some of the keys") {
		t.Fatalf("warnings %q: want the missing keys named", res.Warnings)
	}
	if info := bucketStream(t, s.ClientURL(), "THEIRS"); info.State.LastSeq != 10 || js.Marked(info.Config.Metadata) {
		t.Fatalf("their bucket: last sequence %d, metadata %v: want it untouched", info.State.LastSeq, info.Config.Metadata)
	}
}

// TestClientRustKVPutOpenModel: `kv put --client rust` at a fixed rate keeps its schedule with
// up to --max-inflight puts awaiting acks (the open model), as natsperf's own does. Behind a
// 5ms link (each way) every ack takes at least 10ms, so one client waiting for each ack could store at
// most 2s/10ms = 200 puts in 2s; the open model stores more (400/s offered), exactly the ones
// it counts, and records its bound and latency from the intended and the actual sends.
func TestClientRustKVPutOpenModel(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	l, err := link.Open("rust-kv-open", "127.0.0.1:0", s.Addr().String(), link.Conditions{Delay: 5 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	res := rustRun(t, "kv", "put", "-s", "nats://"+l.Addr(), "--bucket", "RUSTOPEN", "--storage", "memory", "--client", "rust", "--client-bin", bin,
		"--rate", "400", "--duration", "2s", "--max-inflight", "40", "--size", "64")
	checkRustClients(t, res)
	a := res.Groups[0].Aggregate
	if res.Stop.Reason != result.StopCompleted || a.Latency == nil || a.Latency.Uncorrected == nil {
		t.Fatalf("stop %+v, latency %+v", res.Stop, a.Latency)
	}
	p50, u50 := a.Latency.At(50), a.Latency.Uncorrected.At(50)
	t.Logf("%d acks in 2s, P50 %v (from the actual send %v), in flight at most %d, %d waits at the bound", a.Msgs, p50, u50, a.Events.MaxInflight, a.Events.InflightFull)
	if u50 < 10*time.Millisecond || p50 < u50 {
		t.Fatalf("P50 %v from the intended send, %v from the actual one: want both at least the link's 10ms round trip", p50, u50)
	}
	if a.Msgs <= 300 || a.Events.MaxInflight != 40 {
		t.Fatalf("%d acks, max_inflight %d: want more than a closed loop's 200 (1.5x) and the bound 40 recorded", a.Msgs, a.Events.MaxInflight)
	}
	if info := bucketStream(t, s.ClientURL(), "RUSTOPEN"); int64(info.State.LastSeq) != a.Msgs+a.Events.Timeouts+a.Events.Errors || a.Events.Errors != 0 {
		t.Fatalf("the bucket stored %d puts; the Result counts %d acked, %d timed out, %d errors", info.State.LastSeq, a.Msgs, a.Events.Timeouts, a.Events.Errors)
	}
}

// TestCapacityOfKVPutsThroughRust is TestCapacityOfKVPuts through natsperf-rust: the puts its
// probes say they sent are the ones the bucket's stream stored (its last sequence: the
// server's count).
func TestCapacityOfKVPutsThroughRust(t *testing.T) {
	bin := rustBinary(t)
	s := startServer(t, nil)
	r := run(context.Background(), t, nil, "capacity", "kv", "put", "-s", s.ClientURL(), "--bucket", "capkvrust", "--storage", "memory", "--clients", "4", "--size", "16",
		"--client", "rust", "--client-bin", bin,
		"--slo", "rate>=0.9", "--slo", "loss=0", "--min", "100", "--max", "400", "--probe-duration", "500ms", "--warmup", "0s", "--repeats", "1", "--drain", "0s", "--json")
	var o capacity.Outcome
	if err := json.Unmarshal([]byte(r.out), &o); err != nil || r.code != 0 {
		t.Fatalf("exit %d: %v: %s\n%s", r.code, err, r.out, r.err)
	}
	if o.Verdict != capacity.AboveMax || len(o.Probes) != 3 {
		t.Fatalf("verdict %s after %d probes, want above-max after 3 (100, 200, 400/s): %+v", o.Verdict, len(o.Probes), o.Probes)
	}
	var sent int64
	for _, p := range o.Probes {
		sent += p.Sent
	}
	if stored := bucketStream(t, s.ClientURL(), "capkvrust").State.LastSeq; sent != int64(stored) || sent < 300 {
		t.Errorf("the probes sent %d puts, the bucket stored %d", sent, stored)
	}
}

// TestCapacityOfALinkThroughRust is TestCapacityOfALinkAtDefaults's `kv put` through
// natsperf-rust (`--client rust`: async-nats's KV API), against the same reference.
func TestCapacityOfALinkThroughRust(t *testing.T) {
	if testing.Short() {
		t.Skip("a capacity search of about 8 probes")
	}
	bin := rustBinary(t)
	capacityOfALink(t, "kv put rust", []string{"kv", "put", "--bucket", "caplinkrust", "--storage", "memory", "--randomize", "100", "--client", "rust", "--client-bin", bin})
}

// TestClientRustKVPutEndsWhenTheBucketGoes: a bucket deleted under a closed-loop kv put ends
// the run as failed, naming the bucket (no stream answers its puts any more), as natsperf's
// own putter ends, rather than counting errors as fast as the server can refuse them until
// --duration.
func TestClientRustKVPutEndsWhenTheBucketGoes(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	type out struct {
		res  *result.Result
		code int
	}
	done := make(chan out, 1)
	go func() {
		r := run(context.Background(), t, nil, "kv", "put", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin, "--bucket", "GOING",
			"--storage", "memory", "--msgs", "0", "--duration", "60s", "--size", "64", "--ack-timeout", "1s", "--json")
		res, _ := result.Read(strings.NewReader(r.out))
		done <- out{res, r.code}
	}()
	j := natstest.JetStream(t, s.ClientURL())
	ctx := context.Background()
	natstest.WaitFor(t, 30*time.Second, "puts stored in bucket GOING", func() bool {
		st, err := j.Stream(ctx, "KV_GOING")
		return err == nil && st.CachedInfo().State.LastSeq >= 100
	})
	began := time.Now()
	if err := j.DeleteKeyValue(ctx, "GOING"); err != nil {
		t.Fatal(err)
	}
	var o out
	select {
	case o = <-done:
	case <-time.After(45 * time.Second):
		t.Fatal("the run went on after its bucket was deleted")
	}
	if o.code == 0 || o.res == nil || o.res.Stop.Reason != result.StopFailed || !strings.Contains(o.res.Stop.Error, "GOING") {
		t.Fatalf("exit %d, Result %+v: want a failed run naming the bucket", o.code, o.res)
	}
	t.Logf("ended %v after the delete: %s", time.Since(began), o.res.Stop.Error)
}
