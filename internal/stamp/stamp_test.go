package stamp

import (
	"testing"
)

func TestRoundTrip(t *testing.T) {
	tests := []struct {
		pub  uint32
		seq  uint64
		when int64
	}{
		{1, 1, 1},
		{MaxPublisher, MaxSeq, 1<<63 - 1},
		{4097, 123456789, 1_700_000_000_000_000_000},
	}
	for _, tt := range tests {
		buf := make([]byte, 32)
		Put(buf, tt.pub, tt.seq, tt.when)
		pub, seq, when, ok := Get(buf)
		if !ok || pub != tt.pub || seq != tt.seq || when != tt.when {
			t.Errorf("Get(Put(%d,%d,%d)) = %d,%d,%d,%v", tt.pub, tt.seq, tt.when, pub, seq, when, ok)
		}
	}
}

func TestNotAStamp(t *testing.T) {
	for name, buf := range map[string][]byte{
		"short":  make([]byte, Size-1),
		"zeroes": make([]byte, Size),
	} {
		if _, _, _, ok := Get(buf); ok {
			t.Errorf("%s: Get reported a stamp", name)
		}
	}
}

func BenchmarkPutGet(b *testing.B) {
	buf := make([]byte, Size)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		Put(buf, 7, uint64(i+1), int64(i+1))
		if _, _, _, ok := Get(buf); !ok {
			b.Fatal("no stamp")
		}
	}
}

func FuzzGet(f *testing.F) {
	f.Add(make([]byte, Size))
	f.Fuzz(func(t *testing.T, buf []byte) {
		pub, seq, when, ok := Get(buf)
		if !ok {
			return
		}
		out := make([]byte, Size)
		Put(out, pub, seq, when)
		if string(out[:13]) != string(buf[:13]) {
			t.Fatalf("stamp did not round-trip")
		}
	})
}
