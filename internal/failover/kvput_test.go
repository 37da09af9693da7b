package failover_test

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/proctest"
	"github.com/natsperf/natsperf/result"
)

// TestKVPutRidesOutTwoKills runs kv put at a fixed rate (the open model) on natsperf's
// embedded 3-node cluster whose bucket leader is killed twice (each time restarted half a
// second later), with an ack timeout (2s) longer than the time between the kills, so that puts
// sent to the first dead leader are given up after the second failover began.
//
// The run must ride the failovers out (before, the first "no responders" ended it), every put
// of the schedule must be accounted for (acked, refused by reason, timed out), and against the
// server's state of the bucket's stream after the run: every acked put is stored, and nothing
// is stored beyond the acked ones plus the ones whose fate was unknown (timed out, lost with
// the connection). Each timeout and each refusal is told in one failover block only.
func TestKVPutRidesOutTwoKills(t *testing.T) {
	if testing.Short() {
		t.Skip("an embedded 3-node cluster, a bucket leader killed twice: 10-20 s")
	}
	const rate, secs = 500, 5
	out := filepath.Join(t.TempDir(), "r.json")
	cmd := exec.Command(natsperfBin, "kv", "put", "--bucket", "kvfo", "--replicas", "3",
		"--rate", fmt.Sprint(rate), "--duration", fmt.Sprintf("%ds", secs), "--ack-timeout", "2s",
		"--fault", "1s:kill-leader", "--fault", "1500ms:restart", "--fault", "2500ms:kill-leader", "--fault", "3s:restart",
		"--no-progress", "-o", out)
	p := proctest.Start(t, "natsperf", cmd)
	code := p.Wait(t, 2*time.Minute)
	text := p.Out.String()
	t.Logf("exit %d\n%s", code, text)
	res := proctest.ReadResult(t, out)
	if res.Faults == nil || len(res.Faults.Timeline) != 4 {
		t.Fatalf("fault timeline %+v: want the 4 commands", res.Faults)
	}
	for _, ev := range res.Faults.Timeline {
		if ev.Error != "" {
			t.Fatalf("fault %s failed: %s", ev.Spec, ev.Error)
		}
	}
	if len(res.Groups) != 1 || len(res.Groups[0].Clients) != 1 {
		t.Fatalf("groups %+v: want one putter", res.Groups)
	}
	cl := res.Groups[0].Clients[0]
	if strings.Contains(text, "no responders available") || (code != 0 && res.NotRecovered() == nil) {
		t.Fatalf("exit %d: the putter did not ride the failovers out", code)
	}
	var refused, connLost, timedOut int64
	for _, r := range cl.Refused {
		refused += r.Count
		if r.Reason == result.ReasonConnLost {
			connLost += r.Count
		}
	}
	for _, r := range cl.TimedOut {
		timedOut += r.Count
	}
	if timedOut != cl.Events.Timeouts || refused > cl.Events.Errors {
		t.Errorf("runs: %d timed out, %d refused; events: %d timeouts, %d errors", timedOut, refused, cl.Events.Timeouts, cl.Events.Errors)
	}
	// Every put of the schedule accounted for.
	if n := cl.Msgs + refused + timedOut; n != rate*secs {
		t.Errorf("acked %d + refused %d + timed out %d = %d, want %d (rate x duration)", cl.Msgs, refused, timedOut, n, rate*secs)
	}
	// Against the server: the bucket's stream as it reported itself after the run, one
	// message per put stored (every key is new).
	if len(res.Streams) != 1 || res.Streams[0].Name != "KV_kvfo" {
		t.Fatalf("streams %+v: want KV_kvfo's state", res.Streams)
	}
	stored := int64(res.Streams[0].Messages)
	if stored < cl.Msgs || stored > cl.Msgs+timedOut+connLost {
		t.Errorf("the server stored %d puts: want from %d (acked) to %d (+ %d timed out + %d lost with the connection)",
			stored, cl.Msgs, cl.Msgs+timedOut+connLost, timedOut, connLost)
	}
	// Each failure told once, in one failover block at most.
	var toldTimedOut, toldRefused int64
	for _, f := range res.Failovers {
		for _, o := range f.Clients {
			toldTimedOut += o.TimedOut
			for _, r := range o.Refused {
				toldRefused += r.Count
			}
		}
	}
	if toldTimedOut > timedOut || toldRefused > refused {
		t.Errorf("failover blocks tell %d timeouts and %d refusals, the putter had %d and %d: some told twice", toldTimedOut, toldRefused, timedOut, refused)
	}
	if len(res.Failovers) == 0 {
		t.Fatalf("no failover told")
	}
	if timedOut+refused > 0 && toldTimedOut+toldRefused == 0 {
		t.Errorf("failovers %+v tell none of the putter's %d timeouts and %d refusals", res.Failovers, timedOut, refused)
	}
	if !strings.Contains(text, "put 1: ") {
		t.Errorf("no failover block names the putter")
	}
	// Two kills, two failovers: one per kill, never a kill told twice (as a fault and as a
	// leader that went silent on its own).
	kills := 0
	for _, f := range res.Failovers {
		if strings.HasSuffix(f.Cause, "kill-leader") {
			kills++
		}
		if f.Cause == "server_silent" {
			t.Errorf("failover %+v: a killed leader told as silent on its own", f)
		}
	}
	// Each kill's failover tells the putter's stretch without an ack, however short (a fault
	// run keeps stretches from result.FaultGapMin): at least from the kill to the new leader,
	// when no put can be acked, unless the election ended within twice FaultGapMin.
	for _, f := range res.Failovers {
		var o *result.ClientOutage
		for i := range f.Clients {
			if f.Clients[i].Group == "put" {
				o = &f.Clients[i]
			}
		}
		elected := len(f.Leaders) > 0 && f.Leaders[0].Leader != "" && f.Leaders[0].After >= 2*result.FaultGapMin
		if o == nil && !elected {
			continue
		}
		if o == nil || o.Duration <= 0 {
			t.Errorf("failover %s (new leader %+v): the putter's stretch without an ack not told: %+v", f.Cause, f.Leaders, f.Clients)
		}
	}
	if kills != 2 {
		t.Errorf("%d failovers of a kill-leader, want 2: %+v", kills, res.Failovers)
	}
}
