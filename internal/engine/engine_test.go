package engine

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

func pubsubSpec(url string, msgs int64, subs int) *spec.Spec {
	s := &spec.Spec{
		Version: spec.Version,
		Workloads: []spec.Workload{{
			Pacing: spec.Pacing{Msgs: msgs},
			Config: &spec.PubSub{Subject: "engine.test", Size: 32, Pubs: 1, Subs: subs},
		}},
	}
	if url != "" {
		s.Target.Servers = []string{url}
	}
	return s
}

func varz(t *testing.T, srv *server.Server) *server.Varz {
	t.Helper()
	v, err := srv.Varz(nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// A pub/sub Spec runs to the counts the server itself saw.
func TestExecutePubSubMatchesServerCounts(t *testing.T) {
	srv := natstest.Server(t, nil)
	before := varz(t, srv)
	res, err := Execute(context.Background(), pubsubSpec(srv.ClientURL(), 5000, 2), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop.Reason != result.StopCompleted || res.Command != "pubsub" || len(res.Groups) != 2 {
		t.Fatalf("stop %+v, command %q, %d groups", res.Stop, res.Command, len(res.Groups))
	}
	pub, sub := res.Groups[0].Aggregate, res.Groups[1].Aggregate
	after := varz(t, srv)
	in, out := after.InMsgs-before.InMsgs, after.OutMsgs-before.OutMsgs
	// The server counts every published message once in, and once out per subscriber (plus
	// whatever flush and setup traffic the clients add, which carries no payload of 32 B).
	if pub.Msgs != 5000 || in < 5000 || out < 10000 {
		t.Fatalf("published %d (server in %d), subscribers %d (server out %d)", pub.Msgs, in, sub.Msgs, out)
	}
	if sub.Msgs != 10000 || sub.Correctness == nil || sub.Correctness.Lost != 0 {
		t.Fatalf("subscribers got %d of 10000, correctness %+v", sub.Msgs, sub.Correctness)
	}
	if got := after.InBytes - before.InBytes; got < 5000*32 {
		t.Fatalf("server took %d bytes in, want at least %d", got, 5000*32)
	}
}

// Prepare sets every client up before Start: the subscriptions exist on the server while the
// run is held, and nothing is published before the start time.
func TestPrepareThenStartAt(t *testing.T) {
	srv := natstest.Server(t, nil)
	r, err := Prepare(context.Background(), pubsubSpec(srv.ClientURL(), 1000, 3), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.NumSubscriptions(); n < 3 {
		r.Close()
		t.Fatalf("%d subscriptions on the server after Prepare, want the 3 subscribers'", n)
	}
	if v := varz(t, srv); v.InBytes >= 1000*32 {
		r.Close()
		t.Fatalf("%d bytes published before Start", v.InBytes)
	}
	at := time.Now().Add(250 * time.Millisecond)
	r.Start(at)
	res := r.Wait()
	if res.Start.Before(at) || res.Groups[1].Aggregate.Msgs != 3000 {
		t.Fatalf("started %v (want >= %v), subscribers got %d of 3000", res.Start, at, res.Groups[1].Aggregate.Msgs)
	}
}

// With no server anywhere the engine starts an embedded one, says so, and marks it.
func TestExecuteEmbedded(t *testing.T) {
	s := pubsubSpec("", 2000, 1)
	s.Target.Embedded = &spec.Embedded{}
	var warn natstest.Buffer
	res, err := Execute(context.Background(), s, Options{Warn: &warn})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Servers) == 0 || !res.Servers[0].Embedded || res.Groups[1].Aggregate.Msgs != 2000 {
		t.Fatalf("servers %+v, subscriber got %d of 2000", res.Servers, res.Groups[1].Aggregate.Msgs)
	}
	if !strings.Contains(warn.String(), "No server given") {
		t.Fatalf("no notice of the embedded server: %q", warn.String())
	}
}

// Bad specs are input errors, refused before anything connects.
func TestPrepareRefusesBadInput(t *testing.T) {
	srv := natstest.Server(t, nil)
	bad := pubsubSpec(srv.ClientURL(), 10, 1)
	bad.Workloads[0].Config.(*spec.PubSub).Size = 80 << 20
	js := pubsubSpec(srv.ClientURL(), 10, 1)
	js.Workloads[0].Config.(*spec.PubSub).JS = &spec.PubSubJS{ConsumerKind: "x"}
	for name, s := range map[string]*spec.Spec{"size": bad, "bad consumer kind": js} {
		_, err := Prepare(context.Background(), s, Options{})
		var in InputError
		if !errors.As(err, &in) {
			t.Errorf("%s: got %v, want an InputError", name, err)
		}
	}
	if n := srv.NumClients(); n != 0 {
		t.Fatalf("%d clients left connected", n)
	}
}

// Several workloads run as one plan started at one barrier, their groups prefixed by
// instance; --verify adds every instance's publishers and receivers up, and a fault runs
// inside the workloads (what a scenario cell will hand the engine).
func TestWorkloadsWithVerifyAndFault(t *testing.T) {
	srv := natstest.Server(t, nil)
	s := pubsubSpec(srv.ClientURL(), 2000, 2)
	other := pubsubSpec(srv.ClientURL(), 2000, 2).Workloads[0]
	other.Config.(*spec.PubSub).Subject = "engine.other"
	s.Workloads = append(s.Workloads, other)
	s.Workloads[0].Name, s.Workloads[1].Name = "a", "b"
	s.Workloads[0].Pacing.Rate, s.Workloads[1].Pacing.Rate = 10000, 10000 // 200ms: the fault at 50ms falls inside
	s.Verify = true
	s.Faults.Exec = []string{"50ms:true"}
	before := varz(t, srv)
	res, err := Execute(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	after := varz(t, srv)
	if res.Command != "run" || len(res.Groups) != 4 || res.Groups[0].Name != "a1/pub" || res.Groups[3].Name != "b1/sub" {
		t.Fatalf("command %q, groups %v", res.Command, groupNames(res))
	}
	v := res.Verify
	if v == nil || v.Sent != 4000 || v.Delivered != 8000 || v.Lost != 0 {
		t.Fatalf("verify %+v: want 4,000 sent by two workloads, 8,000 delivered", v)
	}
	if in := after.InMsgs - before.InMsgs; in < 4000 {
		t.Fatalf("the server saw %d messages in, the run says 4,000 were sent", in)
	}
	if res.Faults == nil || len(res.Faults.Timeline) != 1 || res.Faults.Timeline[0].Error != "" {
		t.Fatalf("fault timeline %+v", res.Faults)
	}
}

func groupNames(res *result.Result) []string {
	var out []string
	for _, g := range res.Groups {
		out = append(out, g.Name)
	}
	return out
}

// TestVerifyAddsUpReadBacks: two JetStream publishing workloads on one stream, with --verify,
// each read back for its own publishers: the Result's check covers both (before, the second
// read-back overwrote the first), and what it found stored is what the server says the stream
// holds. A scenario's instances run this way.
func TestVerifyAddsUpReadBacks(t *testing.T) {
	srv := natstest.Server(t, nil)
	pub := func(subject string, msgs int64) spec.Workload {
		return spec.Workload{Name: "pod", Pacing: spec.Pacing{Msgs: msgs},
			Config: &spec.JSPubAsync{JSPublish: spec.JSPublish{Stream: "VER", Subject: subject, Size: 32}}}
	}
	maxBytes := spec.Size(8 << 20)
	s := &spec.Spec{
		Version: spec.Version, Target: spec.Target{Servers: []string{srv.ClientURL()}},
		Setup:     spec.Setup{Streams: []spec.Stream{{Name: "VER", Subjects: []string{"ver.>"}, MaxBytes: &maxBytes, Create: true, Recreate: true}}},
		Workloads: []spec.Workload{pub("ver.a", 300), pub("ver.b", 500)},
		Verify:    true,
	}
	res, err := Execute(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := groupNames(res); len(got) != 2 || got[0] != "pod1/pub" || got[1] != "pod2/pub" {
		t.Fatalf("groups %v: want the workloads of one name numbered on", got)
	}
	v := res.Verify
	if v == nil || v.Error != "" || v.Acked != 800 || v.Stored != 800 || v.AckedButMissing != 0 || len(v.Publishers) != 2 {
		t.Fatalf("verify %+v: want both workloads' 300 + 500 acknowledged and stored", v)
	}
	jsz, err := srv.Jsz(nil) // the server's own count: VER is its only stream
	if err != nil || jsz.Streams != 1 {
		t.Fatalf("jsz %+v, %v: want the one stream", jsz, err)
	}
	if n := jsz.Messages; int64(n) != v.Stored+v.Duplicates {
		t.Fatalf("the server's stream holds %d messages, the read-back found %d stored + %d duplicates", n, v.Stored, v.Duplicates)
	}
}
