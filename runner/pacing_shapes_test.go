package runner_test

import (
	"context"
	"encoding/binary"
	"fmt"
	"os"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// pacingShape is a paced run users make, with how an own nats.go reference runs it.
type pacingShape struct {
	name    string
	js      bool // js pub async to a memory stream (else core pubsub with one subscriber)
	clients int
	rate    float64
}

// TestPacingShapesAgainstNatsGo: several paced publishers in one process, and the default
// pacing precision, report the latency an own nats.go reference measures on the same server
// and schedule, at one and two Go processors. It catches natsperf's own 5-10 ms (paced
// senders asleep in nanosleep holding every Go processor, so the goroutines reading the
// sockets waited for the runtime's monitor: P50 4-6 ms where the reference had 0.1 ms,
// corrected and uncorrected alike).
//
// The bound: natsperf's P50 from the actual sends (uncorrected) is at most 2 x the
// reference's + 0.5 ms. The reference times each message from its actual send, as a user's
// own code would, and the artefact inflated natsperf's uncorrected P50 as much as the
// reported one (10-18 ms against 0.1-0.4 ms, on main before the fix, in this test). It is
// uniform over the monitor's 0-10 ms, ten times the margin; the reference runs in the same
// process, on the same server, just before, so a host busy enough to slow one slows the
// other. natsperf's reported P50 is logged, not bounded: it counts from the planned wake-up,
// so a wake-up the host delays counts in full (by design: a stall is latency), which the
// reference cannot see; at load 27 on 2 cores such delays put it at 5-12 ms in a few runs,
// with the uncorrected P50 at 0.1-1.3 ms.
//
// At 50,000 msgs/s the default precision is chosen from the rate (loop.ChoosePrecision): at
// 1 ms, as before, a publisher sent 50 messages per wake-up back to back and the receiver
// queued them (P50 150-600 us against the reference's 55-140 us: within the 2x + 0.5 ms, so
// the Result's chosen precision is what this shape asserts). Each cell logs whether it holds
// the issue's bound too (the reported P50 within 1.5x the reference + 50 us), for the grid in
// docs/performance.md.
func TestPacingShapesAgainstNatsGo(t *testing.T) {
	if testing.Short() {
		t.Skip("about 17s: eight shapes against their references (NATSPERF_SHAPES=all: 18 more)")
	}
	if raceDetector {
		t.Skip("timings under the race detector: at one Go processor it saturated both natsperf and the reference")
	}
	shapes := []pacingShape{
		{name: "pubsub --pub 2 --sub 1 --rate 2000", clients: 2, rate: 2000},
		{name: "pubsub --pub 1 --rate 4000", clients: 1, rate: 4000},
		{name: "js pub async --clients 2 --rate 4000", js: true, clients: 2, rate: 4000},
		{name: "pubsub --pub 1 --rate 50000", clients: 1, rate: 50000},
	}
	if os.Getenv("NATSPERF_SHAPES") == "all" { // the issue's whole grid, for a measurement on a quiet machine
		for _, c := range []int{1, 4, 8} {
			for _, rate := range []float64{1000, 8000, 50000} {
				shapes = append(shapes,
					pacingShape{name: fmt.Sprintf("pubsub --pub %d --rate %.0f", c, rate), clients: c, rate: rate},
					pacingShape{name: fmt.Sprintf("js pub async --clients %d --rate %.0f", c, rate), js: true, clients: c, rate: rate})
			}
		}
	}
	s := natstest.Server(t, nil)
	url := s.ClientURL()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js := natstest.JetStream(t, url)
	natstest.CreateStream(t, js, jetstream.StreamConfig{Name: "shapes", Subjects: []string{"shapes.ref.>"}, Storage: jetstream.MemoryStorage, MaxBytes: 16 << 20, Discard: jetstream.DiscardOld})
	const d = time.Second
	for _, procs := range []int{1, 2} {
		for i, sh := range shapes {
			t.Run(fmt.Sprintf("GOMAXPROCS=%d/%s", procs, sh.name), func(t *testing.T) {
				defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(procs))
				ref := referenceP50(t, url, sh, fmt.Sprintf("shapes.ref.%d.%d", procs, i), d)
				got, uncorrected, lateness, pub := natsperfP50(t, url, sh, fmt.Sprintf("shapes.np.%d.%d", procs, i), d)
				limit := 2*ref + 500*time.Microsecond
				issue := "holds"
				if got > ref*3/2+50*time.Microsecond {
					issue = "misses"
				}
				t.Logf("P50 natsperf %v (uncorrected %v), nats.go %v (%s the issue's 1.5x + 50us); natsperf's send lateness P50 %v, pace precision %v (chosen %v)",
					got, uncorrected, ref, issue, lateness, pub.PacePrecision, pub.PacePrecisionChosen)
				if !pub.PacePrecisionChosen {
					t.Errorf("pace_precision_chosen false with no --pace-precision set")
				}
				// The rule's (its own test has the cases): one at 50,000 msgs/s wakes at least
				// every 200us, never 1ms.
				rates := make([]float64, sh.clients)
				for c := range rates {
					rates[c] = sh.rate / float64(sh.clients)
				}
				if want := loop.ChoosePrecision(rates); pub.PacePrecision != want {
					t.Errorf("pace precision %v in the Result, want the one chosen for %d x %.0f msgs/s: %v", pub.PacePrecision, sh.clients, rates[0], want)
				}
				if sh.clients == 1 && sh.rate == 50000 && pub.PacePrecision > 200*time.Microsecond {
					t.Errorf("pace precision %v at 50,000 msgs/s: want at most 10 messages per wake-up (200us)", pub.PacePrecision)
				}
				if uncorrected > limit {
					t.Errorf("natsperf's uncorrected P50 %v, the nats.go reference's %v: want at most 2x + 0.5ms = %v", uncorrected, ref, limit)
				}
				if sh.clients == 1 && sh.rate == 4000 && lateness < 100*time.Microsecond {
					// 4 sends per millisecond at the default 1ms precision go in one wake-up:
					// their grouping is in the send lateness (from the slot), not in the latency.
					t.Errorf("send lateness P50 %v: want the grouping of 4 sends per 1ms wake-up in it (>= 100us)", lateness)
				}
			})
		}
	}
}

// natsperfP50 runs sh through natsperf in this process for d and returns the P50 latency
// (deliveries to the subscriber, or acks), the P50 from the actual sends, the publishers'
// send lateness P50, and the publishers' group.
func natsperfP50(t *testing.T, url string, sh pacingShape, subject string, d time.Duration) (lat, uncorrected, late time.Duration, pub result.Group) {
	t.Helper()
	w := spec.Workload{Pacing: spec.Pacing{Rate: sh.rate, Duration: spec.Duration(d)}}
	group := "sub"
	if sh.js {
		w.Clients, group = sh.clients, "pub"
		w.Config = &spec.JSPubAsync{JSPublish: spec.JSPublish{Stream: "shapesnp", Subject: subject, Size: 128}}
	} else {
		w.Config = &spec.PubSub{Subject: subject, Size: 128, Pubs: sh.clients, Subs: 1}
	}
	sp := &spec.Spec{Version: spec.Version, Target: spec.Target{Servers: []string{url}}, Workloads: []spec.Workload{w}}
	if sh.js {
		// A memory stream of natsperf's own (the reference's is the test's), recreated empty.
		limit := spec.Size(16 << 20)
		sp.Setup.Streams = []spec.Stream{{Name: "shapesnp", Subjects: []string{subject}, Storage: "memory", MaxBytes: &limit, Create: true, Recreate: true}}
	}
	res, err := runner.Run(context.Background(), sp, runner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range res.Groups {
		if g.Name == group && g.Aggregate.Latency != nil {
			lat, uncorrected = g.Aggregate.Latency.At(50), g.Aggregate.Latency.Uncorrected.At(50)
		}
		if g.Name == "pub" {
			late, pub = g.Aggregate.SendLateness.At(50), g
		}
	}
	if lat == 0 || uncorrected == 0 {
		t.Fatalf("no %s latency, or no uncorrected one, in the Result (groups %d)", group, len(res.Groups))
	}
	return lat, uncorrected, late, pub
}

// referenceP50 runs sh with nats.go alone: sh.clients connections, each sleeping on a Go
// timer until its next slot (the rate spread over the clients, their slots interleaved as
// natsperf's), timed from the actual send: by one subscriber on its own connection (core),
// or from PublishAsync to its ack (JetStream).
func referenceP50(t *testing.T, url string, sh pacingShape, subject string, d time.Duration) time.Duration {
	t.Helper()
	total := int(sh.rate * d.Seconds())
	lats := make([]int64, total)
	var got atomic.Int64
	if !sh.js {
		sc, err := nats.Connect(url)
		if err != nil {
			t.Fatal(err)
		}
		defer sc.Close()
		sub, err := sc.Subscribe(subject, func(m *nats.Msg) {
			if n := got.Load(); n < int64(total) {
				lats[n] = time.Now().UnixNano() - int64(binary.LittleEndian.Uint64(m.Data))
				got.Add(1) // after the write: a reader that sees the count sees the latency
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Unsubscribe()
		if err := sc.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	start := time.Now().Add(50 * time.Millisecond)
	var wg sync.WaitGroup
	errs := make(chan error, sh.clients)
	for c := range sh.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs <- referenceClient(url, sh, subject, start, c, total, lats, &got)
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	natstest.WaitFor(t, 30*time.Second, "the reference's messages", func() bool { return got.Load() >= int64(total) })
	slices.Sort(lats)
	return time.Duration(lats[len(lats)/2])
}

// referenceClient is one reference publisher: messages c, c+clients, ... of the schedule.
func referenceClient(url string, sh pacingShape, subject string, start time.Time, c, total int, lats []int64, got *atomic.Int64) error {
	nc, err := nats.Connect(url)
	if err != nil {
		return err
	}
	defer nc.Close()
	var js nats.JetStreamContext
	type pending struct {
		f    nats.PubAckFuture
		sent time.Time
	}
	acks := make(chan pending, 4096)
	done := make(chan struct{})
	if sh.js {
		if js, err = nc.JetStream(); err != nil {
			return err
		}
		go func() { // times each ack as it comes (they come in order)
			defer close(done)
			for p := range acks {
				select {
				case <-p.f.Ok():
					lats[got.Add(1)-1] = int64(time.Since(p.sent))
				case <-p.f.Err():
				}
			}
		}()
	} else {
		close(done)
	}
	data := make([]byte, 128)
	for k := c; k < total; k += sh.clients {
		time.Sleep(time.Until(start.Add(time.Duration(float64(k) / sh.rate * float64(time.Second)))))
		now := time.Now()
		if !sh.js {
			binary.LittleEndian.PutUint64(data, uint64(now.UnixNano()))
			if err := nc.Publish(subject, data); err != nil {
				return err
			}
			continue
		}
		f, err := js.PublishAsync(subject, data)
		if err != nil {
			return err
		}
		acks <- pending{f, now}
	}
	close(acks)
	<-done
	return nc.Flush()
}
