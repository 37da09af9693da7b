package cli

import (
	"context"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/loop"
)

// TestPacePrecisionBatchesCloserSends: --pace-precision is the least time between two
// wake-ups of the pacer. At 1,000 msgs/s (1ms apart) with a 5ms precision the sends due
// within each 5ms go together, 0 to 4ms late: the Result's send lateness has a median of
// about 2ms, which a busy host can only raise (with the 1ms default each send keeps its own
// time). Every message is still sent, and the flag lasts for its run only.
func TestPacePrecisionBatchesCloserSends(t *testing.T) {
	s := startServer(t, nil)
	res, r := runJSON(context.Background(), t, "pub", "prec.x", "-s", s.ClientURL(), "--rate", "1000", "--duration", "1s", "--pace-precision", "5ms")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	a := group(t, res, "pub").Aggregate
	p50 := time.Duration(histo.At(a.SendLateness, 50))
	t.Logf("sent %d, send lateness P50 %v P99 %v", a.Msgs, p50, time.Duration(histo.At(a.SendLateness, 99)))
	if a.Msgs != 1000 || a.SendLateness == nil || a.SendLateness.Count != 1000 {
		t.Fatalf("sent %d, send lateness %+v: want 1,000 and one each", a.Msgs, a.SendLateness)
	}
	if p50 < 1500*time.Microsecond {
		t.Fatalf("send lateness P50 %v: with a 5ms precision sends 1ms apart wait for their batch (about 2ms)", p50)
	}
	newApp(&Streams{}) // the next command of this process starts from the default
	if loop.Precision() != loop.DefaultPrecision {
		t.Fatalf("a new command starts at precision %v, want the default %v", loop.Precision(), loop.DefaultPrecision)
	}
}
