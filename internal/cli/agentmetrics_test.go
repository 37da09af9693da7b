package cli

import (
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/live"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// TestAgentRunMetricsIntervalIsTheEngines: a distributed cell's live rate (--metrics-addr)
// divides each interval's messages by the width the agents' engines slice at. A run with
// --fault-exec slices at 250 ms (engine.FaultInterval), and the metrics divided by the default
// 1 s: rates four times too low.
func TestAgentRunMetricsIntervalIsTheEngines(t *testing.T) {
	s := &spec.Spec{Version: spec.Version, Faults: spec.Faults{Exec: []string{"1s:true"}},
		Workloads: []spec.Workload{{Config: &spec.Pub{Subject: "m"}}}}
	m := live.NewMetrics(1)
	m.StartRun("c", "001-r1", runner.SeriesInterval(s)) // what runner tells a coordinated run's metrics
	sink, err := live.Open("", m)
	if err != nil {
		t.Fatal(err)
	}
	// 250 messages in the interval from 1 s, then the next one opens: the first is complete.
	sink.C() <- record.Slice{Start: 1e9, Msgs: 250, Bytes: 2500, Src: "pub/1"}
	sink.C() <- record.Slice{Start: 1.25e9, Msgs: 10, Bytes: 100, Src: "pub/1"}
	if err := sink.Close(); err != nil {
		t.Fatal(err)
	}
	w := httptest.NewRecorder()
	m.ServeHTTP(w, httptest.NewRequest("GET", "/metrics", nil))
	want := `natsperf_rate_msgs_per_second{cell="c",group="pub",run="001-r1"} 1000`
	if !strings.Contains(w.Body.String(), want) {
		t.Fatalf("metrics lack %q (250 messages in a 250 ms interval):\n%s", want, w.Body.String())
	}
}
