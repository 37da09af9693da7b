package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/result"
)

// blocksOnDisk is what stream's message blocks take in a server's store directory.
func blocksOnDisk(t *testing.T, storeDir, stream string) int64 {
	t.Helper()
	blocks, err := filepath.Glob(filepath.Join(storeDir, "jetstream", "*", "streams", stream, "msgs", "*.blk"))
	if err != nil {
		t.Fatal(err)
	}
	var n int64
	for _, b := range blocks {
		if fi, err := os.Stat(b); err == nil {
			n += fi.Size()
		}
	}
	return n
}

// TestCompressionS2ShrinksTheStore: js pub with --compression s2 and a compressible payload
// (--payload-fill zeros) on a real server: the stream's blocks on disk are a fraction of what
// the same run leaves without compression, the Result says s2 from the stream's config, and
// every message reads back intact (stamp and filler). --maxbytes 120kb makes the server's
// blocks 32 KB, so most of them are full, and compressed, after 100 messages of 1 KiB.
func TestCompressionS2ShrinksTheStore(t *testing.T) {
	dir := t.TempDir()
	s := natstest.Server(t, func(o *server.Options) { o.StoreDir = dir })
	const msgs, size = 100, 1024
	disk := map[string]int64{}
	for _, comp := range []string{"none", "s2"} {
		name := "CMP_" + strings.ToUpper(comp)
		res, r := runJSON(context.Background(), t, "js", "pub", "async", "cmp."+comp, "-s", s.ClientURL(), "--stream", name, "--create",
			"--compression", comp, "--payload-fill", "zeros", "--maxbytes", "120kb", "--msgs", "100", "--size", "1kb")
		if r.code != 0 {
			t.Fatalf("%s: exit %d: %s", comp, r.code, r.err)
		}
		st := streamState(t, res, name)
		if st.Compression != comp || st.Messages != msgs || st.DiskBytes != 0 {
			t.Fatalf("%s: stream state %+v: want compression %s, %d messages and no bytes on disk (not natsperf's server)", comp, st, comp, msgs)
		}
		if srv := res.Servers[0]; srv.Encryption != result.EncryptionUnknown {
			t.Fatalf("a server natsperf did not start: encryption %q, want unknown", srv.Encryption)
		}
		// The server compresses a block once it is full, in the background.
		natstest.Eventually(t, 10*time.Second, 50*time.Millisecond, func() error {
			disk[comp] = blocksOnDisk(t, dir, name)
			if comp == "s2" && disk[comp]*3 > disk["none"] {
				return fmt.Errorf("s2: %d bytes on disk, not under a third of %d without compression", disk[comp], disk["none"])
			}
			return nil
		})
		readBack(t, natstest.JetStream(t, s.ClientURL()), name, msgs, size)
	}
	t.Logf("on disk: none %d B, s2 %d B", disk["none"], disk["s2"])
}

// readBack gets every message of stream and checks it is what a zeros-filled publisher sent:
// size bytes, a stamp with sequences 1..msgs, zeros after it.
func readBack(t *testing.T, js jetstream.JetStream, stream string, msgs, size int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	str, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	seen := map[uint64]bool{}
	for i := 1; i <= msgs; i++ {
		m, err := str.GetMsg(ctx, uint64(i))
		if err != nil {
			t.Fatalf("%s: get %d: %v", stream, i, err)
		}
		if len(m.Data) != size {
			t.Fatalf("%s: message %d is %d bytes, want %d", stream, i, len(m.Data), size)
		}
		_, seq, _, ok := stamp.Get(m.Data)
		if !ok || seen[seq] {
			t.Fatalf("%s: message %d: stamp ok %v, sequence %d (seen before: %v)", stream, i, ok, seq, seen[seq])
		}
		seen[seq] = true
		for j := stamp.ExtSize; j < size; j++ {
			if m.Data[j] != 0 {
				t.Fatalf("%s: message %d: byte %d is %#x, want the zero filler", stream, i, j, m.Data[j])
			}
		}
	}
}
