//go:build unix

package rustclient

import (
	"strconv"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/natstest"
)

// TestRustSendLatenessAndCPU: natsperf-rust publishes 2,000 messages at 1,000/s and is frozen
// (SIGSTOP) for 300 ms mid-run, the known injected delay. Its own Result then carries the
// generator's check as natsperf's Go engine writes it: a send lateness per paced message
// (count = the messages the server counted from its connections), which shows the stall (its
// max at least 250 ms, and the 200 messages due in the stall's first 200 ms each at least
// 100 ms late), in a histogram hdrhistogram-go decodes; and the process's CPU over the run,
// which is more than nothing and no more than the kernel charged the whole process (its
// rusage at exit, read by this test, not by natsperf-rust).
func TestRustSendLatenessAndCPU(t *testing.T) {
	bin := rustBin(t)
	s := natstest.Server(t, nil)
	const n, rate, stall = 2000, 1000, 300 * time.Millisecond
	in0, _ := varz(t, s)
	pub := startRust(t, bin, "pub", "x.late", "-s", s.ClientURL(), "--msgs", strconv.Itoa(n), "--size", "64", "--rate", strconv.Itoa(rate), "--clients", "2")
	freeze(t, s, pub, in0+300, stall)
	code, res, doc := pub.wait(t)
	if code != 0 {
		t.Fatalf("natsperf-rust pub: exit %d; stderr %s", code, pub.stderr.String())
	}
	checkSchema(t, doc)
	g := res.Groups[0]
	in, _ := rustConns(t, s)
	l := g.Aggregate.SendLateness
	if l == nil || l.Count != n || g.Aggregate.Msgs != n || in != n {
		t.Fatalf("send lateness %+v for %d messages sent, the server counted %d: want a count of %d", l, g.Aggregate.Msgs, in, n)
	}
	for _, c := range g.Clients {
		if c.SendLateness == nil || c.SendLateness.Count != c.Msgs {
			t.Fatalf("client %d sent %d, send lateness %+v", c.ID, c.Msgs, c.SendLateness)
		}
	}
	checkHistogram(t, l)
	h, _ := histo.Decode(l.Histogram)
	// 190 of the 2,000 (the 200 less a margin for where the stall fell) at least 100 ms late:
	// the value at the 90.5th percentile.
	q905 := time.Duration(h.ValueAtQuantile(100 * (1 - 190.0/n)))
	if l.Max < int64(250*time.Millisecond) || q905 < 100*time.Millisecond {
		t.Fatalf("send lateness max %v, P90.5 %v: the %v stall does not show (want >= 250ms, and >= 100ms for 190 messages)", time.Duration(l.Max), q905, stall)
	}
	c := res.CPU
	if c == nil || c.Seconds <= 0 || c.Cores < 1 || c.Msgs != n {
		t.Fatalf("cpu %+v: want seconds > 0, cores >= 1, the %d messages handled", c, n)
	}
	if d := c.Seconds - c.UserSeconds - c.SysSeconds; d > 1e-9 || d < -1e-9 {
		t.Fatalf("cpu %+v: seconds is not user + sys", c)
	}
	if want := c.Seconds / c.WallSeconds / float64(c.Cores); c.CoreShare <= 0 || c.CoreShare-want > 1e-9 || want-c.CoreShare > 1e-9 {
		t.Fatalf("cpu %+v: core share is not seconds / (wall x cores) = %v", c, want)
	}
	ps := pub.cmd.ProcessState
	kernel := (ps.UserTime() + ps.SystemTime()).Seconds()
	if c.Seconds > kernel+0.01 { // rusage is in microseconds, the process's whole life
		t.Fatalf("natsperf-rust says its clients used %.3f CPU-seconds; the kernel charged the whole process %.3f", c.Seconds, kernel)
	}
	if c.WallSeconds < float64(n)/rate*0.9 {
		t.Fatalf("cpu wall %.3fs: shorter than the schedule of %d messages at %d/s", c.WallSeconds, n, rate)
	}
	t.Logf("send lateness P50 %v P90.5 %v P99 %v max %v; CPU %.3fs of %.3fs for the process, %.1f%% of %d cores over %.2fs",
		time.Duration(histo.At(l, 50)), q905, time.Duration(histo.At(l, 99)), time.Duration(l.Max), c.Seconds, kernel, 100*c.CoreShare, c.Cores, c.WallSeconds)
}
