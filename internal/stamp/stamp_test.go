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

func TestExtended(t *testing.T) {
	tests := []struct {
		name       string
		size       int
		write      func([]byte)
		wantActual int64
	}{
		{"extended", 24, func(b []byte) { PutExt(b, 9, 5, 1000, 1700) }, 1700},
		{"extended in a larger payload", 64, func(b []byte) { PutExt(b, MaxPublisher, MaxSeq, 1000, 1<<62) }, 1 << 62},
		{"plain stamp has no actual time", 64, func(b []byte) { Put(b, 9, 5, 1000) }, 0},
		{"flag without room is ignored", 20, func(b []byte) {
			full := make([]byte, ExtSize)
			PutExt(full, 9, 5, 1000, 1700)
			copy(b, full)
		}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			buf := make([]byte, tt.size)
			tt.write(buf)
			pub, seq, when, actual, ok := GetExt(buf)
			if !ok || when != 1000 || actual != tt.wantActual {
				t.Fatalf("GetExt = %d,%d,%d,%d,%v; want when 1000, actual %d", pub, seq, when, actual, ok, tt.wantActual)
			}
			// The flag never leaks into the publisher id: Get and GetExt agree.
			gp, gs, gw, gok := Get(buf)
			if !gok || gp != pub || gs != seq || gw != when {
				t.Fatalf("Get = %d,%d,%d,%v; GetExt = %d,%d,%d", gp, gs, gw, gok, pub, seq, when)
			}
		})
	}
}

func BenchmarkPutGetExt(b *testing.B) {
	buf := make([]byte, ExtSize)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		PutExt(buf, 7, uint64(i+1), int64(i+1), int64(i+2))
		if _, _, _, _, ok := GetExt(buf); !ok {
			b.Fatal("no stamp")
		}
	}
}

// TestPutInParts: a stamp written as PutTime then PutSeq reads back as Put's.
func TestPutInParts(t *testing.T) {
	whole, parts := make([]byte, Size), make([]byte, Size)
	for _, tt := range []struct {
		pub  uint32
		seq  uint64
		when int64
	}{{1, 1, 1}, {MaxPublisher, MaxSeq, 1<<63 - 1}, {4097, 123456789, 1_700_000_000_000_000_000}} {
		Put(whole, tt.pub, tt.seq, tt.when)
		PutTime(parts, tt.when)
		PutSeq(parts, SeqID(tt.pub), tt.seq)
		if string(whole) != string(parts) {
			t.Errorf("parts %x, Put %x", parts, whole)
		}
		if pub, seq, when, ok := Get(parts); !ok || pub != tt.pub || seq != tt.seq || when != tt.when {
			t.Errorf("Get = %d,%d,%d,%v", pub, seq, when, ok)
		}
	}
}
