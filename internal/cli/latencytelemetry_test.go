package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
)

// The latency command takes the server telemetry flags every benchmark command takes: on by
// default on the embedded server, whose count of messages in and out over the run is
// natsperf's (core NATS, one subscriber: 200 each way) and printed after latency-tests'
// blocks; off with --no-server-metrics; through --server-metrics on a server of the test's.
func TestLatencyServerMetricsFlags(t *testing.T) {
	base := []string{"latency", "--rate", "200", "--duration", "1s", "--no-progress"}
	r := run(context.Background(), t, nil, base...)
	if r.code != 0 || !strings.Contains(r.out, "HDR Percentiles:") ||
		!strings.Contains(r.out, "Servers counted (embedded, 1 server): 200 msgs in, 200 out over the run; natsperf counted pub 200, sub 200") {
		t.Fatalf("embedded: exit %d\n%s%s", r.code, r.out, r.err)
	}
	res, r := runJSON(context.Background(), t, append(base, "--no-server-metrics")...)
	if r.code != 0 || res.Telemetry != nil {
		t.Fatalf("--no-server-metrics: exit %d, telemetry %+v", r.code, res.Telemetry)
	}
	if r := run(context.Background(), t, nil, append(base, "--no-server-metrics")...); strings.Contains(r.out, "Servers counted") {
		t.Fatalf("--no-server-metrics printed the servers:\n%s", r.out)
	}
	srv := startServer(t, func(o *server.Options) { o.HTTPHost, o.HTTPPort = "127.0.0.1", -1 })
	mon := fmt.Sprintf("http://%s", srv.MonitorAddr())
	args := append(base, "-s", srv.ClientURL(), "--server-b", srv.ClientURL(), "--server-metrics", mon)
	res, r = runJSON(context.Background(), t, args...)
	if r.code != 0 || res.Telemetry == nil || res.Telemetry.Source != "monitor" || len(res.Telemetry.Servers) != 1 ||
		res.Telemetry.Servers[0].Name != srv.Name() || res.Telemetry.Counters().InMsgs != 200 {
		t.Fatalf("--server-metrics: exit %d, telemetry %+v: %s", r.code, res.Telemetry, r.err)
	}
	sp := run(context.Background(), t, nil, append([]string{"spec"}, args...)...)
	if sp.code != 0 || !strings.Contains(sp.out, mon) {
		t.Fatalf("spec: exit %d: the Spec does not name the monitoring endpoint:\n%s%s", sp.code, sp.out, sp.err)
	}
}
