package result_test

import (
	"bytes"
	"context"
	"path/filepath"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/natsperf/natsperf/internal/core"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/result"
)

// startGate holds publishers until every client of every part is ready: publishers connected,
// subscribers subscribed and released by their own runner's barrier (so their recorders have
// their start). It is the cross-process start barrier a distributed run will have, here
// between two runners. The server's counters are read when it opens, after the connections'
// own setup requests.
type startGate struct {
	ready sync.WaitGroup
	open  chan struct{}
}

// gated is a client that reports to the gate: a publisher once prepared, then it waits for the
// gate to open before it runs; a subscriber once it runs.
type gated struct {
	harness.Client
	gate *startGate
	pub  bool
}

func (g *gated) Prepare(ctx context.Context, env *harness.Env) error {
	err := g.Client.Prepare(ctx, env)
	if g.pub {
		g.gate.ready.Done()
	}
	return err
}

func (g *gated) Run(ctx context.Context, env *harness.Env) error {
	if !g.pub {
		g.gate.ready.Done()
		return g.Client.Run(ctx, env)
	}
	select {
	case <-g.gate.open:
	case <-ctx.Done():
		return ctx.Err()
	}
	return g.Client.Run(ctx, env)
}

// twoProcessPlan is one process's share of a pubsub run: one publisher with its own id range,
// subs subscribers each expecting everything every publisher sends.
func twoProcessPlan(gate *startGate, ids stamp.IDs, subs int, perPub, total int64) *harness.Plan {
	shares := make([]int64, subs)
	for i := range shares {
		shares[i] = total
	}
	pcfg := core.PubConfig{Subject: "merge.test", Size: 32, IDs: ids}
	scfg := core.SubConfig{Subject: "merge.test", IdleTimeout: 20 * time.Second, PendingMsgs: -1, PendingBytes: -1}
	return &harness.Plan{
		Command: "pubsub", Latency: true,
		Groups: []*harness.Group{
			{Name: "pub", Kind: "Core NATS publisher", Clients: 1, Shares: []int64{perPub}, Producer: true,
				New: func(int) harness.Client { return &gated{core.NewPublisher(pcfg), gate, true} }},
			{Name: "sub", Kind: "Core NATS subscriber", Clients: subs, Shares: shares,
				New: func(int) harness.Client { return &gated{core.NewSubscriber(scfg), gate, false} }},
		},
	}
}

// TestMergeRealRun runs a pub/sub benchmark as two processes would (two runners, each one
// publisher and its own subscribers, every subscriber hearing both publishers) on an embedded
// server and merges their Results: the counts are what the server saw (/varz), every
// subscriber's every sample is in the merged histogram at every percentile, and the two
// publishers are counted once though both parts saw both.
func TestMergeRealRun(t *testing.T) {
	s := natstest.Server(t, nil)
	url := s.ClientURL()
	dial := func(ctx context.Context, name string, opts ...nats.Option) (*nats.Conn, error) {
		return nats.Connect(url, append(opts, nats.Name(name))...)
	}
	const perPub = 5_000
	gate := &startGate{open: make(chan struct{})}
	subsA, subsB := 2, 1
	gate.ready.Add(2 + subsA + subsB)
	var before *server.Varz
	var beforeErr error
	go func() {
		gate.ready.Wait()
		before, beforeErr = s.Varz(nil)
		close(gate.open)
	}()

	plans := []*harness.Plan{
		twoProcessPlan(gate, stamp.IDs(1<<12), subsA, perPub, 2*perPub),
		twoProcessPlan(gate, stamp.IDs(2<<12), subsB, perPub, 2*perPub),
	}
	parts := make([]*result.Result, len(plans))
	errs := make([]error, len(plans))
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var wg sync.WaitGroup
	for i, p := range plans {
		wg.Add(1)
		go func() {
			defer wg.Done()
			parts[i], errs[i] = (&harness.Runner{Dial: dial, Interval: 100 * time.Millisecond}).Execute(ctx, p)
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("part %d: %v", i+1, err)
		}
		if parts[i].Stop.Reason != result.StopCompleted {
			t.Fatalf("part %d stopped: %+v", i+1, parts[i].Stop)
		}
	}
	after := varz(t, s)
	if beforeErr != nil {
		t.Fatal(beforeErr)
	}

	m, err := result.MergeNamed([]result.Input{{Name: "agent-a", Result: parts[0]}, {Name: "agent-b", Result: parts[1]}})
	if err != nil {
		t.Fatal(err)
	}
	pub, sub := m.Groups[0], m.Groups[1]
	if pub.Name != "pub" || sub.Name != "sub" {
		t.Fatalf("groups %s, %s", pub.Name, sub.Name)
	}
	if in := after.InMsgs - before.InMsgs; pub.Aggregate.Msgs != in {
		t.Errorf("merged publishers sent %d messages, the server received %d", pub.Aggregate.Msgs, in)
	}
	if out := after.OutMsgs - before.OutMsgs; sub.Aggregate.Msgs != out {
		t.Errorf("merged subscribers received %d messages, the server delivered %d", sub.Aggregate.Msgs, out)
	}
	if want := int64(2 * perPub * (subsA + subsB)); sub.Aggregate.Msgs != want {
		t.Errorf("subscribers received %d, want %d", sub.Aggregate.Msgs, want)
	}
	if len(sub.Clients) != subsA+subsB || sub.Clients[2].ID != 3 || sub.Clients[2].Part != "agent-b" {
		t.Errorf("subscriber rows %+v: want 3, the last numbered 3 from agent-b", sub.Clients)
	}

	c := sub.Aggregate.Correctness
	partsSaw := parts[0].Groups[1].Aggregate.Correctness.Publishers + parts[1].Groups[1].Aggregate.Correctness.Publishers
	if c.Publishers != 2 || partsSaw != 4 || c.Lost != 0 || c.Duplicated != 0 || c.Received != sub.Aggregate.Msgs {
		t.Errorf("correctness %+v (the parts saw %d publishers between them): want 2 publishers, nothing lost", c, partsSaw)
	}
	// Each of the 3 subscribers saw every message of both publishers: per publisher, sequences
	// up to perPub, 3 x perPub distinct over the receivers.
	want := []result.PublisherSeen{{ID: stamp.IDs(1 << 12).For(0), Highest: perPub, Distinct: 3 * perPub}, {ID: stamp.IDs(2 << 12).For(0), Highest: perPub, Distinct: 3 * perPub}}
	if !reflect.DeepEqual(c.PerPublisher, want) || c.HighestSeqMin != perPub || c.HighestSeqMax != perPub {
		t.Errorf("per publisher %+v (highest %d..%d), want %+v", c.PerPublisher, c.HighestSeqMin, c.HighestSeqMax, want)
	}

	// Every sample: the histograms of every subscriber row, merged independently of Merge.
	all := histo.New()
	for _, cl := range sub.Clients {
		h, err := histo.Decode(cl.Latency.Histogram)
		if err != nil {
			t.Fatal(err)
		}
		all.Merge(h)
	}
	got, err := histo.Decode(sub.Aggregate.Latency.Histogram)
	if err != nil {
		t.Fatal(err)
	}
	if got.TotalCount() != sub.Aggregate.Msgs || all.TotalCount() != got.TotalCount() {
		t.Fatalf("merged histogram holds %d samples, the rows %d, messages %d", got.TotalCount(), all.TotalCount(), sub.Aggregate.Msgs)
	}
	for p := 0.0; p <= 100; p += 0.1 {
		if a, b := got.ValueAtQuantile(p), all.ValueAtQuantile(p); a != b {
			t.Errorf("P%.1f: merged %d, all samples %d", p, a, b)
		}
	}
	for _, row := range sub.Aggregate.Latency.Percentiles {
		if want := all.ValueAtQuantile(row.P); row.P < 100 && row.Ns != want {
			t.Errorf("summary P%v = %d, all samples %d", row.P, row.Ns, want)
		}
	}
	var series int64
	for _, iv := range sub.Series {
		series += iv.Msgs
	}
	if series != sub.Aggregate.Msgs {
		t.Errorf("merged series holds %d messages, the aggregate %d", series, sub.Aggregate.Msgs)
	}
	first := parts[0].Start
	if parts[1].Start.Before(first) {
		first = parts[1].Start
	}
	if !m.Start.Equal(first) || m.Stop.Reason != result.StopCompleted || len(m.Parts) != 2 {
		t.Errorf("start %v (want %v), stop %+v, %d parts", m.Start, first, m.Stop, len(m.Parts))
	}
	validateSchema(t, m)
}

// validateSchema checks a Result against schema/result.schema.json.
func validateSchema(t *testing.T, r *result.Result) {
	t.Helper()
	c := jsonschema.NewCompiler()
	c.AssertFormat()
	sch, err := c.Compile(filepath.Join("..", "schema", "result.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := result.Write(&b, r); err != nil {
		t.Fatal(err)
	}
	inst, err := jsonschema.UnmarshalJSON(&b)
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate(inst); err != nil {
		t.Errorf("the merged Result does not match schema/result.schema.json: %v", err)
	}
}

func varz(t *testing.T, s *server.Server) *server.Varz {
	t.Helper()
	v, err := s.Varz(nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
