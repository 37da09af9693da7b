package engine

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

// latencyText runs a prepared latency run started at at and returns its Result and its text
// in the kind's own layout (latency-tests' blocks, then the servers and spikes).
func latencyText(t *testing.T, r *Execution) (*result.Result, string) {
	t.Helper()
	res := r.Wait()
	if r.Text == nil {
		t.Fatal("latency brings no text layout of its own")
	}
	var b bytes.Buffer
	if err := r.Text(&b, res); err != nil {
		t.Fatal(err)
	}
	return res, b.String()
}

const latencyRunSpec = `
version: natsperf.spec/v1
workloads:
  - kind: latency
    pacing: {rate: 500, duration: 1s}
    config: {subject: lat.telemetry}
`

// The latency command samples the servers as every command does: through a monitoring
// endpoint, its messages in and out over the run are what the server's /varz says happened
// between the test's own reads before and after it, 500 each way, less what natsperf sent
// before the start barrier: the JetStream API probes made while connecting, and the one
// route probe the publisher sends on A until the subscriber on B hears it (one server here:
// the first reaches it). The text ends with the cross-check line.
func TestLatencyTelemetryCountsMatchVarz(t *testing.T) {
	srv, mon := monitoredServer(t)
	s := parseSpec(t, latencyRunSpec)
	s.Target.Servers, s.Target.Monitor = []string{srv.ClientURL()}, []string{mon}
	before := httpVarz(t, mon)
	r, err := Prepare(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	r.Start(time.Time{})
	res, text := latencyText(t, r)
	r.Close()
	after := httpVarz(t, mon)
	tel := res.Telemetry
	if tel == nil || tel.Source != "monitor" || len(tel.Servers) != 1 {
		t.Fatalf("telemetry %+v", tel)
	}
	c := tel.Counters()
	api := int64(after.JetStream.Stats.API.Total - before.JetStream.Stats.API.Total)
	if c.JSAPITotal != 0 {
		t.Errorf("telemetry saw %d JetStream API requests during the run", c.JSAPITotal)
	}
	// 500 on schedule; a host that held the publisher more than the duration's grace behind
	// at its end stops it short (485 was seen at load), and the counts must agree on that.
	const probes = 1
	sent := res.Groups[0].Aggregate.Msgs
	if sent < 250 || sent > 500 {
		t.Fatalf("published %d, want up to 500 (at least half on a busy host)", sent)
	}
	if want := after.InMsgs - before.InMsgs - api - probes; c.InMsgs != want || c.InMsgs != sent {
		t.Errorf("telemetry in_msgs %d, /varz before/after less API and the probe %d (published %d)", c.InMsgs, want, sent)
	}
	if want := after.OutMsgs - before.OutMsgs - api - probes; c.OutMsgs != want || c.OutMsgs != sent {
		t.Errorf("telemetry out_msgs %d, /varz before/after less API and the probe %d (1 subscriber)", c.OutMsgs, want)
	}
	line := fmt.Sprintf("Servers counted (monitor, 1 server): %d msgs in, %d out over the run; natsperf counted pub %d, sub %d", sent, sent, sent, sent)
	if !strings.Contains(text, "HDR Percentiles:") || !strings.Contains(text, line) {
		t.Fatalf("text:\n%s", text)
	}
}

const latencyPauseSpec = `
version: natsperf.spec/v1
interval: 250ms
workloads:
  - kind: latency
    pacing: {rate: 1000, duration: 4s}
    config: {subject: lat.spike}
`

// A latency run whose server the test stalls for 300 ms at a known time (2 s after the
// start it chose) has a spike there in the receiver's latency, naming no server event (or
// only the slow consumer it caused), and the latency report prints it.
func TestLatencySpikeOnUnannouncedPause(t *testing.T) {
	var text string
	retryDisturbed(t, 2*time.Second, 2700*time.Millisecond, func() (*result.Result, error) {
		var res *result.Result
		res, text = latencyText(t, pausedRun(t, latencyPauseSpec))
		return res, checkPauseSpike(t, res, text)
	})
	if !strings.Contains(text, "Servers counted (embedded, 1 server)") || !strings.Contains(strings.ToLower(text), "spike: sub: p99") {
		t.Fatalf("text:\n%s", text)
	}
}
