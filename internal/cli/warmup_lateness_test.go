//go:build unix

package cli

import (
	"strconv"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

// TestWarmupJSPubAsyncPacedLateness: `natsperf js pub async` at a fixed rate with a warm-up
// (Go's engine and natsperf-rust): the stream holds every message sent (the server's count,
// the warm-up's included), the send lateness has one value per publish counted (a publish
// sent in the warm-up is left out with its lateness, whenever its ack comes) and the rate is
// never above the one asked.
func TestWarmupJSPubAsyncPacedLateness(t *testing.T) {
	s := natstest.Server(t, nil)
	const rate, d, warmup = 1000, 1500 * time.Millisecond, 500 * time.Millisecond
	for _, client := range []string{"go", "rust"} {
		t.Run(client, func(t *testing.T) {
			stream := "WARMUP" + client
			args := []string{"js", "pub", "async", "warmup." + client, "-s", s.ClientURL(), "--stream", stream, "--create", "--maxbytes", "8MiB", "--storage", "memory",
				"--clients", "2", "--batch", "20", "--rate", strconv.Itoa(rate), "--duration", d.String(), "--warmup", warmup.String(), "--size", "32"}
			if client == "rust" {
				args = append(args, "--client", "rust", "--client-bin", rustBinary(t))
			}
			res := rustRun(t, args...)
			g := res.Groups[0]
			a := g.Aggregate
			held := madeStream(t, s.ClientURL(), stream).State.Msgs
			span := a.End.Sub(a.Start)
			t.Logf("%s: counted %d of the %d the stream holds over %v: %.1f msgs/s", client, a.Msgs, held, span, a.MsgsPerSec)
			if res.Stop.Reason != result.StopCompleted || held != uint64(rate*d.Seconds()) {
				t.Fatalf("stop %q, the stream holds %d: want completed, %d", res.Stop.Reason, held, int(rate*d.Seconds()))
			}
			natstest.LatenessPerMsg(t, g)
			if want := int64(rate * (d - warmup).Seconds()); a.Msgs < want*9/10 || a.Msgs > want+rate/10 {
				t.Fatalf("counted %d after the warm-up, want about %d", a.Msgs, want)
			}
			if a.MsgsPerSec > rate*1.001 || float64(a.Msgs) > span.Seconds()*rate+2 {
				t.Fatalf("%d publishes over %v: %.1f msgs/s, above the %d asked", a.Msgs, span, a.MsgsPerSec, rate)
			}
		})
	}
}
