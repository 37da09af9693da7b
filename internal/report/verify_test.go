package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/result"
)

// TestVerifyNotConsumed: consumers that ended before getting every message the read-back found
// in the stream are told as "not consumed", never as lost.
func TestVerifyNotConsumed(t *testing.T) {
	r := &result.Result{Start: time.Now(), Verify: &result.Verify{Stream: "benchstream", Acked: 12000, Stored: 12000,
		Delivered: 4101, NotConsumed: 7899}}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "consumers got 4,101 · not consumed 7,899 (still in stream benchstream)") || strings.Contains(out, "lost") {
		t.Fatalf("want the unconsumed messages told apart from lost ones:\n%s", out)
	}
}

// TestVerifyUnreadable: sequences the read-back could not read are listed, and the acked
// messages not found are not called lost.
func TestVerifyUnreadable(t *testing.T) {
	r := &result.Result{Start: time.Now(), Verify: &result.Verify{Stream: "s", Acked: 100, Stored: 90, AckedNotRead: 10,
		Unreadable: []result.SeqRange{{First: 9088, Last: 9097}, {First: 9200, Last: 9200}}}}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if !strings.Contains(out, "11 stream sequences could not be read back (9088-9097, 9200); 10 acknowledged") || strings.Contains(out, "LOST") {
		t.Fatalf("unreadable sequences not reported as such:\n%s", out)
	}
}
