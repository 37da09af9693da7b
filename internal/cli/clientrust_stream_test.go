//go:build unix

package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/natstest"
)

// TestClientRustJSStreamAsAsked: the stream natsperf-rust creates for `js pub --client rust`
// has the storage, byte limit and duplicate window the command asks for, as the server
// reports them (natsperf-rust used to create every stream on file, unlimited, and say
// nothing); a second run asking for other settings uses it as it is and warns; a setting
// natsperf-rust cannot make (--persistasync) is refused before the run, exit 2.
func TestClientRustJSStreamAsAsked(t *testing.T) {
	bin := rustBinary(t)
	s := natstest.Server(t, nil)
	res := rustRun(t, "js", "pub", "async", "rs.sub", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin, "--stream", "RS1",
		"--storage", "memory", "--maxbytes", "1MiB", "--dedup-window", "30s", "--msgs", "500", "--no-progress")
	checkRustClients(t, res)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	st, err := natstest.JetStream(t, s.ClientURL()).Stream(ctx, "RS1")
	if err != nil {
		t.Fatalf("stream RS1: %v", err)
	}
	c := st.CachedInfo().Config
	if c.Storage != jetstream.MemoryStorage || c.MaxBytes != 1<<20 || c.Duplicates != 30*time.Second || !js.Marked(c.Metadata) {
		t.Fatalf("stream config: storage %v, max bytes %d, duplicate window %v, marked %v: want memory, 1 MiB, 30s, marked",
			c.Storage, c.MaxBytes, c.Duplicates, js.Marked(c.Metadata))
	}
	if n := st.CachedInfo().State.Msgs; n != 500 || res.Groups[0].Aggregate.Msgs != 500 {
		t.Fatalf("stream holds %d, acked %d: want 500 each", n, res.Groups[0].Aggregate.Msgs)
	}

	again := rustRun(t, "js", "pub", "async", "rs.sub", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin, "--stream", "RS1",
		"--storage", "file", "--msgs", "100", "--no-progress")
	if w := strings.Join(again.Warnings, "\n"); !strings.Contains(w, "storage memory (asked file)") {
		t.Errorf("a second run asking for file storage: warnings %q, want the stream's other storage named", w)
	}

	r := run(context.Background(), t, nil, "js", "pub", "async", "rs.p", "--client", "rust", "--client-bin", bin,
		"-s", s.ClientURL(), "--stream", "RS2", "--persistasync", "--msgs", "10", "--no-progress")
	if r.code != 2 || !strings.Contains(r.err, "--persistasync") {
		t.Errorf("--persistasync through natsperf-rust: exit %d, stderr %q: want exit 2 naming the flag", r.code, r.err)
	}
}
