package js

import "testing"

func TestStreamSeq(t *testing.T) {
	tests := []struct {
		reply string
		want  uint64
		ok    bool
	}{
		{"$JS.ACK.benchstream.c1.1.9088.17.1700000000000000000.3", 9088, true},
		{"$JS.ACK.dom.ACCHASH.benchstream.c1.1.42.17.1700000000000000000.3.rand", 42, true},
		{"$JS.ACK.s.c.1..2.3.4", 0, false},
		{"_INBOX.x", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := streamSeq(tt.reply)
		if got != tt.want || ok != tt.ok {
			t.Errorf("streamSeq(%q) = %d, %v; want %d, %v", tt.reply, got, ok, tt.want, tt.ok)
		}
	}
	if n := testing.AllocsPerRun(100, func() { _, _ = streamSeq(tests[0].reply) }); n != 0 {
		t.Fatalf("%v allocations per call", n)
	}
}

// The stored timestamp comes from the same subject, in both of its forms, without
// allocating: it is read for every message a consumer gets.
func TestStoredTime(t *testing.T) {
	for _, reply := range []string{
		"$JS.ACK.benchstream.c1.1.9088.17.1700000000000000001.3",
		"$JS.ACK.dom.ACCHASH.benchstream.c1.1.42.17.1700000000000000001.3.rand",
	} {
		if got, ok := ackNumber(reply, 7); !ok || got != 1700000000000000001 {
			t.Errorf("ackNumber(%q, 7) = %d, %v", reply, got, ok)
		}
		if n := testing.AllocsPerRun(100, func() { _, _ = ackNumber(reply, 7) }); n != 0 {
			t.Fatalf("%v allocations per call", n)
		}
	}
}
