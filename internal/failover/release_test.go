package failover_test

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/proctest"
	"github.com/natsperf/natsperf/result"
)

// TestReleaseFailoverNamesErrors: the run on nats-server 2.12.15 processes (3 nodes,
// R3, the leader SIGKILLed at 2 s and restarted at 4 s; the election takes seconds there),
// where most failed publishes are not ack timeouts but fast "no responders" while the stream
// has no leader. The failover's block must name both, once each, for the publisher: the
// refused ones by reason and the timed-out ones, and they must add up to what the publisher
// counted. Against the server: publishes refused fast were never stored (at most sent -
// stored; a publish lost with the connection may be), and refused plus timed out cover every
// publish the stream does not hold.
func TestReleaseFailoverNamesErrors(t *testing.T) {
	if testing.Short() {
		t.Skip("3 nats-server 2.12.15 processes, a leader killed and restarted: 20-60 s")
	}
	bin := natstest.ServerBinary(t, "v2.12.15")
	out := filepath.Join(t.TempDir(), "r.json")
	cmd := exec.Command(natsperfBin, "js", "pub", "async", "fo", "--replicas", "3", "--server-bin", bin, "--cluster", "3",
		"--verify", "--fault", "2s:kill-leader", "--fault", "4s:restart", "--rate", "1000", "--duration", "8s",
		"--no-progress", "-o", out)
	p := proctest.Start(t, "natsperf", cmd)
	code := p.Wait(t, 3*time.Minute)
	text := p.Out.String()
	t.Logf("exit %d\n%s", code, text)
	res := proctest.ReadResult(t, out)
	if len(res.Failovers) == 0 || res.Verify == nil || len(res.Groups) != 1 || len(res.Groups[0].Clients) != 1 {
		t.Fatalf("failovers %+v, verify %+v, groups %d: want a failover and a verified publisher", res.Failovers, res.Verify, len(res.Groups))
	}
	ev := res.Groups[0].Clients[0].Events
	var refused, lost, timedOut int64
	for _, f := range res.Failovers {
		for _, c := range f.Clients {
			timedOut += c.TimedOut
			for _, r := range c.Refused {
				refused += r.Count
				if r.Reason == result.ReasonConnLost {
					lost += r.Count
				}
				if r.Count <= 0 || r.From < c.From || r.To > c.To || r.Reason == "" {
					t.Errorf("refusals %+v outside their stretch %v-%v", r, c.From, c.To)
				}
			}
		}
	}
	if refused != ev.Errors+ev.NotSent || timedOut != ev.Timeouts {
		t.Errorf("the failover blocks tell %d refused and %d timed out; the publisher counted %d errors, %d not sent, %d timeouts",
			refused, timedOut, ev.Errors, ev.NotSent, ev.Timeouts)
	}
	v := res.Verify
	// An acknowledged publish the stream lost at the kill (2.12 with its default sync
	// interval, seen once in 3 runs) is not stored yet neither refused nor timed out. A
	// publish in flight when the connection dropped fails fast too, yet the stream may hold
	// it (seen in CI: 3 lost with the connection, 1 of them stored), so only the other
	// refusals bound from below what is not stored.
	if notStored := v.Sent - v.Stored; refused-lost > notStored || refused+timedOut+v.AckedButMissing < notStored {
		t.Errorf("%d refused (%d with the connection lost), %d timed out, %d acked but missing; the stream holds %d of %d sent (%d not stored): want refused - lost <= not stored <= refused + timed out + acked but missing",
			refused, lost, timedOut, v.AckedButMissing, v.Stored, v.Sent, notStored)
	}
	block := text[strings.Index(text, "Failover 1:"):]
	block = block[:strings.Index(block, "\n\n")]
	if refused > 0 && strings.Count(block, "failed fast")+strings.Count(block, "refused")+strings.Count(block, "never sent") == 0 {
		t.Errorf("the failover block does not name the %d publishes refused fast:\n%s", refused, block)
	}
	if timedOut > 0 && strings.Count(block, "waited out its ack timeout") != 1 {
		t.Errorf("the failover block does not name the %d timed-out publishes once:\n%s", timedOut, block)
	}
}
