package rustclient

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

func streamInfo(t *testing.T, j jetstream.JetStream, name string) *jetstream.StreamInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s, err := j.Stream(ctx, name)
	if err != nil {
		t.Fatalf("stream %s: %v", name, err)
	}
	return s.CachedInfo()
}

// TestRustJSPubAsyncCreatesAndCounts: natsperf-rust js pub async --create makes the stream
// (marked as natsperf's) and publishes into it from two clients in windows; the stream's own
// state (messages, last sequence) equals the acks the Result counted, and the Result's stream
// state says the same.
func TestRustJSPubAsyncCreatesAndCounts(t *testing.T) {
	bin := rustBin(t)
	s := natstest.Server(t, nil)
	const n = 6000
	p := startRust(t, bin, "js", "pub", "async", "jsr.async", "-s", s.ClientURL(), "--stream", "RUSTASYNC", "--create",
		"--storage", "memory", "--msgs", strconv.Itoa(n), "--clients", "2", "--batch", "100", "--size", "64")
	code, res, doc := p.wait(t)
	checkSchema(t, doc)
	if code != 0 || res.Stop.Reason != result.StopCompleted || res.Command != "js pub async" {
		t.Fatalf("exit %d stop %+v command %q; stderr %s", code, res.Stop, res.Command, p.stderr.String())
	}
	info := streamInfo(t, natstest.JetStream(t, s.ClientURL()), "RUSTASYNC")
	g := res.Groups[0]
	if g.Aggregate.Msgs != n || info.State.Msgs != uint64(g.Aggregate.Msgs) || info.State.LastSeq != uint64(g.Aggregate.Msgs) {
		t.Fatalf("acked %d; stream holds %d, last seq %d; want %d each", g.Aggregate.Msgs, info.State.Msgs, info.State.LastSeq, n)
	}
	if !js.Marked(info.Config.Metadata) || info.Config.Storage != jetstream.MemoryStorage {
		t.Fatalf("stream config %+v: want natsperf's mark and memory storage", info.Config)
	}
	if l := g.Aggregate.Latency; l == nil || l.Count != n {
		t.Fatalf("latency %+v, want one publish-to-ack sample per ack", l)
	}
	checkHistogram(t, g.Aggregate.Latency)
	if len(res.Streams) != 1 || res.Streams[0].Messages != n || res.Streams[0].Published != n || !res.Streams[0].CreatedByNatsperf {
		t.Fatalf("Result streams %+v", res.Streams)
	}
}

// TestRustJSPubAsyncLeavesOthersStreams: a stream natsperf did not create is used as it is,
// with a warning, and keeps what it held; a missing one is not created without --create.
func TestRustJSPubAsyncLeavesOthersStreams(t *testing.T) {
	bin := rustBin(t)
	s := natstest.Server(t, nil)
	j := natstest.JetStream(t, s.ClientURL())
	ctx := context.Background()
	if _, err := j.CreateStream(ctx, jetstream.StreamConfig{Name: "THEIRS", Subjects: []string{"theirs.>"}, Storage: jetstream.MemoryStorage}); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		if _, err := j.Publish(ctx, "theirs.old", []byte(strconv.Itoa(i))); err != nil {
			t.Fatal(err)
		}
	}
	p := startRust(t, bin, "js", "pub", "async", "theirs.new", "-s", s.ClientURL(), "--stream", "THEIRS", "--create", "--msgs", "500", "--rate", "5000")
	code, res, _ := p.wait(t)
	if code != 0 || res.Groups[0].Aggregate.Msgs != 500 {
		t.Fatalf("exit %d, acked %d; stderr %s", code, res.Groups[0].Aggregate.Msgs, p.stderr.String())
	}
	info := streamInfo(t, j, "THEIRS")
	if info.State.Msgs != 510 || js.Marked(info.Config.Metadata) {
		t.Fatalf("stream holds %d (want its 10 and the run's 500), metadata %v (want it untouched)", info.State.Msgs, info.Config.Metadata)
	}
	if len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "natsperf did not create") {
		t.Fatalf("warnings %q", res.Warnings)
	}
	// At a fixed rate the acks carry the latency from the intended send, with the uncorrected one.
	if l := res.Groups[0].Aggregate.Latency; l == nil || l.Uncorrected == nil || res.Groups[0].TargetRate != 5000 {
		t.Fatalf("paced run: latency %+v target %v", l, res.Groups[0].TargetRate)
	}

	missing := startRust(t, bin, "js", "pub", "async", "nobody", "-s", s.ClientURL(), "--stream", "NOBODY", "--msgs", "10")
	if err := <-missing.done; err == nil || !strings.Contains(missing.stderr.String(), "pass --create") {
		t.Fatalf("missing stream without --create: %v, stderr %q; want a failure naming --create", err, missing.stderr.String())
	}
	missing.done <- nil
	if _, err := j.Stream(ctx, "NOBODY"); err == nil {
		t.Fatal("stream NOBODY was created without --create")
	}
}
