package core_test

import (
	"fmt"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/core"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/stamp"
)

// BenchmarkPacedCPU is the CPU a paced message costs natsperf against the floor, a bare
// nats.go loop publishing the same messages on the same schedule (one goroutine for every
// connection, sleeping on Go's timer, as tools/perfcompare's -bare paced). Each iteration runs
// the floor, then natsperf's publishers, for pacedCPUFor each, and takes the process's CPU
// seconds from getrusage (user + system) around each: the server is a nats-server process,
// so its CPU is not counted. It reports both per message, the median of the iterations'
// ratios (x-floor: the goal is at most 1.3) and the threads' sleeps per message
// (docs/performance.md, "Eighth round"). Run it on an idle machine, several iterations:
//
//	go test -run '^$' -bench PacedCPU -benchtime 5x ./internal/core
func BenchmarkPacedCPU(b *testing.B) {
	url := natstest.ServerProcess(b, "v2.10.27").URL
	for _, s := range []struct {
		clients int
		rate    float64 // in total
	}{{8, 8000}, {2, 2000}, {50, 10_000}, {1, 10_000}} {
		b.Run(fmt.Sprintf("%dx%.0f", s.clients, s.rate/float64(s.clients)), func(b *testing.B) {
			msgs := s.rate * pacedCPUFor.Seconds()
			var floor, paced, ratios, floorSw, pacedSw []float64
			for range b.N {
				f, fsw := cpuOf(b, func() { barePaced(b, url, s.clients, s.rate, pacedCPUFor) })
				p, psw := cpuOf(b, func() { natsperfPaced(b, url, s.clients, s.rate, pacedCPUFor) })
				floor, paced, ratios = append(floor, f), append(paced, p), append(ratios, p/f)
				floorSw, pacedSw = append(floorSw, fsw), append(pacedSw, psw)
			}
			b.ReportMetric(median(floor)/msgs*1e6, "floor-cpu-us/msg")
			b.ReportMetric(median(paced)/msgs*1e6, "cpu-us/msg")
			b.ReportMetric(median(ratios), "x-floor")
			// Thread sleeps (voluntary context switches) per message: what the CPU follows on
			// a VM, and steadier than CPU seconds on a loaded machine.
			b.ReportMetric(median(floorSw)/msgs, "floor-sleeps/msg")
			b.ReportMetric(median(pacedSw)/msgs, "sleeps/msg")
			b.ReportMetric(0, "ns/op") // the wall time is the schedule's
		})
	}
}

// pacedCPUFor is how long each side of BenchmarkPacedCPU publishes.
const pacedCPUFor = 3 * time.Second

// cpuOf is the process's CPU seconds (user + system) spent while f ran, and its threads'
// voluntary context switches meanwhile.
func cpuOf(b *testing.B, f func()) (cpu, sleeps float64) {
	b.Helper()
	var before, after syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &before); err != nil {
		b.Fatal(err)
	}
	f()
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &after); err != nil {
		b.Fatal(err)
	}
	sec := func(r syscall.Rusage) float64 { return time.Duration(r.Utime.Nano() + r.Stime.Nano()).Seconds() }
	return sec(after) - sec(before), float64(after.Nvcsw - before.Nvcsw)
}

// barePaced is the floor: clients connections, one goroutine publishing rate messages a
// second across them for d on Go's timer, stamped as natsperf stamps them.
func barePaced(b *testing.B, url string, clients int, rate float64, d time.Duration) {
	b.Helper()
	conns := make([]*nats.Conn, clients)
	for i := range conns {
		nc, err := nats.Connect(url)
		if err != nil {
			b.Fatal(err)
		}
		defer nc.Close()
		conns[i] = nc
	}
	payload := make([]byte, stamp.ExtSize)
	total := int64(rate * d.Seconds())
	start := time.Now()
	startNs := start.UnixNano()
	for sent := int64(0); sent < total; {
		due := min(int64(time.Since(start).Seconds()*rate)+1, total)
		for ; sent < due; sent++ {
			stamp.PutExt(payload, 1, uint64(sent+1), startNs+int64(float64(sent)/rate*1e9), time.Now().UnixNano())
			if err := conns[sent%int64(clients)].Publish("paced.cpu.floor", payload); err != nil {
				b.Fatal(err)
			}
		}
		next := start.Add(time.Duration(float64(sent) / rate * float64(time.Second)))
		time.Sleep(max(time.Until(next), 250*time.Microsecond))
	}
	for _, nc := range conns {
		if err := nc.Flush(); err != nil {
			b.Fatal(err)
		}
	}
}

// natsperfPaced is natsperf's pub --clients clients --rate rate --duration d --size 24.
func natsperfPaced(b *testing.B, url string, clients int, rate float64, d time.Duration) {
	b.Helper()
	cfg := core.PubConfig{Subject: "paced.cpu.natsperf", Size: stamp.ExtSize, Rate: rate, Duration: d, IDs: stamp.NewIDs()}
	res := run(b, url, 0, &harness.Plan{
		Command: "pub", Latency: true,
		Groups: []*harness.Group{{Name: "pub", Kind: "publisher", Clients: clients, Producer: true, Rate: rate,
			New: func(int) harness.Client { return core.NewPublisher(cfg) }}},
	})
	if got, want := res.Groups[0].Aggregate.Msgs, int64(rate*d.Seconds()); got < want*9/10 {
		b.Fatalf("natsperf sent %d of %d", got, want)
	}
}

func median(v []float64) float64 {
	s := slices.Clone(v)
	slices.Sort(s)
	return s[len(s)/2]
}
