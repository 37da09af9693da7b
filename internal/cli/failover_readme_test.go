package cli

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

// TestFailoverReadmeLine runs the README's failover line on the embedded cluster and checks
// what it may say whichever way the failover goes (the publisher may or may not see acks again
// within the run): every publish of the schedule counted (2,000/s x 6s, the known input) and
// accounted for as acked, stored-not-acked or failed; the publisher's rate over the 6s asked
// for; no receiver calling failed publishes lost, nor a run "ended by the idle timeout" when
// the stream holds nothing the consumer did not get; every phase naming every group; and the
// exit code agreeing with the verdict (5 when not recovered, else 0; 3 only for loss).
func TestFailoverReadmeLine(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a cluster node: about 10s")
	}
	res, r := runJSON(context.Background(), t, "pubsub", "foo", "--js", "--replicas", "3", "--rate", "2000", "--duration", "6s",
		"--verify", "--fault", "2s:kill-leader", "--fault", "4s:restart")
	v, f := res.Verify, res.Faults
	if v == nil || f == nil || v.Error != "" || len(v.Unreadable) > 0 {
		t.Fatalf("verify %+v, faults %+v; stderr %s", v, f, r.err)
	}
	t.Logf("verify %+v; unavailable %+v; not recovered %+v; stop %+v", *v, f.Unavailable, f.NotRecovered, res.Stop)
	if v.Sent != 12000 {
		t.Errorf("verify sent %d, want 12,000: every publish of the schedule", v.Sent)
	}
	if v.AckedButMissing == 0 && v.Acked+v.StoredNotAcked+v.Failed != v.Sent {
		t.Errorf("acked %d + stored-not-acked %d + failed %d != sent %d", v.Acked, v.StoredNotAcked, v.Failed, v.Sent)
	}
	pub := group(t, res, "pub").Aggregate
	if want := float64(pub.Msgs) / 6; pub.MsgsPerSec > want*1.05 {
		t.Errorf("pub %.0f msgs/s for %d acks: want about %.0f (over the 6s asked for)", pub.MsgsPerSec, pub.Msgs, want)
	}
	sub := group(t, res, "sub").Aggregate.Correctness
	if sub == nil || sub.Lost != 0 {
		t.Errorf("receivers' correctness %+v: the stream holds every acked message, so no gap is lost", sub)
	}
	if res.Stop.Reason == result.StopIdle && v.NotConsumed == 0 {
		t.Errorf("stop %+v with nothing left unconsumed: the receivers only waited for failed publishes", res.Stop)
	}
	for _, w := range res.Windows {
		if len(w.Groups) != 2 {
			t.Errorf("phase %q has groups %+v, want pub and sub", w.Label, w.Groups)
		}
	}
	if (f.NotRecovered != nil) != v.NotRecovered || (f.NotRecovered != nil && !f.Unavailable.Open && f.NotRecovered.Duration > f.Unavailable.Duration) {
		t.Errorf("faults %+v and verify %+v disagree on recovery", f, v)
	}
	if f.Unavailable.Duration != v.Unavailable {
		t.Errorf("unavailable %v in faults, %v in verify", f.Unavailable.Duration, v.Unavailable)
	}
	want := exitOK
	switch {
	case res.Loss() > 0:
		want = exitLoss
	case res.NotRecovered() != nil:
		want = exitUnrecovered
		if !strings.Contains(r.err, "not recovered by the end of the run") {
			t.Errorf("stderr does not say why exit 5: %q", r.err)
		}
	}
	if r.code != want {
		t.Errorf("exit %d, want %d", r.code, want)
	}
	if f.Unavailable.Open && f.Unavailable.To < 5*time.Second {
		t.Errorf("an open outage ends at %v, before the run's 6s", f.Unavailable.To)
	}
}
