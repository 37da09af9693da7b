package payload

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/stamp"
)

// TestFileStampInHeader: a payload file is sent unchanged, its stamp rides in the header, and
// a receiver finds the stamp there (stamp.Find), not in the payload.
func TestFileStampInHeader(t *testing.T) {
	file := filepath.Join(t.TempDir(), "p.txt")
	body := []byte("the user's own bytes, not a stamp")
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	m, err := New(Config{File: file, Headers: []string{"X-App: bench"}})
	if err != nil {
		t.Fatal(err)
	}
	stamp.Put(m.Stamp, 9, 41, 1234567890)
	m.Seal()
	if !bytes.Equal(m.Data, body) || m.Header.Get("X-App") != "bench" || len(m.Header.Get(stamp.Header)) != 32 {
		t.Fatalf("data %q, headers %v", m.Data, m.Header)
	}
	var buf [stamp.ExtSize]byte
	pub, seq, sent, ok := stamp.Get(stamp.Find(m.Header, m.Data, &buf))
	if !ok || pub != 9 || seq != 41 || sent != 1234567890 {
		t.Fatalf("read back %d %d %d %v", pub, seq, sent, ok)
	}
	// An extended stamp (a fixed rate) takes 48 hex characters and keeps its actual send time.
	stamp.PutExt(m.Stamp, 9, 42, 100, 150)
	m.Seal()
	if _, _, _, actual, ok := stamp.GetExt(stamp.Find(m.Header, m.Data, &buf)); !ok || actual != 150 || len(m.Header.Get(stamp.Header)) != 48 {
		t.Fatalf("extended stamp: actual %d ok %v header %q", actual, ok, m.Header.Get(stamp.Header))
	}
}

// TestBadHeaders: a header without a colon, or natsperf's own name, is refused.
func TestBadHeaders(t *testing.T) {
	for _, h := range []string{"novalue", ":v", "Natsperf-Stamp:x", "a b:c"} {
		if _, err := ParseHeaders([]string{h}); err == nil {
			t.Errorf("%q accepted", h)
		}
	}
	if _, err := ParseHeaders([]string{"K:V", "K:W"}); err != nil {
		t.Errorf("a repeated key: %v", err)
	}
}

// BenchmarkSeal is a publisher's per-message stamp in the header: write it, encode it into
// the header value in place. It must not allocate.
func BenchmarkSeal(b *testing.B) {
	m, err := New(Config{Size: 128, InHeader: true})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		stamp.Put(m.Stamp, 1, uint64(i+1), int64(i))
		m.Seal()
	}
}

// BenchmarkFindInHeader is a receiver's per-message work to find a header stamp in what
// nats.go delivered (its headers already parsed). It must not allocate.
func BenchmarkFindInHeader(b *testing.B) {
	m, _ := New(Config{Size: 128, InHeader: true})
	stamp.Put(m.Stamp, 1, 1, 1)
	m.Seal()
	var buf [stamp.ExtSize]byte
	b.ReportAllocs()
	for b.Loop() {
		if st := stamp.Find(m.Header, m.Data, &buf); len(st) != stamp.Size {
			b.Fatal("no stamp")
		}
	}
}

// BenchmarkNATSHeaderParse is what nats.go does for every message with headers before a
// callback sees it (its DecodeHeadersMsg): the allocations a header stamp costs on receipt,
// for comparison with BenchmarkFindInHeader.
func BenchmarkNATSHeaderParse(b *testing.B) {
	raw := []byte("NATS/1.0\r\nNatsperf-Stamp: 00112233445566778899aabbccddeeff\r\n\r\n")
	b.ReportAllocs()
	for b.Loop() {
		if _, err := nats.DecodeHeadersMsg(raw); err != nil {
			b.Fatal(err)
		}
	}
}
