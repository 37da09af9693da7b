package report_test

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/result"
)

// A run with telemetry gets the time-axis panels: server CPU and memory per server beside
// throughput and latency, its events as labelled markers; the text names its spike.
func TestTelemetryPanelsAndSpikeLine(t *testing.T) {
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	res := &result.Result{Schema: result.Schema, Tool: result.Tool{Name: "natsperf"}, Command: "pubsub", Start: start, End: start.Add(5 * time.Second),
		Stop: result.Stop{Reason: result.StopCompleted}}
	sub := result.Group{Name: "sub", Kind: "Core NATS subscriber", TargetRate: 100}
	for i := range 20 {
		p99 := int64(time.Millisecond)
		if i == 8 {
			p99 = int64(252 * time.Millisecond)
		}
		sub.Series = append(sub.Series, result.Interval{Offset: time.Duration(i) * 250 * time.Millisecond, Msgs: 25, P50: p99 / 2, P99: p99, Max: p99})
	}
	sub.Aggregate.Msgs = 500
	res.Groups = []result.Group{{Name: "pub", Kind: "Core NATS publisher", Aggregate: result.Aggregate{Msgs: 500}}, sub}
	res.Telemetry = &result.Telemetry{Source: "embedded", Interval: 250 * time.Millisecond}
	for _, n := range []string{"n1", "n2"} {
		ss := result.ServerSeries{Name: n}
		for i := range 21 {
			ss.Samples = append(ss.Samples, result.ServerSample{Offset: time.Duration(i) * 250 * time.Millisecond, CPU: 20, Mem: 30 << 20, InMsgs: int64(i) * 25, OutMsgs: int64(i) * 25})
		}
		res.Telemetry.Servers = append(res.Telemetry.Servers, ss)
	}
	res.Events = []result.Event{{At: 2020 * time.Millisecond, Kind: "leader_elected", Source: "advisory", Stream: "benchstream", Detail: "n2 -> n3"}}

	var text bytes.Buffer
	if err := report.Text(&text, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Servers counted (embedded, 2 servers): 1,000 msgs in, 1,000 out over the run; natsperf counted pub 500, sub 500",
		"Spike: sub: P99 1 ms -> 252 ms at 2.00-2.25 s: stream benchstream leader n2 -> n3 (advisory at 2.02 s)",
	} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}

	path := filepath.Join(t.TempDir(), "run.json")
	if err := result.WriteFile(path, res); err != nil {
		t.Fatal(err)
	}
	set, err := report.Load([]string{path})
	if err != nil {
		t.Fatal(err)
	}
	var html bytes.Buffer
	if err := report.HTML(&html, set, ""); err != nil {
		t.Fatal(err)
	}
	h := html.String()
	for _, want := range []string{"server CPU", "server memory", `class="marker"`, "stream benchstream leader n2 -&gt; n3 (advisory at 2.02 s)"} {
		if !strings.Contains(h, want) {
			t.Errorf("html lacks %q", want)
		}
	}
}
