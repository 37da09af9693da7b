package engine

import (
	"math/rand/v2"
	"testing"

	"github.com/natsperf/natsperf/internal/stamp"
)

// payloadKept tells a payload S2 shrinks from one it cannot: both fillers compress across a
// block's messages (also when a message is nearly all stamp), a fresh random body per message
// does not.
func TestPayloadKept(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	random := func(b []byte, _ int) {
		for i := range b {
			b[i] = byte(rng.Uint32())
		}
	}
	for _, tc := range []struct {
		name    string
		size    int
		message func([]byte, int)
		lo, hi  float64
	}{
		{"text 1 KiB", 1024, stamped(stamp.FillText, 1024), 0, 0.2},
		{"zeros 1 KiB", 1024, stamped(stamp.FillZeros, 1024), 0, 0.1},
		{"text 64 B", 64, stamped(stamp.FillText, 64), 0, 0.6},
		{"all stamp 16 B", 16, stamped(stamp.FillText, 16), 0, incompressible},
		{"random per message 1 KiB", 1024, random, incompressible, 1.1},
	} {
		if kept := payloadKept(tc.size, tc.message); kept < tc.lo || kept > tc.hi {
			t.Errorf("%s: S2 keeps %.2f, want %.2f to %.2f", tc.name, kept, tc.lo, tc.hi)
		}
	}
	if kept := payloadKept(0, nil); kept != 1 {
		t.Errorf("an empty payload: kept %.2f, want 1", kept)
	}
}
