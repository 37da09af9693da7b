package failover_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/proctest"
	"github.com/natsperf/natsperf/result"
)

// exitUnrecovered is natsperf's exit code for a run that had not recovered by its end.
const exitUnrecovered = 5

// TestStandaloneLeaderKill runs js pub async against a standalone 3-node nats-server cluster
// (three processes) whose stream leader is killed with SIGKILL through --fault-exec (and, in
// one case, restarted), and checks natsperf's figures against references it did not compute:
// the longest time without acks against the acks this test saw on the wire (a subscriber to
// every reply inbox, on the node the publisher uses, which is never killed), including an
// outage still open at the end; every publish attempted counted (rate x duration) and split
// into acked, stored-not-acked and failed; and the exit code against the verdict.
func TestStandaloneLeaderKill(t *testing.T) {
	if testing.Short() {
		t.Skip("a 3-node cluster of processes, a leader killed")
	}
	for _, tc := range []struct {
		name   string
		faults []string // after the kill of the leader at 1s
		lost   bool     // the cluster cannot recover within the run
		own    bool     // no fault from natsperf: the test kills n2 and n3 itself, 1s in
	}{
		// The node is back a second later: whether acks come back within the run depends on
		// the cluster's election (a standalone nats-server may take seconds); the figures must
		// match the wire either way.
		{"restarted", []string{"2s:" + faultCmd(t, "restart")}, false, false},
		// The other follower is killed too: n1 alone has no quorum, no publish can be acked
		// again, and the run must say it did not recover.
		{"no quorum", []string{"1200ms:" + faultCmd(t, "kill-rest")}, true, false},
		// The same outage natsperf did not cause (a --verify run with no fault): it must be
		// reported the same way.
		{"on its own", nil, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := startCluster(t)
			const stream = "FO"
			nc, err := nats.Connect(c.urls[0])
			if err != nil {
				t.Fatal(err)
			}
			defer nc.Close()
			jsc, _ := jetstream.New(nc)
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			// natsperf's mark: a stream it may publish into without --force.
			natstest.Eventually(t, 30*time.Second, 200*time.Millisecond, func() error {
				_, err := jsc.CreateOrUpdateStream(ctx, jetstream.StreamConfig{Name: stream, Subjects: []string{"fo"}, Replicas: 3,
					Metadata: map[string]string{js.MarkKey: js.MarkValue}})
				return err
			})
			// The leader on another node than n1, the publisher's and the observer's.
			natstest.Eventually(t, 30*time.Second, 300*time.Millisecond, func() error {
				s, err := jsc.Stream(ctx, stream)
				if err != nil {
					return err
				}
				if l := s.CachedInfo().Cluster.Leader; l == "n1" || l == "" {
					_, _ = nc.Request("$JS.API.STREAM.LEADER.STEPDOWN."+stream, nil, 2*time.Second)
					return fmt.Errorf("leader %q", l)
				}
				return nil
			})
			acks := watchAcks(t, c.urls[0], stream)
			out := filepath.Join(t.TempDir(), "r.json")
			args := []string{"js", "pub", "async", "fo", "--stream", stream, "-s", c.urls[0], "--rate", "500", "--duration", "3s",
				"--batch", "100", "--ack-timeout", "1s", "--verify", "--no-progress", "-o", out}
			if !tc.own {
				args = append(args, "--fault-exec", "1s:"+faultCmd(t, "kill"))
			}
			for _, f := range tc.faults {
				args = append(args, "--fault-exec", f)
			}
			cmd := exec.Command(natsperfBin, args...)
			cmd.Env = c.faultEnv(t, stream)
			p := proctest.Start(t, "natsperf", cmd)
			if tc.own {
				p.WaitFor(t, "Starting JetStream asynchronous publisher,", 30*time.Second)
				time.Sleep(time.Second)
				killRest(c.dir)
			}
			code := p.Wait(t, 90*time.Second)
			res := proctest.ReadResult(t, out)
			t.Logf("exit %d\n%s", code, p.Out.String())
			if res.Verify == nil {
				t.Fatalf("no verify in the Result")
			}
			// Unavailability against the wire: the longest time without an ack from the run's
			// start to its end, the last stretch included.
			wire, wireOpen := acks.longestWithout(res.Start, res.End)
			got := result.Gap{Duration: res.Verify.Unavailable, Open: res.Verify.NotRecovered}
			if !tc.own {
				if res.Faults == nil || len(res.Faults.Timeline) == 0 || !strings.Contains(res.Faults.Timeline[0].Detail, "killed") {
					t.Fatalf("the kill did not run: %+v", res.Faults)
				}
				got = res.Faults.Unavailable
				if v := res.Verify; v.Unavailable != got.Duration || v.NotRecovered != (res.Faults.NotRecovered != nil) {
					t.Errorf("verify %+v disagrees with faults %+v", v, res.Faults)
				}
			}
			// The two views are two processes' callbacks: on a loaded machine either may run late.
			if tol := 500*time.Millisecond + wire/10; got.Duration < wire-tol || got.Duration > wire+tol {
				t.Errorf("unavailable %v (open %v), the wire saw %v without acks (open %v)", got.Duration, got.Open, wire, wireOpen)
			}
			if wire > time.Second && got.Open != wireOpen {
				t.Errorf("unavailable open %v, the wire's longest stretch without acks open %v", got.Open, wireOpen)
			}
			// Every publish of the schedule counted, and accounted for.
			v := res.Verify
			if v.Sent != 1500 {
				t.Errorf("verify sent %d, want 1,500 (500/s x 3s: every publish attempted)", v.Sent)
			}
			if tc.lost {
				// Without quorum the stream cannot be read back: unknown, never called missing.
				if (v.Error == "" && len(v.Unreadable) == 0) || v.AckedButMissing != 0 {
					t.Errorf("verify %+v: want the read-back reported impossible or incomplete, nothing called missing", v)
				}
			} else if v.AckedButMissing != 0 || v.Acked+v.StoredNotAcked+v.Failed != v.Sent {
				t.Errorf("verify acked %d + stored-not-acked %d + failed %d != sent %d (acked-but-missing %d)",
					v.Acked, v.StoredNotAcked, v.Failed, v.Sent, v.AckedButMissing)
			}
			// The rate is over the 3 s asked for, however early the acks stopped.
			pub := res.Groups[0].Aggregate
			if want := float64(pub.Msgs) / 3; pub.MsgsPerSec > want*1.1 {
				t.Errorf("pub rate %.0f/s from %d acks: want about %.0f/s (over the 3s asked for)", pub.MsgsPerSec, pub.Msgs, want)
			}
			wantCode := 0
			if res.NotRecovered() != nil {
				wantCode = exitUnrecovered
				if !strings.Contains(p.Out.String(), "NOT RECOVERED") {
					t.Errorf("the text does not say the run did not recover")
				}
			}
			if code != wantCode {
				t.Errorf("exit %d, want %d (not recovered: %+v)", code, wantCode, res.NotRecovered())
			}
			if tc.lost && (res.NotRecovered() == nil || !wireOpen) {
				t.Errorf("a cluster without quorum from 1.2s: not recovered %+v, the wire's last stretch open %v: want both", res.NotRecovered(), wireOpen)
			}
		})
	}
}
