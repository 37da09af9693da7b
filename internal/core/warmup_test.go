package core_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

// varzSample is the server's in_msgs read between before and after.
type varzSample struct {
	before, after time.Time
	in            int64
}

// runSampled runs p with a warm-up of warmup, calls during(start) once it has started, and
// samples the server's own count of messages received (/varz in_msgs) every 2 ms from before
// the start to the end.
func runSampled(t *testing.T, srv *embedded.Cluster, p *harness.Plan, warmup time.Duration, during func(start time.Time)) (*result.Result, []varzSample) {
	t.Helper()
	r := &harness.Runner{Dial: func(_ context.Context, name string, opts ...nats.Option) (*nats.Conn, error) {
		return nats.Connect(srv.URL(), append(opts, nats.Name(name))...)
	}, Warmup: warmup}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	prepared, err := r.Prepare(ctx, p)
	if err != nil {
		t.Fatalf("prepare: %v", err)
	}
	sample := func() (varzSample, bool) {
		before := time.Now()
		v, err := srv.Node(1).Varz(nil)
		if err != nil {
			return varzSample{}, false
		}
		return varzSample{before, time.Now(), v.InMsgs}, true
	}
	// The first sample is taken before the start (taken by the goroutine, a busy host could
	// delay it past the first messages), once the count has settled: the connections' set-up
	// request may be counted after a first read (serverCounted).
	first, ok := sample()
	for settled := false; ok && !settled; {
		time.Sleep(50 * time.Millisecond)
		var again varzSample
		if again, ok = sample(); ok {
			settled, first = again.in == first.in, again
		}
	}
	if !ok {
		prepared.Abort()
		t.Fatal("varz")
	}
	samples := []varzSample{first}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for {
			if s, ok := sample(); ok {
				samples = append(samples, s)
			}
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	start := time.Now()
	prepared.Start(start)
	if during != nil {
		go during(start)
	}
	res := prepared.Wait()
	// The server counts what the end's flush sent once its read loop runs: sample until the
	// count stops moving.
	for prev := int64(-1); ; time.Sleep(50 * time.Millisecond) {
		s, ok := sample()
		if !ok || s.in == prev {
			break
		}
		prev = s.in
	}
	close(stop)
	wg.Wait()
	if !res.Complete() {
		t.Fatalf("run stopped: %+v", res.Stop)
	}
	return res, samples
}

// inBounds is what the server had counted at at, as far as the samples tell: at least the
// count of the last read that ended before it, at most that of the first read that began
// after it. Sampled every 2 ms the two are a few messages apart; across a host stall that
// delayed the sampler they are as far apart as the stall was long, and the check widens by
// exactly what was not seen.
func inBounds(samples []varzSample, at time.Time) (lo, hi int64) {
	lo, hi = samples[0].in, samples[len(samples)-1].in
	for _, s := range samples { // in the order read, counts never falling
		if !s.after.After(at) {
			lo = s.in
		}
		if !s.before.Before(at) {
			return lo, max(lo, s.in)
		}
	}
	return lo, max(lo, hi)
}

// TestWarmupPacedPublishersMatchServer: paced core publishers (1 and 4, 2,000 msgs/s for
// 1.5s), with and without a 500 ms warm-up: their send lateness has one value per message
// counted, their rate is never above the one asked, and the server's own count (/varz
// in_msgs, sampled every 2 ms) over the span the Result measured is the messages it counted.
func TestWarmupPacedPublishersMatchServer(t *testing.T) {
	srv := startServer(t, false)
	const rate, d = 2000, 1500 * time.Millisecond
	for _, clients := range []int{1, 4} {
		for _, warmup := range []time.Duration{0, 500 * time.Millisecond} {
			t.Run(fmt.Sprintf("%d/%v", clients, warmup), func(t *testing.T) {
				p := pacedPubPlan(fmt.Sprintf("warmup.pub.%d.%d", clients, warmup.Milliseconds()), clients, rate, d)
				res, samples := runSampled(t, srv, p, warmup, nil)
				g := res.Groups[0]
				a := g.Aggregate
				total := int64(rate * d.Seconds())
				sent := samples[len(samples)-1].in - samples[0].in
				loStart, hiStart := inBounds(samples, a.Start)
				loEnd, hiEnd := inBounds(samples, a.End)
				server := (loEnd + hiEnd - loStart - hiStart) / 2 // for the log
				span := a.End.Sub(a.Start)
				t.Logf("counted %d of %d sent (server: %d in all, %d over the %v measured), %.1f msgs/s; send lateness %d, max %v",
					a.Msgs, total, sent, server, span, a.MsgsPerSec, a.SendLateness.Count, time.Duration(a.SendLateness.Max))
				if sent != total {
					t.Fatalf("the server received %d, want the %d sent", sent, total)
				}
				natstest.LatenessPerMsg(t, g)
				if a.MsgsPerSec > rate*1.001 || float64(a.Msgs) > span.Seconds()*rate+float64(clients) {
					t.Fatalf("%d messages over %v: %.1f msgs/s, above the %d asked", a.Msgs, span, a.MsgsPerSec, rate)
				}
				if warmup == 0 && a.Msgs != total {
					t.Fatalf("counted %d, want all %d", a.Msgs, total)
				}
				if warmup > 0 {
					want := int64(rate * (d - warmup).Seconds())
					if a.Msgs < want*9/10 || a.Msgs > want+int64(rate/10) {
						t.Fatalf("counted %d after the warm-up, want about %d", a.Msgs, want)
					}
				}
				// The server had the messages within a few ms of their sends (a busy host's
				// read loop lags): over the measured span it counted what natsperf did, within
				// 25 ms of sending at the rate.
				if a.Msgs < loEnd-hiStart-rate/40 || a.Msgs > hiEnd-loStart+rate/40 {
					t.Fatalf("the server counted %d-%d over the measured span, natsperf %d", loEnd-hiStart, hiEnd-loStart, a.Msgs)
				}
			})
		}
	}
}

// TestWarmupRequesterStalls freezes the server (so the requester, one request at a time at
// 200/s, falls behind its schedule and then sends what it owes at once) around a 500 ms
// warm-up:
//   - 300 ms within it (from 100 ms) and 100 ms after it (from 900 ms): the send lateness
//     has one value per request counted and shows the 100 ms stall, not the warm-up's 300 ms;
//   - 200 ms across its end (from 400 ms): the requests owed from before the end are sent
//     after it and counted, and the rate stays the one asked (the span starts at their slots).
func TestWarmupRequesterStalls(t *testing.T) {
	srv := startServer(t, true)
	const rate, n, warmup = 200, 300, 500 * time.Millisecond
	type stall struct{ at, d time.Duration }
	for _, tt := range []struct {
		name   string
		stalls []stall
	}{
		{"within and after", []stall{{100 * time.Millisecond, 300 * time.Millisecond}, {900 * time.Millisecond, 100 * time.Millisecond}}},
		{"across the end", []stall{{400 * time.Millisecond, 200 * time.Millisecond}}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p := servicePlan("svc.warmup.stall."+tt.name[:6], 0, rate, n)
			res, _ := runSampled(t, srv, p, warmup, func(start time.Time) {
				for _, s := range tt.stalls {
					time.Sleep(time.Until(start.Add(s.at)))
					if err := srv.Pause(1, s.d); err != nil {
						t.Errorf("pause: %v", err)
					}
					time.Sleep(s.d)
				}
			})
			g := res.Groups[1]
			a := g.Aggregate
			span := a.End.Sub(a.Start)
			t.Logf("counted %d requests over %v from %v after the start: %.1f/s; send lateness %d, P50 %v, max %v",
				a.Msgs, span, a.Start.Sub(res.Start), a.MsgsPerSec, a.SendLateness.Count,
				time.Duration(a.SendLateness.Percentiles[2].Ns), time.Duration(a.SendLateness.Max))
			natstest.LatenessPerMsg(t, g)
			if a.Latency == nil || a.Latency.Count != a.Msgs {
				t.Fatalf("latency %+v, want one for each of the %d requests", a.Latency, a.Msgs)
			}
			if a.MsgsPerSec > rate*1.001 || float64(a.Msgs) > span.Seconds()*rate+1 {
				t.Fatalf("%d requests over %v: %.1f/s, above the %d asked", a.Msgs, span, a.MsgsPerSec, rate)
			}
			if a.Msgs < 150 || a.Msgs > 240 {
				t.Fatalf("counted %d requests, want about 200 past the warm-up", a.Msgs)
			}
			if tt.name == "within and after" {
				if m := time.Duration(a.SendLateness.Max); m < 70*time.Millisecond || m >= 250*time.Millisecond {
					t.Fatalf("send lateness max %v: want the 100 ms stall after the warm-up, not its 300 ms one", m)
				}
			}
		})
	}
}
