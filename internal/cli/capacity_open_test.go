package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/capacity"
	"github.com/natsperf/natsperf/internal/natstest"
)

// TestCapacityOfASaturatedService is issue 32's part 3: a responder that serves at most R
// requests a second (pacedResponder: its queue grows past R whatever the CPU does), searched
// with 'capacity service request --slo p99<50ms' at the default --clients 1, through
// natsperf-rust (R = 1,500); natsperf's own clients are judged at the p99<20ms and
// R = 1,500 and 4,000 in TestCapacityOfAServiceAtDefaults. The open model
// keeps the offered rate with requests awaiting replies, so past R the queue forms and p99
// fails from the actual sends: the service's limit, not "the generator was the bottleneck"
// (what the closed loop said, exit 6). Past R by 3% the queue of a 1.8s probe holds 54ms of
// work at its end, so a capacity above R+3% is wrong on any machine; within 10% below R is
// required where the test's own 1ms sleeper woke within a quarter of the threshold (12.5ms at
// P99) meanwhile and no probe at 90% of R or less failed (see disturbed). No probe may blame
// senders waiting for replies. 50ms, not the 20ms, as 20ms failed at every rate on a busy machine.
func TestCapacityOfASaturatedService(t *testing.T) {
	if testing.Short() {
		t.Skip("three capacity searches of about 6 probes each")
	}
	for _, tc := range []struct {
		rate int
		rust bool
	}{{1500, true}} { // natsperf's own clients: TestCapacityOfAServiceAtDefaults
		rate := tc.rate
		name := strconv.Itoa(rate)
		if tc.rust {
			name += " natsperf-rust"
		}
		t.Run(name, func(t *testing.T) {
			var client []string
			if tc.rust {
				client = []string{"--client", "rust", "--client-bin", rustBinary(t)}
			}
			s := startServer(t, nil)
			subject := fmt.Sprintf("cap.open.%d.%v", rate, tc.rust)
			served := pacedResponder(t, s.ClientURL(), subject, time.Second/time.Duration(rate))
			gauge := natstest.WakeUps()
			args := []string{"capacity", "service", "request", subject, "-s", s.ClientURL(), "--size", "16",
				"--slo", "p99<50ms", "--min", strconv.Itoa(rate * 6 / 10), "--max", strconv.Itoa(rate * 4), "--probe-duration", "1500ms",
				"--warmup", "300ms", "--repeats", "1", "--drain", "200ms", "--json"}
			r := run(context.Background(), t, nil, append(args, client...)...)
			wake := gauge()
			var o capacity.Outcome
			if err := json.Unmarshal([]byte(r.out), &o); err != nil {
				t.Fatalf("exit %d: %v: %s\n%s", r.code, err, r.out, r.err)
			}
			for _, p := range o.Probes {
				t.Logf("%5.0f/s offered, %5.0f answered, P99 %v, late P99 %v, CPU %.0f%%: pass %v %s [%s]", p.Offered, p.Achieved,
					time.Duration(p.P99), time.Duration(p.LatenessP99), 100*p.CPUShare, p.Pass, p.Bound, p.Evidence)
				if p.Evidence == "" {
					t.Errorf("probe %d has no evidence", p.N)
				}
			}
			t.Logf("a 1ms sleep woke up late by %v at P99 meanwhile; %s, capacity %v (exit %d)", wake, o.Verdict, o.Capacity, r.code)
			if served.Load() == 0 {
				t.Fatalf("the responder served nothing: exit %d\n%s", r.code, r.err)
			}
			R := float64(rate)
			// At 90% of R or less, a deterministic server fed at even intervals queues nothing:
			// a probe there fails only when the host held natsperf, the server or the responder
			// back (at load 12-20: the senders 42.8ms late at P99 at 900/s with the sleeper's
			// P99 6.6ms over the search; P99 from the sends 94ms at 2,700/s). Such a search is
			// judged as on a noisy machine.
			disturbed := false
			for _, p := range o.Probes {
				if !p.Pass && p.Offered <= 0.9*R {
					disturbed = true
				}
				if p.Bound == capacity.BoundBusy || p.Bound == capacity.BoundShort {
					t.Errorf("probe %d blames senders waiting for replies (%s): the open model does not wait", p.N, p.Bound)
				}
			}
			// A search natsperf stopped on its own evidence that its machine did not keep up
			// (its process stalled, or its senders' wake-ups late) is judged the same way.
			quiet := wake < 12500*time.Microsecond && !disturbed && !machineStopped(&o)
			switch {
			case o.Verdict == capacity.AboveMax || o.Capacity > 1.03*R:
				t.Fatalf("exit %d: %s, capacity %v: a service of %v/s cannot pass above %v", r.code, o.Verdict, o.Capacity, R, 1.03*R)
			case quiet && (o.Verdict != capacity.Found || r.code != 0 || o.Capacity < 0.9*R):
				t.Fatalf("exit %d: %s, capacity %v (%s) on a machine that woke a sleeper within %v at P99: want within -10%%/+3%% of %v", r.code, o.Verdict, o.Capacity, o.Bottleneck, wake, R)
			}
		})
	}
}
