package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/spike"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// testTarget is an embedded cluster the test owns, so it can act on it and read it after
// the run.
func testTarget(t *testing.T, o embedded.Options) *Target {
	t.Helper()
	c, err := embedded.Start(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	return &Target{Settings: connect.Settings{Servers: c.URL(), ConnectTimeout: connect.DefaultConnectTimeout}, Embedded: c, Shared: true}
}

func parseSpec(t *testing.T, yaml string) *spec.Spec {
	t.Helper()
	s, err := spec.ParseYAML([]byte(yaml))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func textOf(t *testing.T, res *result.Result) string {
	var b bytes.Buffer
	if err := report.Text(&b, res); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

const killLeaderSpec = `
version: natsperf.spec/v1
setup:
  streams:
    - {name: benchstream, storage: memory, replicas: 3, create: true}
workloads:
  - kind: js pub async
    pacing: {rate: 100, duration: 5s}
    config: {stream: benchstream, subject: benchstream}
faults:
  inject: [2s:kill-leader]
`

// A fixed-rate R3 run whose stream leader is killed at 2 s has a spike there (async
// publishes through nats.go, which retries a "no responders" publish twice 250 ms apart
// while the stream has no leader; js pub sync at a fixed rate is in the open model, whose
// publishes fail at once then and leave no spike), and the spike names the stream's leader
// change to the leader the stream has after the run (read by the test itself), from the node
// the fault killed.
func TestSpikeNamesKillLeader(t *testing.T) {
	retryDisturbed(t, 2*time.Second, 4*time.Second, func() (*result.Result, error) {
		target := testTarget(t, embedded.Options{Nodes: 3})
		res, err := Execute(context.Background(), parseSpec(t, killLeaderSpec), Options{Target: target})
		if err != nil {
			t.Fatal(err)
		}
		st, err := natstest.JetStream(t, target.Embedded.URL()).Stream(context.Background(), "benchstream")
		if err != nil {
			t.Fatal(err)
		}
		leader := st.CachedInfo().Cluster.Leader
		if res.Faults == nil || len(res.Faults.Timeline) != 1 || res.Faults.Timeline[0].Node == "" {
			t.Fatalf("fault timeline %+v", res.Faults)
		}
		killed := res.Faults.Timeline[0].Node
		var named, spiked bool
		text := textOf(t, res)
		for _, s := range spike.Find(res, spike.Default) {
			if s.To < 2*time.Second || s.From > 4*time.Second {
				continue
			}
			spiked = true
			for _, e := range s.Events {
				if (e.Kind == "leader_elected" || e.Kind == "leader_change") && e.Stream == "benchstream" && e.Detail == killed+" -> "+leader {
					named = true
				}
			}
		}
		if !spiked {
			return res, fmt.Errorf("%w: no spike at 2-4 s; events %+v\n%s", errNothingToName, res.Events, text)
		}
		if !named {
			return res, fmt.Errorf("no spike at 2-4 s names benchstream's leader %s -> %s; events %+v\n%s", killed, leader, res.Events, text)
		}
		// The failover's block tells the leader change (and the spike as its peak) once.
		if !strings.Contains(text, "stream benchstream leader "+killed+" -> "+leader) &&
			!(strings.Contains(text, "Failover 1: 2s:kill-leader at") && strings.Contains(text, "new leader of stream benchstream: "+leader)) {
			return res, fmt.Errorf("the text does not name the leader change:\n%s", text)
		}
		return res, nil
	})
}

// errNothingToName marks a run in which the fault did not raise latency enough to make a
// spike: a leader killed between two publishes, with the next leader elected within 20 ms,
// leaves nothing to attribute (seen once in a local .ci/run: 30 ms without acks, max 3.7 ms
// after it).
var errNothingToName = errors.New("the fault made no spike")

// retryDisturbed runs attempt up to three times. A spike is judged against the run's own
// median, so a run in which natsperf's process itself stalled 50 ms or more outside the
// window under test (a busy host, seen by the stall watch in the Result's telemetry: 300 ms
// stalls at load average 15) says nothing about attribution either way, and runs again; so
// does a run whose fault made no spike (errNothingToName). A failure on an undisturbed run,
// or on the last attempt, fails the test.
func retryDisturbed(t *testing.T, from, to time.Duration, attempt func() (*result.Result, error)) {
	t.Helper()
	for i := 1; ; i++ {
		res, err := attempt()
		if err == nil {
			return
		}
		if i < 3 && errors.Is(err, errNothingToName) {
			t.Logf("attempt %d: %v\nonce more", i, err)
			continue
		}
		stall := stalledOutside(res, from, to)
		if i == 3 || stall < 50*time.Millisecond {
			t.Fatal(err)
		}
		t.Logf("attempt %d: %v\nnatsperf's own process stalled %v outside %v-%v: once more", i, err, stall, from, to)
	}
}

// stalledOutside is the longest stall of natsperf's process the run recorded in an interval
// that does not overlap [from, to).
func stalledOutside(res *result.Result, from, to time.Duration) time.Duration {
	if res == nil || res.Telemetry == nil {
		return 0
	}
	iv := res.Telemetry.Interval
	var worst time.Duration
	for _, s := range res.Telemetry.Stalls {
		if s.Offset < to && s.Offset+iv > from {
			continue
		}
		worst = max(worst, s.Max, s.RunQueue)
	}
	return worst
}

const steadySpec = `
version: natsperf.spec/v1
interval: 250ms
workloads:
  - kind: pubsub
    pacing: {rate: 1000, duration: 4s}
    config: {subject: spike.test, size: 64}
`

// A run whose server the test stalls for 300 ms at a known time (2 s after the start it
// chose) has its spike there, at least as high as most of the stall, and it names no
// server event (natsperf did not cause it and the server announced nothing) or the slow
// consumer it caused: never a fault or a leader change.
func TestSpikeOnUnannouncedPause(t *testing.T) {
	retryDisturbed(t, 2*time.Second, 2700*time.Millisecond, func() (*result.Result, error) {
		res := pausedRun(t, steadySpec).Wait()
		return res, checkPauseSpike(t, res, textOf(t, res))
	})
}

// pausedRun starts the Spec in yaml on an embedded server the test stalls for 300 ms, 2 s
// after the start it chose (the engine does not know), and returns the run to wait for.
func pausedRun(t *testing.T, yaml string) *Execution {
	t.Helper()
	target := testTarget(t, embedded.Options{Nodes: 1, Pausable: true})
	r, err := Prepare(context.Background(), parseSpec(t, yaml), Options{Target: target})
	if err != nil {
		t.Fatal(err)
	}
	at := time.Now().Add(200 * time.Millisecond)
	r.Start(at)
	time.Sleep(time.Until(at.Add(2 * time.Second)))
	if err := target.Embedded.Pause(1, 300*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	return r
}

// checkPauseSpike checks that res, whose server the test stalled for 300 ms 2 s after its
// start, has the receivers' spike there, at least as high as most of the stall, naming no
// server event but the slow consumer it may have caused, and that text prints it so. A
// missing spike is returned (see retryDisturbed); what a spike names fails the test.
func checkPauseSpike(t *testing.T, res *result.Result, text string) error {
	t.Helper()
	var found bool
	for _, s := range spike.Find(res, spike.Default) {
		if s.To < 2*time.Second || s.From > 2700*time.Millisecond || s.Group != "sub" {
			continue
		}
		found = true
		if s.P99 < int64(200*time.Millisecond) {
			t.Errorf("spike P99 %v during a 300 ms stall", time.Duration(s.P99))
		}
		for _, e := range s.Events {
			if e.Kind != "slow_consumer" {
				t.Errorf("the stall's spike names %+v", e)
			}
		}
	}
	if !found {
		return fmt.Errorf("no spike at 2.0-2.7 s:\n%s", text)
	}
	if !strings.Contains(text, "no server event in that window") && !strings.Contains(text, "slow consumer") {
		t.Fatalf("text:\n%s", text)
	}
	return nil
}

// Runs without any fault name no spike: several, so that one quiet run is no accident.
// A spike the load generator's own stall explains is printed as a host stall, never as a
// server's doing, and carries no event.
func TestNoSpikeWithoutFault(t *testing.T) {
	target := testTarget(t, embedded.Options{Nodes: 1})
	for i := range 3 {
		res, err := Execute(context.Background(), parseSpec(t, steadySpec), Options{Target: target})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Events) != 0 {
			t.Errorf("run %d: events %+v", i, res.Events)
		}
		for _, s := range spike.Find(res, spike.Default) {
			if !s.Host() {
				t.Errorf("run %d: spike %s\n%s", i, s, textOf(t, res))
			} else {
				t.Logf("run %d: host stall %s", i, s)
			}
		}
	}
}
