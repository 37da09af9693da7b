package cli

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
)

// TestSizeAboveMaxPayloadRefusedUpFront: a --size the server's INFO says it will not take is
// refused before any stream is created or any client starts (no start line), in one line, as
// bad input; a size the server takes still runs.
func TestSizeAboveMaxPayloadRefusedUpFront(t *testing.T) {
	s := startServer(t, func(o *server.Options) { o.MaxPayload = 4096 })
	for _, args := range [][]string{
		{"pub", "big", "--size", "8KB", "--msgs", "10"},
		{"pubsub", "big", "--size", "8KB", "--msgs", "10"},
		{"js", "pub", "sync", "big", "--stream", "bigpayload", "--create", "--size", "8KB", "--msgs", "10"},
		{"kv", "put", "--bucket", "bigpayload", "--size", "8KB", "--msgs", "10"},
	} {
		r := run(context.Background(), t, nil, append(args, "-s", s.ClientURL())...)
		if r.code != exitUsage || !strings.Contains(r.err, "larger than the server's max_payload (4.0 KiB)") || strings.Count(r.err, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 and one line naming max_payload", args, r.code, r.err)
		}
		if strings.Contains(r.out, "Starting") {
			t.Errorf("%v: clients started before the refusal:\n%s", args, r.out)
		}
	}
	js := natstest.JetStream(t, s.ClientURL())
	if _, err := js.Stream(context.Background(), "bigpayload"); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Errorf("the refused js run created its stream (err %v)", err)
	}
	if _, err := js.KeyValue(context.Background(), "bigpayload"); !errors.Is(err, jetstream.ErrBucketNotFound) {
		t.Errorf("the refused kv run created its bucket (err %v)", err)
	}
	if r := run(context.Background(), t, nil, "pub", "big", "-s", s.ClientURL(), "--size", "4KB", "--msgs", "10"); r.code != 0 {
		t.Errorf("--size at the limit: exit %d, %s", r.code, r.err)
	}
}
