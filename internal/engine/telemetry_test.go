package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/spec"
)

// httpVarz is the test's own read of a server's /varz, through its monitoring port.
func httpVarz(t *testing.T, base string) server.Varz {
	t.Helper()
	resp, err := http.Get(base + "/varz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var v server.Varz
	if err := json.NewDecoder(resp.Body).Decode(&v); err != nil {
		t.Fatal(err)
	}
	return v
}

func monitoredServer(t *testing.T) (*server.Server, string) {
	srv := natstest.Server(t, func(o *server.Options) { o.HTTPHost, o.HTTPPort = "127.0.0.1", -1 })
	return srv, fmt.Sprintf("http://%s", srv.MonitorAddr())
}

// Over a core run, the telemetry's messages in and out are exactly what the server's /varz
// says happened between a read before the run and one after it, less the JetStream API
// requests natsperf made while connecting (one $JS.API.INFO probe per server, each one
// message in and its reply one out; /varz counts them in jetstream.stats.api.total): the
// sampler's first reading is just before the start barrier, its last after the clients are
// done, and nothing but the clients' messages passes in between.
func TestTelemetryCountsMatchVarz(t *testing.T) {
	srv, mon := monitoredServer(t)
	s := pubsubSpec(srv.ClientURL(), 20000, 2)
	s.Target.Monitor = []string{mon}
	before := httpVarz(t, mon)
	res, err := Execute(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	after := httpVarz(t, mon)
	tel := res.Telemetry
	if tel == nil || tel.Source != "monitor" || len(tel.Servers) != 1 || len(tel.Servers[0].Samples) < 2 {
		t.Fatalf("telemetry %+v", tel)
	}
	c := tel.Counters()
	api := int64(after.JetStream.Stats.API.Total - before.JetStream.Stats.API.Total)
	if api != 1 {
		t.Errorf("%d JetStream API requests around the run, want the 1 probe", api)
	}
	if want := after.InMsgs - before.InMsgs - api; c.InMsgs != want || c.InMsgs != 20000 {
		t.Errorf("telemetry in_msgs %d, /varz before/after less API %d (published 20000)", c.InMsgs, want)
	}
	if want := after.OutMsgs - before.OutMsgs - api; c.OutMsgs != want || c.OutMsgs != 40000 {
		t.Errorf("telemetry out_msgs %d, /varz before/after less API %d (2 subscribers)", c.OutMsgs, want)
	}
	if c.JSAPITotal != 0 {
		t.Errorf("telemetry saw %d JetStream API requests during a core run", c.JSAPITotal)
	}
	ss := tel.Servers[0]
	if ss.Name != srv.Name() || ss.ClockUncertaintyNS <= 0 {
		t.Errorf("server %q (want %q), clock uncertainty %d", ss.Name, srv.Name(), ss.ClockUncertaintyNS)
	}
}

// An embedded server is sampled by default, and not with --no-server-metrics.
func TestTelemetryEmbeddedByDefault(t *testing.T) {
	for _, off := range []bool{false, true} {
		s := pubsubSpec("", 2000, 1)
		s.Target.Embedded = &spec.Embedded{}
		s.NoServerMetrics = off
		res, err := Execute(context.Background(), s, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if off {
			if res.Telemetry != nil {
				t.Fatalf("--no-server-metrics still sampled: %+v", res.Telemetry)
			}
			continue
		}
		tel := res.Telemetry
		if tel == nil || tel.Source != "embedded" || len(tel.Servers) != 1 {
			t.Fatalf("telemetry %+v", tel)
		}
		if c := tel.Counters(); c.InMsgs != 2000 || c.OutMsgs != 2000 {
			t.Errorf("embedded server counted in %d out %d, want 2000 each", c.InMsgs, c.OutMsgs)
		}
		if last := tel.Servers[0].Samples[len(tel.Servers[0].Samples)-1]; last.Mem <= 0 || last.Connections < 2 {
			t.Errorf("last sample %+v", last)
		}
	}
}
