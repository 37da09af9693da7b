//go:build unix

package rustclient

import (
	"context"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

// TestRustPublisherStallShowsInCorrectedLatency: natsperf-rust publishes at a fixed rate and is
// frozen (SIGSTOP) for 300 ms mid-run. Its stamps carry the intended send times, so the Go
// subscriber's corrected P99 shows the stall, and the corrected figures exceed the uncorrected
// ones (from the actual send time in the extended stamp) by the stall's lateness: the schedule
// is not coordinated-omission blind.
func TestRustPublisherStallShowsInCorrectedLatency(t *testing.T) {
	bin := rustBin(t)
	s := natstest.Server(t, nil)
	const n, stall = 2000, 300 * time.Millisecond
	subs0 := s.NumSubscriptions()
	goRes := make(chan *result.Result, 1)
	go func() {
		goRes <- runGo(context.Background(), t, "sub", "x.stall", "-s", s.ClientURL(), "--msgs", strconv.Itoa(n), "--idle-timeout", "20s")
	}()
	natstest.WaitFor(t, 30*time.Second, "the Go subscriber", func() bool { return s.NumSubscriptions() > subs0 })
	in0, _ := varz(t, s)
	pub := startRust(t, bin, "pub", "x.stall", "-s", s.ClientURL(), "--msgs", strconv.Itoa(n), "--size", "64", "--rate", "1000")
	freeze(t, s, pub, in0+300, stall)
	if code, _, _ := pub.wait(t); code != 0 {
		t.Fatalf("natsperf-rust pub: exit %d; stderr %s", code, pub.stderr.String())
	}
	var got *result.Result
	select {
	case got = <-goRes:
	case <-time.After(2 * time.Minute):
		t.Fatal("the Go subscriber did not end")
	}
	l := got.Groups[0].Aggregate.Latency
	if l == nil || l.Uncorrected == nil || l.Count != n {
		t.Fatalf("latency %+v: want %d samples with an uncorrected part", l, n)
	}
	p99, raw99 := time.Duration(histo.At(l, 99)), time.Duration(histo.At(l.Uncorrected, 99))
	if p99 < 200*time.Millisecond || l.Max < int64(250*time.Millisecond) {
		t.Fatalf("corrected P99 %v, max %v: the %v stall does not show", p99, time.Duration(l.Max), stall)
	}
	lateness, want := checkStallLateness(t, l, stall, n)
	t.Logf("corrected P99 %v max %v, uncorrected P99 %v, mean lateness %v (stall alone: %v)", p99, time.Duration(l.Max), raw99, lateness, want)
}

// freeze stops p (SIGSTOP) for d, the injected fault, once the server has counted in at
// least `in` messages.
func freeze(t *testing.T, s *server.Server, p *rustProc, in int64, d time.Duration) {
	t.Helper()
	natstest.WaitFor(t, 30*time.Second, strconv.FormatInt(in, 10)+" messages in", func() bool { got, _ := varz(t, s); return got >= in })
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(d) // the injected fault, not a synchronisation
	if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
}

// checkStallLateness checks that the corrected latency exceeds the uncorrected one by each
// message's lateness (actual send minus intended send), for n messages sent at 1,000/s by a
// publisher stalled once for stall. The stall makes the rate x stall messages due during it
// late by stall/2 on average: at least rate*stall^2/2 over n messages on the mean. A busy
// machine that delays the subscriber shifts both alike; one that delays the publisher only
// adds to it. It returns the lateness seen and the stall's alone.
func checkStallLateness(t *testing.T, l *result.Latency, stall time.Duration, n int) (lateness, want time.Duration) {
	t.Helper()
	lateness = time.Duration(l.Mean - l.Uncorrected.Mean)
	want = time.Duration(1000 * stall.Seconds() * float64(stall) / 2 / float64(n))
	if lateness < want*2/3 {
		t.Fatalf("corrected mean %v exceeds the uncorrected %v by %v: the stall's lateness (about %v) is missing",
			time.Duration(l.Mean), time.Duration(l.Uncorrected.Mean), lateness, want)
	}
	return lateness, want
}
