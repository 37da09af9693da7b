package core_test

import (
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/core"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/result"
)

func startServer(t testing.TB, pausable bool) *embedded.Cluster {
	t.Helper()
	c, err := embedded.Start(context.Background(), embedded.Options{
		Pausable: pausable, JetStreamMaxMemory: 16 << 20, JetStreamMaxStore: 32 << 20,
	})
	if err != nil {
		t.Fatalf("start server: %v", err)
	}
	t.Cleanup(c.Shutdown)
	return c
}

func run(t testing.TB, url string, warmup time.Duration, p *harness.Plan) *result.Result {
	t.Helper()
	r := &harness.Runner{
		Dial: func(_ context.Context, name string, opts ...nats.Option) (*nats.Conn, error) {
			return nats.Connect(url, append(opts, nats.Name(name))...)
		},
		Warmup: warmup,
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	res, err := r.Execute(ctx, p)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	if !res.Complete() {
		t.Fatalf("run stopped: %+v", res.Stop)
	}
	return res
}

// servicePlan is responders (sleeping sleep per request) and one requester at rate (0: back
// to back) sending n requests.
func servicePlan(subject string, sleep time.Duration, rate float64, n int64) *harness.Plan {
	serve := core.ServeConfig{Subject: subject, Sleep: sleep}
	req := core.RequestConfig{Subject: subject, Size: 16, Timeout: 5 * time.Second, Rate: rate, IDs: stamp.NewIDs()}
	return &harness.Plan{
		Command: "service request", Latency: true, Corrected: rate > 0,
		Groups: []*harness.Group{
			{Name: "serve", Kind: "responder", Clients: 1, Shares: []int64{n}, Shared: true,
				New: func(int) harness.Client { return core.NewResponder(serve) }},
			{Name: "request", Kind: "requester", Clients: 1, Shares: []int64{n}, Producer: true, Rate: rate,
				New: func(int) harness.Client { return core.NewRequester(req) }},
		},
	}
}

func TestRequestLatencyIncludesServiceTime(t *testing.T) {
	srv := startServer(t, false)
	const sleep = 2 * time.Millisecond
	for _, tt := range []struct {
		name string
		rate float64
	}{{"back to back", 0}, {"fixed rate", 200}} {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, srv.URL(), 0, servicePlan(fmt.Sprintf("svc.%v", tt.rate), sleep, tt.rate, 100))
			l := res.Groups[1].Aggregate.Latency
			if l == nil || l.Count != 100 {
				t.Fatalf("latency %+v, want 100 requests", l)
			}
			if p50 := histo.At(l, 50); p50 < int64(sleep) {
				t.Fatalf("P50 %v is below the service's %v sleep", time.Duration(p50), sleep)
			}
			if tt.rate > 0 && (l.Uncorrected == nil || histo.At(l.Uncorrected, 50) < int64(sleep)) {
				t.Fatalf("uncorrected %+v, want P50 >= %v", l.Uncorrected, sleep)
			}
		})
	}
}

// TestStallShowsInCorrectedLatency stalls the server while one requester runs at 200/s for
// 2s (400 requests). The request in flight waits out the 300ms stall and the ~60 due meanwhile
// go late, 0..300ms behind their schedule: 15% of the requests, so the corrected P99 sits near
// the stall. From the actual send only the one in flight is slow (0.25%): the uncorrected P99
// stays far below it.
func TestStallShowsInCorrectedLatency(t *testing.T) {
	if testing.Short() {
		t.Skip("takes 2s")
	}
	srv := startServer(t, true)
	const stall = 300 * time.Millisecond
	go func() {
		time.Sleep(700 * time.Millisecond)
		if err := srv.Pause(1, stall); err != nil {
			t.Errorf("pause: %v", err)
		}
	}()
	res := run(t, srv.URL(), 0, servicePlan("svc.stall", 0, 200, 400))
	l := res.Groups[1].Aggregate.Latency
	if l == nil || l.Uncorrected == nil || l.Count != 400 {
		t.Fatalf("latency %+v", l)
	}
	p99, u99 := histo.At(l, 99), histo.At(l.Uncorrected, 99)
	t.Logf("corrected P99 %v max %v; uncorrected P99 %v max %v", time.Duration(p99), time.Duration(l.Max),
		time.Duration(u99), time.Duration(l.Uncorrected.Max))
	if p99 < int64(stall/2) {
		t.Errorf("corrected P99 %v does not show the %v stall", time.Duration(p99), stall)
	}
	// On an idle host the uncorrected P99 is the normal round trip (well under a millisecond);
	// a busy one adds tens of milliseconds of scheduling to it. Either way it stays far below
	// the corrected one: only the request in flight waited the stall out.
	if u99 > int64(stall/2) || u99 > p99/2 {
		t.Errorf("uncorrected P99 %v, want well below the stall and the corrected P99 %v: only one request waited it out", time.Duration(u99), time.Duration(p99))
	}
	if l.Uncorrected.Max < int64(stall*8/10) {
		t.Errorf("uncorrected max %v: the request in flight should have waited out the stall", time.Duration(l.Uncorrected.Max))
	}
}

func pubPlan(subject string, rate float64, d time.Duration, size int) *harness.Plan {
	cfg := core.PubConfig{Subject: subject, Size: size, Rate: rate, Duration: d, IDs: stamp.NewIDs()}
	return &harness.Plan{
		Command: "pub", Latency: true,
		Groups: []*harness.Group{{Name: "pub", Kind: "publisher", Clients: 1, Producer: true, Rate: rate, // no Shares: bounded by the duration
			New: func(int) harness.Client { return core.NewPublisher(cfg) }}},
	}
}

// achieved is the publisher's rate counted by the clock: messages over first to last send.
func achieved(t testing.TB, res *result.Result, rate float64, d time.Duration) float64 {
	t.Helper()
	a := res.Groups[0].Aggregate
	got := float64(a.Msgs) / a.End.Sub(a.Start).Seconds()
	t.Logf("target %.0f msgs/sec, achieved %.1f (%.3f%%), %d messages", rate, got, 100*got/rate, a.Msgs)
	if res.Groups[0].TargetRate != rate {
		t.Errorf("Result target rate %v, want %v", res.Groups[0].TargetRate, rate)
	}
	return got
}

// checkPaced asserts what a paced run does on any host, however busy: it never sends more
// than rate x duration nor faster than the rate, its rate is its messages over its time, and
// it gets at least floor of the way (a host with its cores taken by others slows any sender).
// How close it comes on an idle host (within 0.1%) is BenchmarkPacedRate's figure, in
// docs/performance.md.
func checkPaced(t *testing.T, res *result.Result, rate float64, d time.Duration, floor float64) {
	t.Helper()
	got := achieved(t, res, rate, d)
	msgs, want := res.Groups[0].Aggregate.Msgs, rate*d.Seconds()
	if float64(msgs) > want || float64(msgs) < want*floor {
		t.Errorf("sent %d messages, want %.0f (at least %.0f%% on a busy host)", msgs, want, 100*floor)
	}
	if got > rate*1.001 || got < rate*floor {
		t.Errorf("achieved %.1f msgs/sec, want %.0f: never above it, at least %.0f%% on a busy host", got, rate, 100*floor)
	}
	if a := res.Groups[0].Aggregate; math.Abs(a.MsgsPerSec-got) > got*1e-6 {
		t.Errorf("reported %.1f msgs/sec, messages over time give %.1f", a.MsgsPerSec, got)
	}
}

func TestPacedRate10k(t *testing.T) {
	srv := startServer(t, false)
	const rate, d = 10_000, 2 * time.Second
	checkPaced(t, run(t, srv.URL(), 0, pubPlan("paced.10k", rate, d, 16)), rate, d, 0.8)
}

func TestPacedRate100k(t *testing.T) {
	if testing.Short() {
		t.Skip("publishes 200,000 messages")
	}
	srv := startServer(t, false)
	const rate, d = 100_000, 2 * time.Second
	checkPaced(t, run(t, srv.URL(), 0, pubPlan("paced.100k", rate, d, 16)), rate, d, 0.3)
}

// BenchmarkPacedRate is the pacer's precision: the achieved rate as a percentage of the
// target (pct-of-target), and the CPU it costs. docs/performance.md gives the figures.
func BenchmarkPacedRate(b *testing.B) {
	srv := startServer(b, false)
	for _, rate := range []float64{10_000, 100_000} {
		b.Run(fmt.Sprintf("%.0f", rate), func(b *testing.B) {
			const d = 2 * time.Second
			for range b.N {
				res := run(b, srv.URL(), 0, pubPlan(fmt.Sprintf("paced.bench.%.0f", rate), rate, d, 16))
				b.ReportMetric(100*achieved(b, res, rate, d)/rate, "pct-of-target")
			}
		})
	}
}

// TestPacedEndToEndStamps: a paced publisher's 24-byte payloads carry the actual send time,
// so the subscriber reports the uncorrected latency too; 16-byte ones only the corrected.
func TestPacedEndToEndStamps(t *testing.T) {
	srv := startServer(t, false)
	for _, tt := range []struct {
		size      int
		wantUncor bool
	}{{16, false}, {24, true}, {256, true}} {
		t.Run(fmt.Sprintf("%dB", tt.size), func(t *testing.T) {
			subject := fmt.Sprintf("e2e.%d", tt.size)
			p := pubPlan(subject, 2000, 500*time.Millisecond, tt.size)
			sub := core.SubConfig{Subject: subject, IdleTimeout: time.Second, PendingMsgs: -1, PendingBytes: -1}
			p.Groups = append(p.Groups, &harness.Group{Name: "sub", Kind: "subscriber", Clients: 1, Shares: []int64{1000},
				New: func(int) harness.Client { return core.NewSubscriber(sub) }})
			res := run(t, srv.URL(), 0, p)
			a := res.Groups[1].Aggregate
			if a.Msgs != 1000 || a.Correctness == nil || a.Correctness.Lost != 0 || a.Latency == nil || a.Latency.Count != 1000 {
				t.Fatalf("sub %d msgs, correctness %+v, latency %+v", a.Msgs, a.Correctness, a.Latency)
			}
			if got := a.Latency.Uncorrected != nil; got != tt.wantUncor {
				t.Fatalf("size %d: uncorrected present = %v, want %v", tt.size, got, tt.wantUncor)
			}
			if u := a.Latency.Uncorrected; u != nil && (u.Count != 1000 || u.Min > a.Latency.Max) {
				t.Fatalf("uncorrected %+v", u)
			}
		})
	}
}

// TestWarmupLeftOut: a 1s run at 500 requests/s with a 400ms warm-up counts the last ~300
// requests only, in latency and in the series alike.
func TestWarmupLeftOut(t *testing.T) {
	srv := startServer(t, false)
	res := run(t, srv.URL(), 400*time.Millisecond, servicePlan("svc.warmup", 0, 500, 500))
	g := res.Groups[1]
	a := g.Aggregate
	if a.Msgs < 290 || a.Msgs > 310 {
		t.Fatalf("counted %d requests, want ~300 after the warm-up", a.Msgs)
	}
	if a.Latency == nil || a.Latency.Count != a.Msgs || a.Latency.Uncorrected.Count != a.Msgs {
		t.Fatalf("latency counts %+v, want %d", a.Latency, a.Msgs)
	}
	if a.Start.Sub(res.Start) < 390*time.Millisecond {
		t.Fatalf("measurement starts %v after the run, want after the 400ms warm-up", a.Start.Sub(res.Start))
	}
	var series int64
	for _, iv := range g.Series {
		series += iv.Msgs
		if iv.Msgs > 0 && (iv.P50 <= 0 || iv.P99 < iv.P50 || iv.Max < iv.P99) {
			t.Errorf("interval %+v: percentiles out of order", iv)
		}
	}
	if series != a.Msgs {
		t.Fatalf("series holds %d requests, aggregate %d", series, a.Msgs)
	}
}

// spinGoroutines keeps every core busy with a goroutine each until the test ends.
func spinGoroutines(t *testing.T) {
	stop := make(chan struct{})
	var spinners sync.WaitGroup
	for range runtime.NumCPU() {
		spinners.Add(1)
		go func() {
			defer spinners.Done()
			for n := 0; ; n++ {
				if n%1_000_000 == 0 {
					select {
					case <-stop:
						return
					default:
					}
				}
			}
		}()
	}
	t.Cleanup(func() { close(stop); spinners.Wait() })
}

// spinProcesses keeps every core busy with a process of its own (the test binary
// re-executed, spinning) until the test ends: the kernel, not the Go scheduler, must then
// hand a sleeping pacer its CPU back in time.
func spinProcesses(t *testing.T) {
	for range runtime.NumCPU() {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "NATSPERF_TEST_CHILD_SPINNER=1")
		stdin, err := cmd.StdinPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	}
}

// pacedPubPlan is clients publishers at rate in total for d (a message count of rate x d
// split between them, so a busy host's late sender still sends its share).
func pacedPubPlan(subject string, clients int, rate float64, d time.Duration) *harness.Plan {
	cfg := core.PubConfig{Subject: subject, Size: 24, Rate: rate, IDs: stamp.NewIDs()}
	total := int64(rate * d.Seconds())
	shares := make([]int64, clients)
	for i := range shares {
		shares[i] = total / int64(clients)
		if int64(i) < total%int64(clients) {
			shares[i]++
		}
	}
	return &harness.Plan{
		Command: "pub",
		Groups: []*harness.Group{{Name: "pub", Kind: "publisher", Clients: clients, Shares: shares, Producer: true, Rate: rate,
			New: func(int) harness.Client { return core.NewPublisher(cfg) }}},
	}
}

// serverCounted runs p with r and returns its Result, the messages the server received
// (/varz in_msgs from once every client is connected, since a connection's set-up sends a
// request, until it has what the Result counts, or 10s after the run) and how long after the
// start the server had the want messages the run was to send (sampled every 5ms; 0: never).
func serverCounted(t *testing.T, srv *embedded.Cluster, r *harness.Runner, p *harness.Plan, want int64) (*result.Result, int64, time.Duration) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	prepared, err := r.Prepare(ctx, p)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	// The connections' set-up request ($JS.API.INFO, once per server) is answered before the
	// server adds it to in_msgs when a busy host delays its read loop (20,001 counted of 20,000
	// sent was seen): read the count once it has stopped moving, before the start.
	before, err := srv.Node(1).Varz(nil)
	for settled := false; err == nil && !settled; {
		time.Sleep(50 * time.Millisecond)
		var again *server.Varz
		if again, err = srv.Node(1).Varz(nil); err == nil {
			settled, before = again.InMsgs == before.InMsgs, again
		}
	}
	if err != nil {
		prepared.Abort()
		t.Fatal(err)
	}
	counted := func() int64 {
		v, err := srv.Node(1).Varz(nil)
		if err != nil {
			return -1
		}
		return v.InMsgs - before.InMsgs
	}
	began := time.Now()
	var reached time.Duration
	watched := make(chan struct{})
	go func() {
		defer close(watched)
		for ctx.Err() == nil {
			if counted() >= want {
				reached = time.Since(began)
				return
			}
			time.Sleep(5 * time.Millisecond)
		}
	}()
	prepared.Start(time.Time{})
	res := prepared.Wait()
	if !res.Complete() {
		t.Fatalf("run stopped: %+v", res.Stop)
	}
	var in int64
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(5 * time.Millisecond) { // the flush ends before the server counts
		if in = counted(); in >= res.Groups[0].Aggregate.Msgs || time.Now().After(deadline) {
			break
		}
	}
	if in < want {
		cancel() // nothing more is coming: the watcher stops
	}
	<-watched
	return res, in, reached
}

// checkServerCountsSchedule runs p and checks the schedule against what the server counted
// (/varz in_msgs, a count natsperf has no part in): every message natsperf says it sent
// arrived, the server received them at the rate within floor of it over the run's wall time
// (never above the rate: a count over a time at least the schedule's), and every message
// has its send lateness.
func checkServerCountsSchedule(t *testing.T, srv *embedded.Cluster, p *harness.Plan, rate float64, d time.Duration, floor float64) {
	t.Helper()
	want := int64(rate * d.Seconds())
	r := &harness.Runner{Dial: func(_ context.Context, name string, opts ...nats.Option) (*nats.Conn, error) {
		return nats.Connect(srv.URL(), append(opts, nats.Name(name))...)
	}}
	res, in, reached := serverCounted(t, srv, r, p, want)
	a := res.Groups[0].Aggregate
	if reached <= 0 {
		t.Fatalf("the server never had the %d messages (it counted %d)", want, in)
	}
	serverRate := float64(in) / reached.Seconds()
	t.Logf("%d clients: sent %d of %d, the server counted %d by %v after the start: %.0f msgs/s (%.1f%% of %.0f); send lateness P50 %v P99 %v",
		len(res.Groups[0].Clients), a.Msgs, want, in, reached, serverRate, 100*serverRate/rate, rate,
		time.Duration(histo.At(a.SendLateness, 50)), time.Duration(histo.At(a.SendLateness, 99)))
	if a.Msgs != want || in != a.Msgs {
		t.Fatalf("sent %d, the server counted %d, want %d", a.Msgs, in, want)
	}
	if serverRate < rate*floor || serverRate > rate*1.001 {
		t.Fatalf("the server counted %.0f msgs/s over the run, want %.0f (at least %.0f%% on a busy host, never above)", serverRate, rate, 100*floor)
	}
	if a.SendLateness == nil || a.SendLateness.Count != want {
		t.Fatalf("send lateness %+v, want one for each of the %d messages", a.SendLateness, want)
	}
}

// TestPacedUnderCPUBoundNeighbours: a busy neighbour on every core beside paced publishers
// (the pacer sleeps most of each wait, so it must get the CPU back in time) still leaves them
// on their schedule, counted by the server: goroutines spinning in the process (the Go
// scheduler must run the pacer) or processes of their own (the kernel must), beside one
// publisher (it sleeps on its own) and 50 (the process's pacer wakes them).
func TestPacedUnderCPUBoundNeighbours(t *testing.T) {
	srv := startServer(t, false)
	const rate, d = 2000, 2 * time.Second
	for _, nb := range []struct {
		name string
		spin func(*testing.T)
	}{{"goroutines", spinGoroutines}, {"processes", spinProcesses}} {
		for _, clients := range []int{1, 50} {
			t.Run(fmt.Sprintf("%s/%d", nb.name, clients), func(t *testing.T) {
				nb.spin(t)
				p := pacedPubPlan(fmt.Sprintf("paced.neighbours.%s.%d", nb.name, clients), clients, rate, d)
				checkServerCountsSchedule(t, srv, p, rate, d, 0.8)
			})
		}
	}
}

// TestPacedPrecisionUnderCPUBoundProcesses: at a rate whose messages are closer than the
// pacing precision (10,000/s, 100us apart, where the pacer wakes once a millisecond and
// sends what fell due together), neighbours on every core still leave the schedule whole
// and the rate within a loose tolerance, counted by the server.
func TestPacedPrecisionUnderCPUBoundProcesses(t *testing.T) {
	srv := startServer(t, false)
	spinProcesses(t)
	const rate, d = 10_000, 2 * time.Second
	checkServerCountsSchedule(t, srv, pacedPubPlan("paced.precision", 1, rate, d), rate, d, 0.8)
}

// TestThousandPacedPublishers: 1,000 publishers at 10 msgs/s each, in one process, send all
// their messages, and every one is counted: the Result's count is the server's own (/varz
// in_msgs). docs/performance.md gives the CPU this costs.
func TestThousandPacedPublishers(t *testing.T) {
	if testing.Short() {
		t.Skip("opens 1,000 connections")
	}
	srv := startServer(t, false)
	const pubs, each, perPub = 1000, 10, 20 // 2 seconds of 10,000 msgs/s
	shares := make([]int64, pubs)
	for i := range shares {
		shares[i] = perPub
	}
	cfg := core.PubConfig{Subject: "paced.thousand", Size: 16, Rate: pubs * each, IDs: stamp.NewIDs()}
	p := &harness.Plan{
		Command: "pub",
		Groups: []*harness.Group{{Name: "pub", Kind: "publisher", Clients: pubs, Shares: shares, Producer: true, Rate: cfg.Rate,
			New: func(int) harness.Client { return core.NewPublisher(cfg) }}},
	}
	settings := connect.Settings{Servers: srv.URL()}
	r := &harness.Runner{Dial: func(ctx context.Context, name string, opts ...nats.Option) (*nats.Conn, error) {
		return connect.Connect(ctx, settings, name, opts...) // bounded connects, as the command does
	}}
	res, in, _ := serverCounted(t, srv, r, p, pubs*perPub)
	a := res.Groups[0].Aggregate
	t.Logf("%d publishers sent %d messages at %.0f msgs/sec; the server received %d", pubs, a.Msgs, a.MsgsPerSec, in)
	if !res.Complete() || a.Msgs != pubs*perPub || in != a.Msgs {
		t.Fatalf("stop %+v: sent %d, the server received %d, want %d each", res.Stop, a.Msgs, in, pubs*perPub)
	}
	for i, c := range res.Groups[0].Clients {
		if c.Msgs != perPub || c.SendLateness == nil || c.SendLateness.Count != perPub {
			t.Fatalf("publisher %d sent %d of %d, send lateness %+v", i, c.Msgs, perPub, c.SendLateness)
		}
	}
	if l := a.SendLateness; l == nil || l.Count != pubs*perPub || l.Histogram == "" {
		t.Fatalf("the group's send lateness %+v, want %d messages and its histogram", l, pubs*perPub)
	}
	if a.MsgsPerSec > cfg.Rate*1.001 {
		t.Fatalf("the publishers together sent %.0f msgs/sec, above the %.0f asked", a.MsgsPerSec, cfg.Rate)
	}
}

// TestManyPacedClients: many publishers at a low rate each (the full figure, 1,000 at 10
// msgs/s, is in docs/performance.md) complete their schedule and a subscriber counts every
// message, none lost.
func TestManyPacedClients(t *testing.T) {
	srv := startServer(t, false)
	const pubs, each, d = 200, 10, 2 * time.Second
	const total = pubs * each * 2
	// Bounded by count, not by the duration: a publisher that a busy machine keeps behind its
	// schedule still sends its 20 (late), so the subscriber's share is always met.
	cfg := core.PubConfig{Subject: "paced.many", Size: 16, Rate: pubs * each, IDs: stamp.NewIDs()}
	shares := make([]int64, pubs)
	for i := range shares {
		shares[i] = int64(each * d / time.Second)
	}
	sub := core.SubConfig{Subject: "paced.many", IdleTimeout: 5 * time.Second, PendingMsgs: -1, PendingBytes: -1}
	p := &harness.Plan{
		Command: "pubsub", Latency: true,
		Groups: []*harness.Group{
			{Name: "pub", Kind: "publisher", Clients: pubs, Producer: true, Rate: cfg.Rate, Shares: shares,
				New: func(int) harness.Client { return core.NewPublisher(cfg) }},
			{Name: "sub", Kind: "subscriber", Clients: 1, Shares: []int64{total},
				New: func(int) harness.Client { return core.NewSubscriber(sub) }},
		},
	}
	res := run(t, srv.URL(), 0, p)
	pa, sa := res.Groups[0].Aggregate, res.Groups[1].Aggregate
	t.Logf("published %d at %.0f msgs/sec; received %d", pa.Msgs, pa.MsgsPerSec, sa.Msgs)
	if pa.Msgs != total || sa.Msgs != total {
		t.Fatalf("published %d, received %d, want %d each", pa.Msgs, sa.Msgs, total)
	}
	if c := sa.Correctness; c == nil || c.Lost != 0 || c.Publishers != pubs {
		t.Fatalf("correctness %+v, want %d publishers, none lost", c, pubs)
	}
	if pa.MsgsPerSec > cfg.Rate*1.001 || pa.MsgsPerSec < cfg.Rate*0.5 {
		t.Fatalf("the %d publishers together sent %.0f msgs/sec, want %.0f", pubs, pa.MsgsPerSec, cfg.Rate)
	}
}

// TestManySubscribersConnect: thousands of subscriber connections opened at once through
// connect.Connect (the command's path, connects bounded in number) all connect and each
// receives every message (docs/performance.md has 10,000 against a standalone server).
func TestManySubscribersConnect(t *testing.T) {
	srv := startServer(t, false)
	const subs, msgs = 2000, 5
	settings := connect.Settings{Servers: srv.URL()}
	shares := make([]int64, subs)
	for i := range shares {
		shares[i] = msgs
	}
	cfg := core.PubConfig{Subject: "many.subs", Size: 16, IDs: stamp.NewIDs()}
	sub := core.SubConfig{Subject: "many.subs", IdleTimeout: 10 * time.Second, PendingMsgs: -1, PendingBytes: -1}
	p := &harness.Plan{
		Command: "pubsub",
		Groups: []*harness.Group{
			{Name: "sub", Kind: "subscriber", Clients: subs, Shares: shares,
				New: func(int) harness.Client { return core.NewSubscriber(sub) }},
			{Name: "pub", Kind: "publisher", Clients: 1, Producer: true, Shares: []int64{msgs},
				New: func(int) harness.Client { return core.NewPublisher(cfg) }},
		},
	}
	r := &harness.Runner{Dial: func(ctx context.Context, name string, opts ...nats.Option) (*nats.Conn, error) {
		return connect.Connect(ctx, settings, name, opts...)
	}}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	res, err := r.Execute(ctx, p)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	sa := res.Groups[0]
	if len(sa.Clients) != subs || sa.Aggregate.Msgs != subs*msgs {
		t.Fatalf("%d subscribers received %d messages, want %d and %d", len(sa.Clients), sa.Aggregate.Msgs, subs, subs*msgs)
	}
	for i, c := range sa.Clients {
		if c.Msgs != msgs {
			t.Fatalf("subscriber %d received %d of %d", i, c.Msgs, msgs)
		}
	}
}

// TestPacedPublishersGoOnPastABlockedServer: paced publishers whose sends the process's pacer
// makes itself (more than four, each sending at most one message a wake-up) must not all stop
// when one server stops reading: a publish on a connection whose socket is full blocks under
// nats.go's connection lock. Five clients publish large messages to a server that is paused
// until the run's end (their sockets fill and their publishes block), five small ones to
// another server; the second five keep their schedule, counted by their server, with their
// send lateness far below the pause, while the first five's shows they were held up.
func TestPacedPublishersGoOnPastABlockedServer(t *testing.T) {
	if testing.Short() {
		t.Skip("fills sockets with megabytes")
	}
	free, blocked := startServer(t, false), startServer(t, true)
	const d = 3 * time.Second
	const pauseAt, pauseFor = 300 * time.Millisecond, 2700 * time.Millisecond
	dialTo := func(url string) harness.Dialer {
		return func(_ context.Context, name string, opts ...nats.Option) (*nats.Conn, error) {
			return nats.Connect(url, append(opts, nats.Name(name))...)
		}
	}
	group := func(name, url string, size int, rate float64) *harness.Group {
		cfg := core.PubConfig{Subject: "paced.blocked." + name, Size: size, Rate: rate, Duration: d, IDs: stamp.NewIDs()}
		shares := make([]int64, 5)
		for i := range shares {
			shares[i] = int64(rate*d.Seconds()) / 5
		}
		return &harness.Group{Name: name, Kind: "publisher", Clients: 5, Shares: shares, Producer: true, Rate: rate,
			Dial: dialTo(url), New: func(int) harness.Client { return core.NewPublisher(cfg) }}
	}
	// 500/s of 64 KiB per blocked client (32 MB/s): loopback's socket buffers fill within
	// about a second of the pause. 100/s of 16 B per free client: 2 ms apart, stepped.
	p := &harness.Plan{Command: "pub", Groups: []*harness.Group{
		group("free", free.URL(), 16, 500),
		group("blocked", blocked.URL(), 64<<10, 2500),
	}}
	time.AfterFunc(pauseAt, func() { _ = blocked.Pause(1, pauseFor) })
	r := &harness.Runner{Dial: dialTo(free.URL())}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	res, err := r.Execute(ctx, p)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	freeAgg, blockedAgg := res.Groups[0].Aggregate, res.Groups[1].Aggregate
	t.Logf("free: %d msgs, send lateness max %v; blocked: %d msgs, send lateness max %v",
		freeAgg.Msgs, time.Duration(freeAgg.SendLateness.Max), blockedAgg.Msgs, time.Duration(blockedAgg.SendLateness.Max))
	if late := time.Duration(blockedAgg.SendLateness.Max); late < time.Second {
		t.Fatalf("the paused server's publishers were at most %v late: their publishes never blocked, so this tested nothing", late)
	}
	if want := int64(500 * d.Seconds()); freeAgg.Msgs != want {
		t.Fatalf("the free server's publishers sent %d, want %d", freeAgg.Msgs, want)
	}
	// Without the pacer's watch they wait out the pause (over 1.5 s); with it, about 40 ms
	// per blocked connection, plus what a busy host adds.
	if late := time.Duration(freeAgg.SendLateness.Max); late > time.Second {
		t.Fatalf("the free server's publishers were up to %v late: the blocked ones held them up", late)
	}
}
