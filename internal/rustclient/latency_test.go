//go:build unix

package rustclient

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/latency"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

// countSubject counts, with plain nats.go, every message on subject: a reference natsperf
// did not compute.
func countSubject(t *testing.T, url, subject string) *atomic.Int64 {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	var n atomic.Int64
	if _, err := nc.Subscribe(subject, func(*nats.Msg) { n.Add(1) }); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return &n
}

// TestRustLatencyStallShowsInCorrectedLatency: natsperf-rust latency at 1,000 msgs/s is
// frozen (SIGSTOP) for 300 ms mid-run, as the Go latency tests stall their run: the ~300
// messages due meanwhile go late by up to the stall, so the corrected P99 shows it and the
// corrected mean exceeds the uncorrected one by their lateness. Nothing is lost.
func TestRustLatencyStallShowsInCorrectedLatency(t *testing.T) {
	bin := rustBin(t)
	s := natstest.Server(t, nil)
	const n, stall = 3000, 300 * time.Millisecond
	seen := countSubject(t, s.ClientURL(), "x.lat.stall")
	p := startRust(t, bin, "latency", "-s", s.ClientURL(), "--subject", "x.lat.stall", "--rate", "1000", "--duration", "3s", "--size", "64")
	natstest.WaitFor(t, 30*time.Second, "500 messages published", func() bool { return seen.Load() >= 500 })
	if err := p.cmd.Process.Signal(syscall.SIGSTOP); err != nil {
		t.Fatal(err)
	}
	time.Sleep(stall) // the injected fault, not a synchronisation
	if err := p.cmd.Process.Signal(syscall.SIGCONT); err != nil {
		t.Fatal(err)
	}
	code, res, doc := p.wait(t)
	checkSchema(t, doc)
	if code != 0 || res.Stop.Reason != result.StopCompleted || res.Command != "latency" {
		t.Fatalf("exit %d, stop %+v, command %q; stderr %s", code, res.Stop, res.Command, p.stderr.String())
	}
	if len(res.Groups) != 2 || res.Groups[0].Aggregate.Msgs != n || res.Groups[1].Aggregate.Msgs != n {
		t.Fatalf("groups %d: want pub and sub with %d messages each", len(res.Groups), n)
	}
	natstest.WaitFor(t, 10*time.Second, "the reference count", func() bool { return seen.Load() == n })
	l := res.Groups[1].Aggregate.Latency
	if l == nil || l.Uncorrected == nil || l.Count != n || l.Uncorrected.Count != n {
		t.Fatalf("latency %+v: want %d samples with an uncorrected part", l, n)
	}
	checkHistogram(t, l)
	p99, raw99 := time.Duration(histo.At(l, 99)), time.Duration(histo.At(l.Uncorrected, 99))
	t.Logf("corrected P99 %v max %v, uncorrected P99 %v", p99, time.Duration(l.Max), raw99)
	if p99 < stall/2 || l.Max < int64(stall*8/10) {
		t.Fatalf("corrected P99 %v, max %v: the %v stall does not show", p99, time.Duration(l.Max), stall)
	}
	// As TestRustPublisherStallShowsInCorrectedLatency (the subscriber, here in the same frozen
	// process, is delayed alike for both).
	checkStallLateness(t, l, stall, n)
	if c := res.Groups[1].Aggregate.Correctness; c == nil || c.Lost != 0 || c.Received != n {
		t.Fatalf("correctness %+v, want %d received, none lost", c, n)
	}
	// The Go report reads the Rust Result as its own.
	rep := latency.FromResult(res, res.Start, time.Time{}, 0, 0, 64, 3*time.Second, 1000)
	if rep.Sent != n || rep.Received != n || rep.Lost != 0 {
		t.Fatalf("Go's report of the Rust Result: sent %d received %d lost %d", rep.Sent, rep.Received, rep.Lost)
	}
}

// TestRustAndGoLatencyReceiveEverything: natsperf latency (Go) and natsperf-rust latency run
// at the same time on one server, 1,000 msgs/s for 1s each: both receive every message, the
// counts agree with an independent subscriber, and both print latency-tests' report blocks.
func TestRustAndGoLatencyReceiveEverything(t *testing.T) {
	bin := rustBin(t)
	s := natstest.Server(t, nil)
	const n = 1000
	goSeen := countSubject(t, s.ClientURL(), "x.lat.go")
	rustSeen := countSubject(t, s.ClientURL(), "x.lat.rust")
	rp := startRust(t, bin, "latency", "-s", s.ClientURL(), "--subject", "x.lat.rust", "--duration", "1s", "--size", "512")
	var out, errs natstest.Buffer
	cli := runGoText(context.Background(), t, &out, &errs, "latency", "-s", s.ClientURL(), "--subject", "x.lat.go", "--duration", "1s", "--size", "512")
	code, res, _ := rp.wait(t)
	if cli != 0 || code != 0 {
		t.Fatalf("Go latency exit %d (stderr %s), Rust latency exit %d (stderr %s)", cli, errs.String(), code, rp.stderr.String())
	}
	natstest.WaitFor(t, 10*time.Second, "the reference counts", func() bool { return goSeen.Load() == n && rustSeen.Load() == n })
	if g := res.Groups; g[0].Aggregate.Msgs != n || g[1].Aggregate.Msgs != n || g[1].Aggregate.Correctness.Lost != 0 {
		t.Fatalf("Rust: sent %d received %d lost %d, want %d %d 0", g[0].Aggregate.Msgs, g[1].Aggregate.Msgs, g[1].Aggregate.Correctness.Lost, n, n)
	}
	goText := out.String()
	for _, want := range []string{"Messages Sent  : 1000\n", "Messages Recv  : 1000\n", "Lost Messages  : 0\n"} {
		if !strings.Contains(goText, want) {
			t.Fatalf("Go report lacks %q:\n%s", want, goText)
		}
	}
	rustText := rp.stdout.String()
	// The same blocks, line for line, in the same order: only the numbers differ.
	if a, b := labels(goText), labels(rustText); a != b {
		t.Fatalf("report layouts differ:\nGo:\n%s\nRust:\n%s", goText, rustText)
	}
	for _, want := range []string{"Messages Sent  : 1000\n", "Messages Recv  : 1000\n", "Lost Messages  : 0\n", "Message Payload: 512B\n", "Target Band/Sec: 1000K\n"} {
		if !strings.Contains(rustText, want) {
			t.Fatalf("Rust report lacks %q:\n%s", want, rustText)
		}
	}
}

// labels is a report with every value dropped: what is left of ':' on each line (the
// uncorrected line and a busy host's rate warning are left out).
func labels(text string) string {
	var b strings.Builder
	for _, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(l, "  P50 ") || strings.HasPrefix(l, "Warning:") {
			continue
		}
		if i := strings.Index(l, ":"); i >= 0 {
			l = l[:i]
		}
		b.WriteString(strings.TrimSpace(l) + "\n")
	}
	return b.String()
}

// TestRustLatencyWarmup: --warmup leaves the first part of the run out of the figures as Go's
// does: at 1,000 msgs/s for 1.5s with a 500 ms warm-up both count about 1,000 messages and
// as many latency samples, while the sequence accounting still sees all 1,500 (none lost).
func TestRustLatencyWarmup(t *testing.T) {
	bin := rustBin(t)
	s := natstest.Server(t, nil)
	args := []string{"latency", "-s", s.ClientURL(), "--rate", "1000", "--duration", "1500ms", "--warmup", "500ms", "--size", "32"}
	p := startRust(t, bin, append(args, "--subject", "x.lat.warm.rust")...)
	goRes := runGo(context.Background(), t, append(args, "--subject", "x.lat.warm.go")...)
	code, res, doc := p.wait(t)
	checkSchema(t, doc)
	if code != 0 {
		t.Fatalf("exit %d; stderr %s", code, p.stderr.String())
	}
	r, g := res.Groups[1].Aggregate, goRes.Groups[1].Aggregate
	t.Logf("after the warm-up: Rust received %d (pub %d), Go %d (pub %d)", r.Msgs, res.Groups[0].Aggregate.Msgs, g.Msgs, goRes.Groups[0].Aggregate.Msgs)
	for name, a := range map[string]result.Aggregate{"Rust": r, "Go": g} {
		// About 1,000: the warm-up ends by the receive time, which a busy host moves either way.
		if a.Msgs < 600 || a.Msgs > 1400 || a.Latency == nil || a.Latency.Count != a.Msgs {
			t.Fatalf("%s: %d messages past the warm-up with latency %+v; want about 1,000 and one sample each", name, a.Msgs, a.Latency)
		}
	}
	if c := r.Correctness; c == nil || c.Received < 1400 || c.Received <= r.Msgs || c.Lost != 0 {
		t.Fatalf("Rust correctness %+v: the warm-up's messages still count for the sequences", c)
	}
}

// TestRustLatencyUnroutedServerB: server B that is not in server A's cluster never gets A's
// messages; natsperf-rust latency says so and exits 1 after its route wait instead of waiting
// for messages that cannot come.
func TestRustLatencyUnroutedServerB(t *testing.T) {
	bin := rustBin(t)
	a, b := natstest.Server(t, nil), natstest.Server(t, nil)
	begin := time.Now()
	p := startRust(t, bin, "latency", "-s", a.ClientURL(), "--server-b", b.ClientURL(), "--duration", "1s")
	err := <-p.done
	p.done <- err
	if took := time.Since(begin); took > 30*time.Second {
		t.Fatalf("took %v", took)
	}
	if p.cmd.ProcessState.ExitCode() != 1 || !strings.Contains(p.stderr.String(), "did not reach the subscriber on server B") {
		t.Fatalf("exit %d, stderr %q; want 1 and the route message", p.cmd.ProcessState.ExitCode(), p.stderr.String())
	}
}

// TestRustLatencyCountsLossAndEnds: the server drops about a fifth of the run's messages (a
// weighted subject mapping of 80%). natsperf-rust latency must not wait for them: it ends
// within its drain bound after the publisher, as idle (exit 1), with every message that did
// not arrive counted lost; an independent subscriber sees exactly what it received.
func TestRustLatencyCountsLossAndEnds(t *testing.T) {
	bin := rustBin(t)
	s := natstest.Server(t, nil)
	if err := s.GlobalAccount().AddWeightedMappings("x.lat.loss", server.NewMapDest("x.lat.loss", 80)); err != nil {
		t.Fatal(err)
	}
	seen := countSubject(t, s.ClientURL(), "x.lat.loss")
	begin := time.Now()
	p := startRust(t, bin, "latency", "-s", s.ClientURL(), "--subject", "x.lat.loss", "--rate", "1000", "--duration", "1s")
	code, res, doc := p.wait(t)
	took := time.Since(begin)
	checkSchema(t, doc)
	sent, got := res.Groups[0].Aggregate.Msgs, res.Groups[1].Aggregate.Msgs
	c := res.Groups[1].Aggregate.Correctness
	t.Logf("sent %d, received %d, lost %d, took %v", sent, got, c.Lost, took)
	if code != 1 || res.Stop.Reason != result.StopIdle {
		t.Fatalf("exit %d stop %+v; want 1 and idle (the rest never came)", code, res.Stop)
	}
	if took > 20*time.Second {
		t.Fatalf("took %v: it waited for lost messages", took)
	}
	// A busy host sends fewer than the 1,000 scheduled within the second; a hundred suffice
	// for a fifth of them to be missing (all 100 kept by an 80% mapping: 0.8^100).
	if sent < 100 || got == sent || got < sent/2 || c.Lost != sent-got || seen.Load() != got || c.NotReceived != 0 {
		t.Fatalf("sent %d received %d (independent count %d), correctness %+v: want every missing message lost", sent, got, seen.Load(), c)
	}
	if !strings.Contains(p.stdout.String(), "Lost Messages  : "+strconv.FormatInt(c.Lost, 10)+"\n") {
		t.Fatalf("report:\n%s", p.stdout.String())
	}
}
