package cli

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/stamp"
)

// TestPayloadFileArrivesByteForByte: pub --payload FILE sends the file unchanged (a plain
// nats.go subscriber compares every message with it, and sees the -H header), while a natsperf
// subscriber still measures every message's latency and loss from the Natsperf-Stamp header.
func TestPayloadFileArrivesByteForByte(t *testing.T) {
	const n = 2000
	file := filepath.Join(t.TempDir(), "payload.Bin")
	body := make([]byte, 700)
	_, _ = rand.Read(body)
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var got, same, tagged int
	res, r := subAgainstServer(t, "real.payload", n, func(s *server.Server) {
		nc, err := nats.Connect(s.ClientURL())
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		if _, err := nc.Subscribe("real.payload", func(m *nats.Msg) {
			mu.Lock()
			defer mu.Unlock()
			got++
			if bytes.Equal(m.Data, body) {
				same++
			}
			if m.Header.Get("X-Test") == "yes" && len(m.Header.Get(stamp.Header)) == 32 {
				tagged++
			}
		}); err != nil {
			t.Fatal(err)
		}
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
		if pr := run(context.Background(), t, nil, "pub", "real.payload", "-s", s.ClientURL(), "--msgs", "2000", "--payload", file, "-H", "X-Test:yes"); pr.code != exitOK {
			t.Fatalf("pub: exit %d: %s", pr.code, pr.err)
		}
		natstest.Eventually(t, 10*time.Second, 20*time.Millisecond, func() error {
			mu.Lock()
			defer mu.Unlock()
			if got < n {
				return errWaiting
			}
			return nil
		})
	})
	if r.code != exitOK {
		t.Fatalf("sub: exit %d: %s", r.code, r.err)
	}
	mu.Lock()
	if got != n || same != n || tagged != n {
		t.Errorf("plain subscriber: %d messages, %d equal to the file, %d with X-Test and a stamp header; want %d each", got, same, tagged, n)
	}
	mu.Unlock()
	g := group(t, res, "sub").Aggregate
	if c := g.Correctness; c == nil || c.Received != n || c.Lost != 0 {
		t.Fatalf("natsperf sub correctness %+v: want %d received from the header stamps, none lost", c, n)
	}
	if g.Latency == nil || g.Latency.Count != n {
		t.Fatalf("natsperf sub latency %+v: want %d samples from the header stamps", g.Latency, n)
	}
	if g.Bytes != int64(n*len(body)) {
		t.Errorf("natsperf sub counted %d bytes, want %d (the file's, the header aside)", g.Bytes, n*len(body))
	}
}

var errWaiting = os.ErrDeadlineExceeded

// TestHeaderStampLossAndLatency: stamps in the Natsperf-Stamp header, written by a plain
// nats.go publisher that leaves out 7 sequences and back-dates every send by 200ms, give the
// natsperf subscriber 7 lost and latencies of at least 200ms.
func TestHeaderStampLossAndLatency(t *testing.T) {
	skip := map[uint64]bool{3: true, 10: true, 11: true, 500: true, 501: true, 502: true, 999: true}
	res, r := subAgainst(t, "hdr.stamp", 1000, func(url string) {
		nc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		var st [stamp.Size]byte
		hex := make([]byte, 2*stamp.Size)
		for seq := uint64(1); seq <= 1000; seq++ {
			if skip[seq] {
				continue
			}
			stamp.Put(st[:], 77, seq, time.Now().Add(-200*time.Millisecond).UnixNano())
			m := &nats.Msg{Subject: "hdr.stamp", Data: []byte("not a stamp: the user's own bytes"), Header: nats.Header{}}
			m.Header.Set(stamp.Header, stamp.PutHex(hex, st[:]))
			if err := nc.PublishMsg(m); err != nil {
				t.Fatal(err)
			}
		}
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
	})
	if r.code != exitLoss {
		t.Fatalf("exit %d, want %d (data loss): %s", r.code, exitLoss, r.err)
	}
	g := group(t, res, "sub").Aggregate
	if c := g.Correctness; c == nil || c.Lost != int64(len(skip)) || c.Received != 1000-int64(len(skip)) {
		t.Fatalf("correctness %+v: want %d lost", c, len(skip))
	}
	if g.Latency == nil || g.Latency.Min < int64(200*time.Millisecond) {
		t.Fatalf("latency %+v: want every sample at least 200ms (the back-dated stamps)", g.Latency)
	}
}

// TestBenchOldSyntaxNewFlags: the old syntax passes nats bench 0.5's flags on: --throughput
// becomes the rate, -H headers (repeated) and --payload reach the publishers (a plain
// subscriber sees the file's bytes and both headers), --multisubjectrandomize its flag.
func TestBenchOldSyntaxNewFlags(t *testing.T) {
	s := startServer(t, nil)
	file := filepath.Join(t.TempDir(), "p.txt")
	if err := os.WriteFile(file, []byte("old syntax, real payload"), 0o600); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	sub, err := nc.SubscribeSync("old.>")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	res, r := runJSON(context.Background(), t, "bench", "old", "-s", s.ClientURL(), "--pub", "1", "--msgs", "200", "--throughput", "2000",
		"-H", "X-A:1", "--header", "X-B:2", "--payload", file, "--multisubject", "--multisubjectmax", "10", "--multisubjectrandomize")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if !strings.Contains(r.err, "--header=X-A:1 --header=X-B:2") || !strings.Contains(r.err, "--rate=2000") || strings.Contains(r.err, "--throughput") {
		t.Errorf("translation: %s", r.err)
	}
	if ws := decodeSettings(t, res)["workload"]; findKey(ws, "rate") != float64(2000) || findKey(ws, "multisubject_randomize") != true {
		t.Errorf("settings %v: want rate 2000 and a random subject per message", ws)
	}
	m, err := sub.NextMsg(5 * time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if string(m.Data) != "old syntax, real payload" || m.Header.Get("X-A") != "1" || m.Header.Get("X-B") != "2" || m.Header.Get(stamp.Header) == "" {
		t.Fatalf("message %q, headers %v", m.Data, m.Header)
	}
}

// TestRustRefusesWhatItLacks: the connection and payload flags natsperf-rust does not take
// are refused on one line naming the flag, before anything starts.
func TestRustRefusesWhatItLacks(t *testing.T) {
	for _, args := range [][]string{
		{"--js-domain", "hub"}, {"--jwt", "u.jwt", "--seed", "u.nk"}, {"--socks-proxy", "socks5://127.0.0.1:1"},
		{"--inbox-prefix", "_I"}, {"--connection-name", "x"}, {"--timeout", "1s"}, {"--header", "a:b"}, {"--stamp", "header"}, {"--payload-random"},
	} {
		r := run(context.Background(), t, nil, append([]string{"pub", "rusty", "--client", "rust", "--msgs", "10"}, args...)...)
		if r.code != exitUsage || !strings.Contains(r.err, "does not apply to --client rust") || !strings.Contains(r.err, strings.Fields(args[0])[0]) || strings.Count(strings.TrimSpace(r.err), "\n") > 0 {
			t.Errorf("%v: exit %d, stderr %q", args, r.code, r.err)
		}
	}
}

// TestPayloadFillNeedsNatsperfsPayload: --payload-fill fills the payload natsperf makes, so
// with a payload file or random bytes (which it would silently not touch) it is refused,
// one line, exit 2, before anything runs.
func TestPayloadFillNeedsNatsperfsPayload(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.Bin")
	if err := os.WriteFile(file, []byte("hello"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"pub", "fill", "--payload", file, "--payload-fill", "zeros"},
		{"js", "pub", "async", "fill", "--payload-random", "--payload-fill", "text"},
	} {
		r := run(context.Background(), t, nil, append(args, "--msgs", "10", "--no-progress")...)
		if r.code != exitUsage || !strings.Contains(r.err, "payload_fill") || strings.Count(strings.TrimSpace(r.err), "\n") > 0 || strings.Contains(r.out, "stats") {
			t.Errorf("%v: exit %d, stdout %q, stderr %q", args, r.code, r.out, r.err)
		}
	}
}
