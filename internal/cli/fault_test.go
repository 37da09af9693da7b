package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/result"
)

// TestFaultR3KillLeader: an R3 file stream on the embedded 3-node cluster, async publishing at
// a fixed rate, the stream leader killed mid-run and restarted. No acknowledged message may be
// missing, the outage must show, and the Result is saved with the timeline.
func TestFaultR3KillLeader(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a cluster node: about 8s")
	}
	t.Setenv("TMPDIR", t.TempDir()) // the embedded store: checked for leftovers below
	out := filepath.Join(t.TempDir(), "r3.json")
	res, r := runJSON(context.Background(), t, "pubsub", "foo", "--js", "--replicas", "3", "--rate", "2000",
		"--duration", "5s", "--verify", "--fault", "1500ms:kill-leader", "--fault", "3s:restart",
		"--ack-timeout", "1s", "--idle-timeout", "2s", "-o", out)
	v, f := res.Verify, res.Faults
	if v == nil || f == nil {
		t.Fatalf("no verify or faults in the Result; stderr %s", r.err)
	}
	if v.Error != "" || v.AckedButMissing != 0 || v.Acked == 0 || v.Stored < v.Acked {
		t.Fatalf("verify %+v: want every acknowledged message stored", *v)
	}
	if f.Unavailable.Duration <= 0 || v.Unavailable != f.Unavailable.Duration {
		t.Fatalf("unavailable %v (verify %v): want a measured outage", f.Unavailable, v.Unavailable)
	}
	if len(f.Timeline) != 2 || f.Timeline[0].Error != "" || f.Timeline[1].Error != "" || f.Timeline[0].Node == "" {
		t.Fatalf("timeline %+v", f.Timeline)
	}
	if ev := f.Timeline[0]; ev.Started < 1500*time.Millisecond || ev.Started > 2500*time.Millisecond {
		t.Fatalf("kill-leader took effect at %v, planned 1.5s", ev.Started)
	}
	if len(res.Windows) != 3 || res.Windows[0].Label != "before faults" || res.Windows[0].Groups[0].Latency == nil {
		t.Fatalf("windows %+v", res.Windows)
	}
	saved, err := result.ReadFile(out)
	if err != nil || saved.Verify == nil || saved.Faults == nil {
		t.Fatalf("saved Result: %v", err)
	}
	if left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "natsperf-*")); len(left) > 0 {
		t.Fatalf("store left behind: %v", left)
	}
}

// TestFaultR1MemoryLoss: the node holding an R1 memory stream is killed and restarted empty;
// the acknowledged messages it held must be reported lost, never hidden.
func TestFaultR1MemoryLoss(t *testing.T) {
	if testing.Short() {
		t.Skip("kills a cluster node: about 6s")
	}
	out := filepath.Join(t.TempDir(), "r1.json")
	r := run(context.Background(), t, nil, "pubsub", "foo", "--js", "--storage", "memory", "--rate", "2000",
		"--duration", "3s", "--verify", "--fault", "1s:kill-leader", "--fault", "2s:restart",
		"--ack-timeout", "1s", "--idle-timeout", "1s", "--no-progress", "-o", out)
	res, err := result.ReadFile(out)
	if err != nil {
		t.Fatalf("exit %d, stderr %s: %v", r.code, r.err, err)
	}
	v := res.Verify
	if v == nil || (v.AckedButMissing == 0 && v.Error == "") {
		t.Fatalf("verify %+v: the loss of the memory stream's node went unreported", v)
	}
	if v.AckedButMissing > 0 && r.code != exitLoss {
		t.Fatalf("acked but missing %d, exit %d: want %d (data loss)", v.AckedButMissing, r.code, exitLoss)
	}
	if !strings.Contains(r.out, "verify: sent ") || !(strings.Contains(r.out, "verify: LOST:") || strings.Contains(r.out, "NOT VERIFIED")) {
		t.Fatalf("text output does not state the loss:\n%s", r.out)
	}
}

// TestSlowSubscriberDrops: a core subscriber slower than its publisher with a bounded pending
// buffer; the client library's dropped count and the sequence gaps must agree.
func TestSlowSubscriberDrops(t *testing.T) {
	s := startServer(t, nil)
	res, r := runJSON(context.Background(), t, "pubsub", "slow", "-s", s.ClientURL(), "--msgs", "3000", "--size", "64",
		"--sub-sleep", "200us", "--pending-msgs", "100", "--idle-timeout", "500ms", "--verify")
	sub := group(t, res, "sub").Aggregate
	if sub.Events.Dropped == 0 {
		t.Fatalf("nothing dropped: the subscriber was not slow enough (stderr %s)", r.err)
	}
	if sub.Correctness == nil || sub.Correctness.Lost != sub.Events.Dropped {
		t.Fatalf("dropped %d, sequence gaps %+v: want them equal", sub.Events.Dropped, sub.Correctness)
	}
	if v := res.Verify; v == nil || v.Lost != sub.Events.Dropped || v.Sent != 3000 || v.Delivered+v.Lost != 3000 {
		t.Fatalf("verify %+v", res.Verify)
	}
}

// TestFaultExec runs a command at its time and keeps its output.
func TestFaultExec(t *testing.T) {
	s := startServer(t, nil)
	res, r := runJSON(context.Background(), t, "pubsub", "ex", "-s", s.ClientURL(), "--rate", "1000", "--duration", "1s",
		"--fault-exec", "300ms:echo hello from the fault", "--fault-exec", "400ms:exit 3", "--fault-exec", "5s:echo never")
	if res.Faults == nil || len(res.Faults.Timeline) != 3 {
		t.Fatalf("faults %+v (stderr %s)", res.Faults, r.err)
	}
	tl := res.Faults.Timeline
	if tl[0].Detail != "hello from the fault" || tl[0].Error != "" || tl[0].Started < 300*time.Millisecond {
		t.Fatalf("first command: %+v", tl[0])
	}
	if !strings.Contains(tl[1].Error, "exit status 3") {
		t.Fatalf("failing command: %+v", tl[1])
	}
	if !tl[2].Skipped {
		t.Fatalf("a command after the run must be skipped: %+v", tl[2])
	}
}

// TestStepdownExternal steps the stream leader down on a cluster natsperf did not start.
func TestStepdownExternal(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-node cluster: about 4s")
	}
	c, err := embedded.Start(context.Background(), embedded.Options{Nodes: 3, StoreDir: t.TempDir(), JetStreamMaxMemory: 64 << 20, JetStreamMaxStore: 256 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Shutdown)
	res, r := runJSON(context.Background(), t, "js", "pub", "async", "sd", "-s", c.URL(), "--create", "--replicas", "3", "--maxbytes", "32MiB",
		"--rate", "1000", "--duration", "2500ms", "--verify", "--fault", "1s:stepdown")
	if res.Faults == nil || len(res.Faults.Timeline) != 1 {
		t.Fatalf("faults %+v (stderr %s)", res.Faults, r.err)
	}
	ev := res.Faults.Timeline[0]
	if ev.Error != "" || ev.Node == "" || ev.NewLeader == "" || ev.NewLeader == ev.Node {
		t.Fatalf("stepdown %+v: want a new leader", ev)
	}
	if v := res.Verify; v == nil || v.Error != "" || v.AckedButMissing != 0 || v.Acked == 0 {
		t.Fatalf("verify %+v", res.Verify)
	}
}

func TestFaultUsageErrors(t *testing.T) {
	s := startServer(t, nil)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"bad spec", []string{"pubsub", "x", "--fault", "soon:kill:1"}, "not a duration"},
		{"kill on external", []string{"pubsub", "x", "--js", "-s", s.ClientURL(), "--fault", "1s:kill:1"}, "needs the embedded server"},
		{"kill-leader without stream", []string{"pubsub", "x", "--fault", "1s:kill-leader"}, "needs a JetStream stream"},
		{"verify tiny", []string{"pubsub", "x", "--verify", "--size", "8"}, "--verify needs --size"},
		{"node out of range", []string{"js", "pub", "async", "x", "--fault", "1s:kill:7"}, "does not exist"},
		{"bad pending", []string{"sub", "x", "--pending-msgs", "0"}, "--pending-msgs"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(context.Background(), t, nil, tt.args...)
			if r.code != exitUsage || !strings.Contains(r.err, tt.want) || strings.Count(strings.TrimSpace(r.err), "\n") > 0 {
				t.Fatalf("exit %d, stderr %q; want exit %d and one line with %q", r.code, r.err, exitUsage, tt.want)
			}
		})
	}
}

// TestFaultConsumersRideThrough: the stream leader is killed three times mid-run; the consumers of
// 'pubsub --js' must go on from where they were, as applications do, and end with every
// message the stream holds (checked against the read-back), not stall until the idle timeout.
func TestFaultConsumersRideThrough(t *testing.T) {
	if testing.Short() {
		t.Skip("kills cluster nodes: about 30s")
	}
	for _, kind := range []string{"ordered", "pull"} {
		t.Run(kind, func(t *testing.T) {
			res, r := runJSON(context.Background(), t, "pubsub", "ride", "--js", "--replicas", "3", "--consumer-kind", kind,
				"--rate", "1000", "--duration", "7s", "--verify", "--ack-timeout", "1s",
				// Three leader kills: a consumer whose connection was not to the killed node is
				// told nothing by its connection and must notice by itself.
				"--fault", "1s:kill-leader", "--fault", "2s:restart", "--fault", "3s:kill-leader", "--fault", "4s:restart",
				"--fault", "5s:kill-leader", "--fault", "6s:restart")
			v := res.Verify
			if v == nil || v.Error != "" || v.Stored == 0 {
				t.Fatalf("verify %+v (stderr %s)", v, r.err)
			}
			if v.Delivered != v.Stored || v.NotConsumed != 0 {
				t.Fatalf("consumers got %d of the %d messages in the stream (not consumed %d, lost %d); stderr %s",
					v.Delivered, v.Stored, v.NotConsumed, v.Lost, r.err)
			}
		})
	}
}

// TestFaultPublisherOutageSplit: the stream leader freezes, so publishes sent to it wait out
// --ack-timeout. The publisher's time without acks must be reported apart from the part spent
// waiting on acks that timed out, which the known timeout and the count of timeouts bound.
func TestFaultPublisherOutageSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("freezes a cluster node: about 10s")
	}
	ackTimeout := time.Second
	res, r := runJSON(context.Background(), t, "js", "pub", "sync", "split", "--replicas", "3", "--rate", "500",
		"--duration", "6s", "--ack-timeout", ackTimeout.String(), "--fault", "1500ms:pause:3s")
	if res.Faults == nil || len(res.Faults.Publishers) == 0 {
		t.Fatalf("no publisher outage in %+v (stderr %s)", res.Faults, r.err)
	}
	o := res.Faults.Publishers[0]
	timeouts := group(t, res, "pub").Aggregate.Events.Timeouts
	if o.Fault != "1.5s:pause:3s" || o.AckTimeout != ackTimeout || o.FirstAckAfter-o.LastAckBefore != o.WithoutAcks {
		t.Fatalf("outage %+v", o)
	}
	if timeouts == 0 || o.TimedOutWait < ackTimeout/2 || o.TimedOutWait > o.WithoutAcks || o.TimedOutWait > time.Duration(timeouts)*ackTimeout+time.Second {
		t.Fatalf("outage %+v with %d timeouts of %s: want the wait on them within the time without acks", o, timeouts, ackTimeout)
	}
	if o.LastAckBefore > res.Faults.Timeline[0].Started+time.Second || o.FirstAckAfter < res.Faults.Timeline[0].Started {
		t.Fatalf("outage %+v does not span the fault at %s", o, res.Faults.Timeline[0].Started)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(r.out))
	if err != nil {
		t.Fatal(err)
	}
	if err := resultSchema(t).Validate(inst); err != nil {
		t.Fatalf("the Result does not match schema/result.schema.json: %v", err)
	}
}
