package engine

import (
	"context"
	"testing"

	"github.com/natsperf/natsperf/internal/embedded"
)

const syncFaultSpec = `
version: natsperf.spec/v1
interval: 250ms
setup:
  streams:
    - {name: benchstream, storage: file, replicas: 3, create: true}
workloads:
  - kind: js pub sync
    pacing: {rate: 500, duration: 4s}
    config: {stream: benchstream, subject: benchstream, size: 64, ack_timeout: 1s}
faults:
  inject: [1500ms:kill-leader]
`

// TestSyncFaultOpenModel: js pub sync at a fixed rate with a fault runs in the open model
// (max_inflight recorded; before, a fault run kept the closed loop and its per-publish
// timeouts); the publishes sent to the dying leader, given up at their 1 s timeout while the
// new leader already acks, do not make the run "not recovered"; and the failover's block
// tells every failed publish of the client once: the fast failures and the timeouts it counts
// add up to the client's errors and timeouts, and none of them is stored in the stream (the
// server's count: sent - stored).
func TestSyncFaultOpenModel(t *testing.T) {
	if testing.Short() {
		t.Skip("a 3-node cluster, a leader killed: about 8 s")
	}
	target := testTarget(t, embedded.Options{Nodes: 3})
	spec := parseSpec(t, syncFaultSpec)
	spec.Verify = true
	res, err := Execute(context.Background(), spec, Options{Target: target})
	if err != nil {
		t.Fatal(err)
	}
	text := textOf(t, res)
	t.Logf("%s", text)
	if len(res.Groups) != 1 || len(res.Groups[0].Clients) != 1 {
		t.Fatalf("groups %+v", res.Groups)
	}
	c := res.Groups[0].Clients[0]
	if c.Events.MaxInflight <= 0 {
		t.Fatalf("events %+v: want the open model's bound (max_inflight)", c.Events)
	}
	if len(res.Failovers) != 1 || len(res.Failovers[0].Leaders) != 1 {
		t.Fatalf("failovers %+v: want one, for the one stream", res.Failovers)
	}
	if f := res.Failovers[0]; f.Leaders[0].Leader != "" && res.NotRecovered() != nil {
		t.Errorf("a new leader at %v, yet not recovered: %+v", f.Leaders[0].At, res.NotRecovered())
	}
	var refused, timedOut int64
	for _, o := range res.Failovers[0].Clients {
		timedOut += o.TimedOut
		for _, r := range o.Refused {
			refused += r.Count
		}
	}
	if refused != c.Events.Errors || timedOut != c.Events.Timeouts {
		t.Errorf("the block tells %d failed fast and %d timed out; the client counted %d errors and %d timeouts",
			refused, timedOut, c.Events.Errors, c.Events.Timeouts)
	}
	if v := res.Verify; v == nil || v.AckedButMissing != 0 || refused > v.Sent-v.Stored || refused+timedOut < v.Sent-v.Stored {
		t.Errorf("verify %+v: want refused (%d) <= not stored <= refused + timed out (%d)", res.Verify, refused, refused+timedOut)
	}
}
