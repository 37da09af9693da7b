package verify

import (
	"testing"
)

func TestBits(t *testing.T) {
	b := NewBits(10)
	for _, s := range []uint64{1, 2, 64, 65, 1000, 2} {
		b.Set(s)
	}
	if b.Count() != 5 {
		t.Fatalf("count %d, want 5 distinct", b.Count())
	}
	if !b.Set(64) {
		t.Fatal("Set(64) twice: want already-set")
	}
	if b.Has(3) || !b.Has(1000) || b.Has(1_000_000) {
		t.Fatal("Has wrong")
	}
	var got []uint64
	b.Each(func(s uint64) { got = append(got, s) })
	want := []uint64{1, 2, 64, 65, 1000}
	if len(got) != len(want) {
		t.Fatalf("Each = %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("Each = %v, want %v", got, want)
		}
	}
}

func TestAcksTotal(t *testing.T) {
	a := NewAcks()
	a.Publisher(7, 100).Set(1)
	a.Publisher(7, 100).Set(2)
	a.Publisher(3, 100).Set(1)
	if a.Total() != 3 || len(a.IDs()) != 2 || a.IDs()[0] != 3 {
		t.Fatalf("total %d ids %v", a.Total(), a.IDs())
	}
}

// BenchmarkSet proves recording an ack costs no allocation once the set is sized.
func BenchmarkSet(b *testing.B) {
	bits := NewBits(uint64(b.N) + 1)
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		bits.Set(uint64(i + 1))
	}
	if bits.Count() != int64(b.N) {
		b.Fatal("count")
	}
}
