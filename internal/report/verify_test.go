package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
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

// TestFaultsNotRecovered: an outage still open when the run ended is printed as not recovered,
// with the publishes that were never acknowledged and never stored beside the acked ones, and
// a phase in which nothing was acknowledged says so (it printed "pub 0 msgs" or nothing).
func TestFaultsNotRecovered(t *testing.T) {
	s := time.Second
	open := result.Gap{Duration: 6 * s, From: 4 * s, To: 10 * s, Group: "pub", Client: 1, Open: true}
	r := &result.Result{Start: time.Now(), Stop: result.Stop{Reason: result.StopCompleted},
		Groups: []result.Group{{Name: "pub", Kind: "JetStream asynchronous publisher"}},
		Faults: &result.Faults{Timeline: []result.FaultEvent{{Spec: "4s:kill", Kind: "exec", Started: 4 * s}},
			Unavailable: open, NotRecovered: &open,
			Publishers: []result.PublisherOutage{{Group: "pub", Client: 1, Fault: "4s:kill", LastAckBefore: 4 * s, FirstAckAfter: 10 * s,
				WithoutAcks: 6 * s, TimedOutWait: 5 * s, AckTimeout: 5 * s, NotRecovered: true}}},
		Windows: []result.Window{
			{Label: "before faults", To: 4 * s, Groups: []result.WindowGroup{{Name: "pub", Msgs: 4047}}},
			{Label: "after 4s:kill", From: 4 * s, To: 10 * s, Groups: []result.WindowGroup{{Name: "pub"}}},
		},
		Verify: &result.Verify{Stream: "s", Sent: 5000, Acked: 4047, Stored: 4050, StoredNotAcked: 3, Failed: 950,
			Unavailable: 6 * s, NotRecovered: true}}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"unavailable 6.00s: from 4.00s, NOT RECOVERED by the end of the run at 10.00s (pub 1",
		"pub 1 after 4s:kill: last ack 4.00s, none after it to its end at 10.00s: 6.00s without acks",
		"after 4s:kill                   4.00s-10.00s pub nothing acknowledged",
		"verify: sent 5,000 · acked 4,047 · failed 950 · stored 4,050 · acked-but-missing 0",
		"unavailable 6.00s (NOT RECOVERED by the end of the run)",
		"verify: failed 950: publishes never acknowledged and not in the stream",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Contains(out, "LOST") {
		t.Errorf("failed publishes called lost:\n%s", out)
	}
}

// TestVerifyDiverged: nodes whose own copies disagree are printed in one DIVERGED line, with
// every node's copy and the diverged ones marked.
func TestVerifyDiverged(t *testing.T) {
	r := &result.Result{Start: time.Now(), Verify: &result.Verify{Stream: "s", Acked: 10, Stored: 10,
		Replicas: []result.Replica{{Node: "n1", Present: true, Msgs: 10, FirstSeq: 1, LastSeq: 10},
			{Node: "n2", Present: true, Msgs: 7, FirstSeq: 1, LastSeq: 7}, {Node: "n3", Down: true}},
		Diverged: []string{"n2"}}}
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	want := "verify: DIVERGED: the nodes' copies of stream s disagree: n1 10 msgs (seq 1-10), n2 7 msgs (seq 1-7) *, n3 down"
	if !strings.Contains(b.String(), want) {
		t.Fatalf("want %q in:\n%s", want, b.String())
	}
}
