//go:build unix

package cli

import (
	"fmt"
	"sort"
	"strconv"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

// serverAt is the server's count at at, interpolated between the samples around it.
func (m *inMsgs) serverAt(at time.Time) float64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := sort.Search(len(m.at), func(i int) bool { return m.at[i].After(at) })
	switch {
	case i == 0:
		return float64(m.n[0])
	case i == len(m.at):
		return float64(m.n[i-1])
	}
	f := float64(at.Sub(m.at[i-1])) / float64(m.at[i].Sub(m.at[i-1]))
	return float64(m.n[i-1]) + f*float64(m.n[i]-m.n[i-1])
}

// TestClientRustWarmupPacedPubMatchesServer: `natsperf pub --client rust` at 2,000 msgs/s
// for 1.5s, 1 and 3 publishers, with and without a 500 ms warm-up: every message sent
// reached the server (its per-connection counts), the send lateness has one value per
// message counted, the rate is never above the one asked, and the server's own count
// (/varz in_msgs, sampled every 2 ms) over the span the Result measured is what it counted.
func TestClientRustWarmupPacedPubMatchesServer(t *testing.T) {
	bin := rustBinary(t)
	const rate, d = 2000, 1500 * time.Millisecond
	for _, clients := range []int{1, 3} {
		for _, warmup := range []time.Duration{0, 500 * time.Millisecond} {
			t.Run(fmt.Sprintf("%d/%v", clients, warmup), func(t *testing.T) {
				s := natstest.Server(t, nil)
				ref := sampleInMsgs(t, s)
				res := rustRun(t, "pub", "rust.warmup", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin,
					"--clients", strconv.Itoa(clients), "--rate", strconv.Itoa(rate), "--duration", d.String(),
					"--warmup", warmup.String(), "--size", "32")
				checkRustClients(t, res)
				g := res.Groups[0]
				a := g.Aggregate
				total := int64(rate * d.Seconds())
				in, _ := rustClientCounts(t, s)
				natstest.WaitFor(t, 10*time.Second, "the server's count", func() bool { return int64(ref.serverAt(time.Now()))-ref.n[0] >= in })
				ref.end()
				server := int64(ref.serverAt(a.End) - ref.serverAt(a.Start) + 0.5)
				span := a.End.Sub(a.Start)
				t.Logf("counted %d of %d sent (server: %d from natsperf-rust, %d over the %v measured), %.1f msgs/s; send lateness %d, max %v",
					a.Msgs, total, in, server, span, a.MsgsPerSec, a.SendLateness.Count, time.Duration(a.SendLateness.Max))
				if res.Stop.Reason != result.StopCompleted || in != total {
					t.Fatalf("stop %q, the server received %d from natsperf-rust: want completed, %d", res.Stop.Reason, in, total)
				}
				natstest.LatenessPerMsg(t, g)
				if a.MsgsPerSec > rate*1.001 || float64(a.Msgs) > span.Seconds()*rate+float64(clients) {
					t.Fatalf("%d messages over %v: %.1f msgs/s, above the %d asked", a.Msgs, span, a.MsgsPerSec, rate)
				}
				if warmup == 0 && a.Msgs != total {
					t.Fatalf("counted %d, want all %d", a.Msgs, total)
				}
				if want := int64(rate * (d - warmup).Seconds()); warmup > 0 && (a.Msgs < want*9/10 || a.Msgs > want+rate/10) {
					t.Fatalf("counted %d after the warm-up, want about %d", a.Msgs, want)
				}
				if diff := server - a.Msgs; diff > rate/40 || -diff > rate/40 {
					t.Fatalf("the server counted %d over the measured span, natsperf-rust %d", server, a.Msgs)
				}
			})
		}
	}
}

// TestClientRustWarmupStalls freezes natsperf-rust (SIGSTOP) while it publishes at 2,000
// msgs/s for 1.5s with a 500 ms warm-up; it then sends what fell due meanwhile at once:
//   - 250 ms within the warm-up (from 100 ms) and 100 ms after it (from 900 ms): the send
//     lateness has one value per message counted and shows the 100 ms stall, not the 250 ms;
//   - 200 ms across its end (from 400 ms): what it owed from before the end is sent after it
//     and counted, and its rate stays the one asked (it reported 2,444 msgs/s before: the
//     800,000 asked and 830,343 reported of a capacity probe).
func TestClientRustWarmupStalls(t *testing.T) {
	bin := rustBinary(t)
	const rate, d, warmup = 2000, 1500 * time.Millisecond, 500 * time.Millisecond
	type stall struct{ at, d time.Duration }
	for _, tt := range []struct {
		name   string
		stalls []stall
	}{
		{"within and after", []stall{{100 * time.Millisecond, 250 * time.Millisecond}, {900 * time.Millisecond, 100 * time.Millisecond}}},
		{"across the end", []stall{{400 * time.Millisecond, 200 * time.Millisecond}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := natstest.Server(t, nil)
			done := make(chan *result.Result, 1)
			go func() {
				done <- rustRun(t, "pub", "rust.stall", "-s", s.ClientURL(), "--client", "rust", "--client-bin", bin,
					"--rate", strconv.Itoa(rate), "--duration", d.String(), "--warmup", warmup.String(), "--size", "32")
			}()
			// The first message from natsperf-rust's clients (not its agent's control
			// messages) is the first slot's, at the run's start.
			for deadline := time.Now().Add(time.Minute); ; time.Sleep(time.Millisecond) {
				if in, _ := rustClientCounts(t, s); in > 0 {
					break
				}
				if time.Now().After(deadline) {
					t.Fatal("natsperf-rust sent nothing")
				}
			}
			start := time.Now()
			pid := rustChild(t)
			if pid == 0 {
				t.Fatal("no natsperf-rust child found")
			}
			for _, st := range tt.stalls {
				time.Sleep(time.Until(start.Add(st.at)))
				freeze(t, pid, st.d)
			}
			res := awaitResult(t, done, "pub --client rust")
			checkRustClients(t, res)
			g := res.Groups[0]
			a := g.Aggregate
			span := a.End.Sub(a.Start)
			t.Logf("counted %d over %v from %v after the start: %.1f msgs/s; send lateness %d, max %v",
				a.Msgs, span, a.Start.Sub(res.Start), a.MsgsPerSec, a.SendLateness.Count, time.Duration(a.SendLateness.Max))
			if res.Stop.Reason != result.StopCompleted {
				t.Fatalf("stop %q", res.Stop.Reason)
			}
			natstest.LatenessPerMsg(t, g)
			if a.MsgsPerSec > rate*1.001 || float64(a.Msgs) > span.Seconds()*rate+1 {
				t.Fatalf("%d messages over %v: %.1f msgs/s, above the %d asked", a.Msgs, span, a.MsgsPerSec, rate)
			}
			if want := int64(rate * (d - warmup).Seconds()); a.Msgs < want*3/4 || a.Msgs > want*13/10 {
				t.Fatalf("counted %d, want about %d past the warm-up", a.Msgs, want)
			}
			if tt.name == "within and after" {
				if m := time.Duration(a.SendLateness.Max); m < 70*time.Millisecond || m >= 200*time.Millisecond {
					t.Fatalf("send lateness max %v: want the 100 ms stall after the warm-up, not its 250 ms one", m)
				}
			}
		})
	}
}
