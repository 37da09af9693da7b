package engine

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/core"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// publisherIDs is every id the plan's pub groups will stamp, with the group's shares.
func publisherIDs(t *testing.T, r *Execution) (ids []uint32, msgs int64) {
	t.Helper()
	for _, g := range r.Plan.Groups {
		if g.Name != "pub" && g.Name[len(g.Name)-4:] != "/pub" {
			continue
		}
		var cfg core.PubConfig
		switch s := r.Plan.Settings.(type) {
		case settingsEcho:
			cfg = s.Workload.(core.PubConfig)
		case map[string]any: // instances: every instance has the same base block rule
			t.Fatalf("use single workloads here")
		}
		for i := range g.Clients {
			ids = append(ids, cfg.IDs.For(g.Offset+i))
		}
		for _, s := range g.Shares {
			msgs += s
		}
	}
	return ids, msgs
}

// runMerged starts the prepared parts together, as agents do, and merges their Results under
// names (one per part).
func runMerged(t *testing.T, runs []*Execution, names ...string) *result.Result {
	t.Helper()
	at := time.Now().Add(100 * time.Millisecond)
	in := make([]result.Input, len(runs))
	var wg sync.WaitGroup
	for i, r := range runs {
		r.Start(at)
		wg.Add(1)
		go func() {
			defer wg.Done()
			in[i] = result.Input{Name: names[i], Result: r.Wait()}
		}()
	}
	wg.Wait()
	m, err := result.MergeNamed(in)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// Parts of a distributed run split the clients and their messages exactly, and their
// publishers' ids never overlap: together they are the ids one process would use.
func TestPartsSplitClientsAndIDsNeverOverlap(t *testing.T) {
	srv := natstest.Server(t, nil)
	s := &spec.Spec{Version: spec.Version, Target: spec.Target{Servers: []string{srv.ClientURL()}},
		Workloads: []spec.Workload{{Clients: 10, Pacing: spec.Pacing{Msgs: 1003}, Config: &spec.Pub{Subject: "ids.test"}}}}
	whole, err := assemble(context.Background(), s, Options{IDBase: 8192})
	if err != nil {
		t.Fatal(err)
	}
	defer whole.Close()
	all, total := publisherIDs(t, whole)
	if len(all) != 10 || total != 1003 {
		t.Fatalf("one process: %d ids, %d msgs", len(all), total)
	}
	for count := 1; count <= 4; count++ {
		seen := map[uint32]int{}
		var sum int64
		for p := range count {
			r, err := assemble(context.Background(), s, Options{IDBase: 8192, Part: &Part{Index: p, Count: count}})
			if err != nil {
				t.Fatal(err)
			}
			ids, msgs := publisherIDs(t, r)
			r.Close()
			if n := len(ids); n < 10/count || n > 10/count+1 {
				t.Fatalf("%d parts: part %d has %d clients", count, p, n)
			}
			for _, id := range ids {
				if q, dup := seen[id]; dup {
					t.Fatalf("%d parts: publisher id %d in part %d and part %d", count, id, q, p)
				}
				seen[id] = p
			}
			sum += msgs
		}
		if len(seen) != len(all) || sum != total {
			t.Fatalf("%d parts: %d ids, %d msgs; one process: %d ids, %d msgs", count, len(seen), sum, len(all), total)
		}
		for _, id := range all {
			if _, ok := seen[id]; !ok {
				t.Fatalf("%d parts: id %d of the whole run is in no part", count, id)
			}
		}
	}
	// Two instances of a workload get two blocks, whichever process builds them.
	a, b := (&Build{idBase: 8192, idBlock: 0}).NewIDs(), (&Build{idBase: 8192, idBlock: 1}).NewIDs()
	if b.For(0)-a.For(0) != IDBlock {
		t.Fatalf("instance blocks %d and %d", a.For(0), b.For(0))
	}
}

// Three parts of a pub/sub run, prepared apart and started at one instant, merge into the
// Result one process gives: every message once from the publishers, every subscriber all of
// them (fan-out across parts), nothing lost, three distinct publishers.
func TestPartsRunAndMergeExactly(t *testing.T) {
	srv := natstest.Server(t, nil)
	const msgs = 3000
	s := &spec.Spec{Version: spec.Version, Target: spec.Target{Servers: []string{srv.ClientURL()}},
		Workloads: []spec.Workload{{Pacing: spec.Pacing{Msgs: msgs}, Config: &spec.PubSub{Subject: "parts.test", Size: 32, Pubs: 3, Subs: 3}}}}
	var runs []*Execution
	for p := range 3 {
		r, err := Prepare(context.Background(), s, Options{IDBase: 4096, Part: &Part{Index: p, Count: 3}})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	m := runMerged(t, runs, "agent1", "agent2", "agent3")
	if m.Stop.Reason != result.StopCompleted || len(m.Groups) != 2 {
		t.Fatalf("stop %+v, %d groups", m.Stop, len(m.Groups))
	}
	pub, sub := m.Groups[0], m.Groups[1]
	if pub.Aggregate.Msgs != msgs || sub.Aggregate.Msgs != 3*msgs || len(pub.Clients) != 3 || len(sub.Clients) != 3 {
		t.Fatalf("pub %d msgs (%d clients), sub %d msgs (%d clients)", pub.Aggregate.Msgs, len(pub.Clients), sub.Aggregate.Msgs, len(sub.Clients))
	}
	if c := sub.Aggregate.Correctness; c == nil || c.Lost != 0 || c.Duplicated != 0 || c.NotReceived != 0 || c.Publishers != 3 {
		t.Fatalf("subscribers' correctness %+v", c)
	}
}

// A workload with instances is split by whole instance, named as one process names them.
func TestPartsSplitInstancesWhole(t *testing.T) {
	srv := natstest.Server(t, nil)
	s := &spec.Spec{Version: spec.Version, Target: spec.Target{Servers: []string{srv.ClientURL()}},
		Workloads: []spec.Workload{{Name: "pod", Instances: 4, Clients: 2, Config: &spec.Pub{Subject: "inst.test"}}}}
	want := [][]string{{"pod1/pub"}, {"pod2/pub"}, {"pod3/pub", "pod4/pub"}}
	for p := range 3 {
		r, err := assemble(context.Background(), s, Options{IDBase: 4096, Part: &Part{Index: p, Count: 3}})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, g := range r.Plan.Groups {
			got = append(got, g.Name)
			if g.Clients != 2 || g.Offset != 0 {
				t.Fatalf("part %d: group %s has %d clients from %d: an instance is never cut", p, g.Name, g.Clients, g.Offset)
			}
		}
		r.Close()
		if fmt.Sprint(got) != fmt.Sprint(want[p]) {
			t.Fatalf("part %d runs %v, want %v", p, got, want[p])
		}
	}
}

// Receivers correct the latency of another part's publishers by the parts' clock offsets:
// with part 1's clock said to be 10 s ahead (both share one clock here), part 0's
// subscriber, hearing part 1's publisher, adds 10 s to every latency; part 1's own
// subscriber, on the publisher's clock, adds nothing. (The offset was 50 ms, which assumed
// part 1's subscriber got at least one of 2,000 messages within 50 ms: on a loaded machine
// its goroutine was once held up longer than that and every latency exceeded the offset.)
func TestPartsCorrectLatencyByClockOffset(t *testing.T) {
	srv := natstest.Server(t, nil)
	const skew = int64(10 * time.Second)
	s := &spec.Spec{Version: spec.Version, Target: spec.Target{Servers: []string{srv.ClientURL()}},
		Workloads: []spec.Workload{{Pacing: spec.Pacing{Msgs: 2000}, Config: &spec.PubSub{Subject: "skew.test", Size: 32, Pubs: 1, Subs: 2}}}}
	var runs []*Execution
	for p := range 2 {
		r, err := Prepare(context.Background(), s, Options{IDBase: 4096, Part: &Part{Index: p, Count: 2}, ClockOffsets: []int64{0, skew}})
		if err != nil {
			t.Fatal(err)
		}
		runs = append(runs, r)
	}
	m := runMerged(t, runs, "p0", "p1")
	var sub result.Group
	for _, g := range m.Groups {
		if g.Name == "sub" {
			sub = g
		}
	}
	if sub.Name != "sub" || len(sub.Clients) != 2 || sub.Aggregate.Msgs != 4000 {
		t.Fatalf("group %s: %d clients, %d msgs", sub.Name, len(sub.Clients), sub.Aggregate.Msgs)
	}
	for _, c := range sub.Clients {
		switch c.Part {
		case "p0":
			if c.Latency.Min < skew-skew/100 { // the histogram keeps 3 significant digits
				t.Fatalf("part 0's subscriber: min latency %d ns, want at least the 10 s offset", c.Latency.Min)
			}
		case "p1":
			if c.Latency.Min >= skew/2 {
				t.Fatalf("part 1's subscriber, on the publisher's clock: min latency %d ns", c.Latency.Min)
			}
		}
	}
	// Without offsets nothing is corrected: no process sees 50 ms.
	if (partClocks{}).skew(4097) != 0 {
		t.Fatal("skew without offsets")
	}
}
