package report

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

// storyResult is a kill-leader run whose story is known: n3 elected 0.09 s after the kill,
// the publisher 0.68 s without acks of which 23 publishes waited out a 1 s ack timeout, a
// 257 ms peak.
func storyResult() *result.Result {
	s, ms := time.Second, time.Millisecond
	return &result.Result{Start: time.Unix(1000, 0), Stop: result.Stop{Reason: result.StopCompleted},
		Groups: []result.Group{{Name: "pub", Kind: "JetStream asynchronous publisher"}},
		Faults: &result.Faults{
			Timeline: []result.FaultEvent{
				{Spec: "2s:kill-leader", Kind: "kill-leader", Started: 2 * s, Node: "n2", NewLeader: "n3", NewLeaderAfter: 1010 * ms},
				{Spec: "4s:restart", Kind: "restart", Started: 4 * s, Node: "n2"}},
			Unavailable: result.Gap{Duration: 680 * ms, From: 2330 * ms, To: 3010 * ms, Group: "pub", Client: 1},
			Publishers: []result.PublisherOutage{{Group: "pub", Client: 1, Fault: "2s:kill-leader", LastAckBefore: 2330 * ms,
				FirstAckAfter: 3010 * ms, WithoutAcks: 680 * ms, TimedOutWait: 600 * ms, AckTimeout: s, TimedOut: 23, TimedOutFrom: 2 * s}}},
		Failovers: []result.Failover{{Cause: "2s:kill-leader", At: 2 * s, Node: "n2", Until: 6 * s, Silent: 2250 * ms,
			Leaders: []result.NewLeader{{Stream: "S", Leader: "n3", At: 2090 * ms, After: 90 * ms, Source: "advisory"}},
			Clients: []result.ClientOutage{{Group: "pub", Client: 1, Duration: 680 * ms, From: 2330 * ms, To: 3010 * ms,
				TimedOut: 23, TimedOutFrom: 2 * s, TimedOutWait: 600 * ms, AckTimeout: s}},
			Peaks: []result.LatencyPeak{{Group: "pub", From: 2250 * ms, To: 2500 * ms, P99: int64(257 * ms), Median: int64(ms)}}}},
		Verify: &result.Verify{Stream: "S", Sent: 12000, Acked: 11977, Stored: 11977, Failed: 23, Unavailable: 680 * ms},
	}
}

// TestFailoverText: one block tells the failover, each figure once; the timeline's new leader
// (polled, 1.01 s) and the repeated unavailable and publisher lines are gone.
func TestFailoverText(t *testing.T) {
	var b bytes.Buffer
	if err := Text(&b, storyResult()); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"Failover 1: 2s:kill-leader at 2.00s, leader n2\n",
		"  new leader of stream S: n3, 0.09s after the fault (advisory at 2.09s)\n",
		"  n2 stopped answering the telemetry at 2.25s\n",
		"  pub 1: 0.68s without an ack, from 2.33s to 3.01s: 23 publishes sent from 2.00s, before the new leader, never answered, it waited out its ack timeout (1.00s)\n",
		"  latency peak: pub P99 257.00ms at 2.25s-2.50s (median interval P99 1.00ms)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if !strings.Contains(out, "unavailable 0.68s (pub 1 in failover 1)") {
		t.Errorf("the verify line does not point at the failover:\n%s", out)
	}
	for _, not := range []string{"after 1.01s", "  unavailable 0.68s:", "last ack 2.33s", "Failover 2"} {
		if strings.Contains(out, not) {
			t.Errorf("%q told again in:\n%s", not, out)
		}
	}
}

// TestFailoverSection: the md and html reports have a Failovers section with the run's story.
func TestFailoverSection(t *testing.T) {
	set := &Set{Cells: []*Cell{{Name: "kill", Runs: []Entry{{Cell: "kill", Repetition: 1, Result: storyResult()}}}}}
	var md, page bytes.Buffer
	if err := Markdown(&md, set, ""); err != nil {
		t.Fatal(err)
	}
	if err := HTML(&page, set, ""); err != nil {
		t.Fatal(err)
	}
	want := "kill, repetition 1, failover 1: 2s:kill-leader at 2.00s, leader n2; new leader of stream S: n3, 0.09s after the fault"
	if !strings.Contains(md.String(), "## Failovers") || !strings.Contains(md.String(), want) {
		t.Errorf("markdown lacks the failover section:\n%s", md.String())
	}
	if !strings.Contains(page.String(), ">Failovers<") || !strings.Contains(page.String(), want) {
		t.Errorf("the page lacks the failover section")
	}
}

// TestFailoverTextNamesFailures: a publisher's fast failures are told in its line by reason,
// with the timeouts, each once; a client with failures but no stretch of GapMin says so.
func TestFailoverTextNamesFailures(t *testing.T) {
	s, ms := time.Second, time.Millisecond
	r := storyResult()
	f := &r.Failovers[0]
	f.Clients[0].Refused = []result.Refusals{{Reason: result.ReasonNoResponders, Count: 492, From: 2510 * ms, To: 2990 * ms}}
	f.Clients = append(f.Clients, result.ClientOutage{Group: "pub", Client: 2, From: 2 * s, To: 2050 * ms,
		Refused: []result.Refusals{{Reason: "refused by the server (503: no leader)", Count: 1, From: 2 * s, To: 2 * s}}})
	var b bytes.Buffer
	if err := Text(&b, r); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"  pub 1: 0.68s without an ack, from 2.33s to 3.01s: 492 publishes failed fast from 2.51s to 2.99s: no responders (no server took them, the stream had no leader); 23 publishes sent from 2.00s, before the new leader, never answered, it waited out its ack timeout (1.00s)\n",
		"  pub 2: no stretch without an ack of 0.10s or more: 1 publish failed fast at 2.00s: refused by the server (503: no leader)\n",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	if strings.Count(out, "no responders") != 1 || strings.Count(out, "waited out its ack timeout") != 1 {
		t.Errorf("the failures are not told once each:\n%s", out)
	}
}

// TestFailoverTextKVPutter: a KV putter's block says puts and acks, and a fault run's short
// stretch (40 ms, kept from result.FaultGapMin) reads as a stretch, not as "no stretch of
// 0.10s"; a client with failures alone is measured against the run's own minimum.
func TestFailoverTextKVPutter(t *testing.T) {
	s, ms := time.Second, time.Millisecond
	res := &result.Result{Start: time.Unix(1000, 0), Stop: result.Stop{Reason: result.StopCompleted},
		Groups: []result.Group{{Name: "put", Kind: "JetStream KV putter"}, {Name: "put2", Kind: "JetStream KV putter"}},
		Faults: &result.Faults{GapMin: result.FaultGapMin, AckTimeout: 2 * s,
			Timeline: []result.FaultEvent{{Spec: "1s:kill-leader", Kind: "kill-leader", Started: s, Node: "n2"}}},
		Failovers: []result.Failover{{Cause: "1s:kill-leader", At: s, Node: "n2", Until: 5 * s,
			Leaders: []result.NewLeader{{Stream: "KV_b", Leader: "n3", At: 1060 * ms, After: 60 * ms, Source: "advisory"}},
			Clients: []result.ClientOutage{
				{Group: "put", Client: 1, Duration: 40 * ms, From: 1020 * ms, To: 1060 * ms, TimedOut: 1, TimedOutFrom: s, AckTimeout: 2 * s,
					Refused: []result.Refusals{{Reason: result.ReasonNoResponders, Count: 20, From: 1030 * ms, To: 1055 * ms}}},
				{Group: "put2", Client: 1, From: 1030 * ms, To: 1031 * ms,
					Refused: []result.Refusals{{Reason: result.ReasonNoResponders, Count: 1, From: 1030 * ms, To: 1030 * ms}}},
			}}},
	}
	var b bytes.Buffer
	if err := Text(&b, res); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{
		"  put 1: 0.04s without an ack, from 1.02s to 1.06s: 20 puts failed fast from 1.03s to 1.05s: no responders (no server took them, the stream had no leader); 1 put sent from 1.00s, before the new leader, never answered, it waited out its ack timeout (2.00s)\n",
		"  put2 1: no stretch without an ack of 0.01s or more: 1 put failed fast at 1.03s: no responders",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
}
