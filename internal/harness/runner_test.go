package harness

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/natsperf/natsperf/result"
)

// fakeClient does its work without NATS: the runner's contract (barrier, cancellation, stop
// reasons, merging) does not depend on what a client talks to. Workloads are tested against
// real servers in their own packages.
type fakeClient struct {
	prepared *atomic.Int64
	prepErr  error
	run      func(ctx context.Context, env *Env) error
	closed   *atomic.Int64
	sawAll   atomic.Bool
}

func (f *fakeClient) Prepare(ctx context.Context, env *Env) error {
	f.prepared.Add(1)
	return f.prepErr
}

func (f *fakeClient) Run(ctx context.Context, env *Env) error {
	f.sawAll.Store(f.prepared.Load() == int64(env.Count)) // one-group runs: Count is every client
	return f.run(ctx, env)
}

func (f *fakeClient) Close() { f.closed.Add(1) }

// sendShare records the client's share as sent messages of 10 bytes.
func sendShare(_ context.Context, env *Env) error {
	env.Rec.Begin(env.Clock.Now())
	for i := int64(0); i < env.Share; i++ {
		env.Rec.Sent(env.Clock.Now(), 10)
	}
	return nil
}

type harness struct {
	prepared, closed atomic.Int64
	clients          []*fakeClient
}

func (h *harness) group(name string, n int, shares []int64, run func(context.Context, *Env) error) *Group {
	return &Group{
		Name: name, Kind: "fake " + name, Verb: "doing", Clients: n, Shares: shares,
		New: func(int) Client {
			c := &fakeClient{prepared: &h.prepared, closed: &h.closed, run: run}
			h.clients = append(h.clients, c)
			return c
		},
	}
}

func TestRunnerMergesAndCompletes(t *testing.T) {
	var h harness
	g := h.group("pub", 3, []int64{4, 3, 3}, sendShare)
	p := &Plan{Command: "fake", Groups: []*Group{g}}
	res, err := (&Runner{}).Execute(context.Background(), p)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop.Reason != result.StopCompleted || res.Schema != result.Schema {
		t.Fatalf("stop %+v schema %q", res.Stop, res.Schema)
	}
	agg := res.Groups[0].Aggregate
	if agg.Msgs != 10 || agg.Bytes != 100 || res.Groups[0].Expected != 10 {
		t.Fatalf("aggregate %d msgs %d bytes, expected %d", agg.Msgs, agg.Bytes, res.Groups[0].Expected)
	}
	for _, c := range h.clients {
		if !c.sawAll.Load() {
			t.Fatal("a client ran before every client was prepared: no start barrier")
		}
	}
	if h.closed.Load() != 3 {
		t.Fatalf("closed %d clients, want 3", h.closed.Load())
	}
}

func TestRunnerStopReasons(t *testing.T) {
	boom := errors.New("boom")
	tests := []struct {
		name       string
		run        func(ctx context.Context, env *Env) error
		cancelAt   time.Duration
		wantReason string
		wantError  string
	}{
		{"a failed client ends the others", func(ctx context.Context, env *Env) error {
			if env.ID == 2 {
				return boom
			}
			<-ctx.Done() // the others only end because the runner cancels them
			return ctx.Err()
		}, 0, result.StopFailed, "fake pub 2: boom"},
		{"Ctrl-C interrupts", func(ctx context.Context, env *Env) error {
			env.Rec.Sent(env.Clock.Now(), 1)
			<-ctx.Done()
			return ctx.Err()
		}, 50 * time.Millisecond, result.StopInterrupted, "interrupted"},
		{"idle receivers", func(context.Context, *Env) error { return ErrIdle }, 0, result.StopIdle, "idle"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h harness
			p := &Plan{Command: "fake", Groups: []*Group{h.group("pub", 3, []int64{1, 1, 1}, tt.run)}}
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancelAt > 0 {
				time.AfterFunc(tt.cancelAt, cancel)
			}
			done := make(chan *result.Result, 1)
			go func() {
				res, err := (&Runner{}).Execute(ctx, p)
				if err != nil {
					t.Error(err)
				}
				done <- res
			}()
			select {
			case res := <-done:
				if res.Stop.Reason != tt.wantReason || !strings.Contains(res.Stop.Error, tt.wantError) {
					t.Fatalf("stop %+v, want %s containing %q", res.Stop, tt.wantReason, tt.wantError)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the run did not end")
			}
		})
	}
}

func TestRunnerSetupFailureClosesEverything(t *testing.T) {
	var h harness
	g := h.group("sub", 2, []int64{1, 1}, sendShare)
	next := g.New
	g.New = func(i int) Client {
		c := next(i).(*fakeClient)
		if i == 1 {
			c.prepErr = errors.New("no such stream")
		}
		return c
	}
	res, err := (&Runner{}).Execute(context.Background(), &Plan{Groups: []*Group{g}})
	if res != nil || err == nil || !strings.Contains(err.Error(), "fake sub 2: no such stream") {
		t.Fatalf("result %v, error %v", res, err)
	}
	if h.closed.Load() != 2 {
		t.Fatalf("closed %d of 2 clients after a failed setup", h.closed.Load())
	}
}

func TestProducersDoneAndGroupDone(t *testing.T) {
	var h harness
	pub := h.group("pub", 2, []int64{5, 5}, sendShare)
	pub.Producer = true
	var sawProducersDone, sawGroupDone atomic.Bool
	sub := h.group("sub", 2, []int64{5, 5}, func(ctx context.Context, env *Env) error {
		select {
		case <-env.ProducersDone:
			sawProducersDone.Store(true)
		case <-time.After(5 * time.Second):
			return errors.New("producers never done")
		}
		// A queue-group member: the group is done when both members together have 10.
		for i := 0; i < 5; i++ {
			env.Rec.Sent(env.Clock.Now(), 1)
		}
		deadline := time.Now().Add(5 * time.Second)
		for !env.GroupDone() {
			if time.Now().After(deadline) {
				return errors.New("group never done")
			}
			time.Sleep(time.Millisecond)
		}
		sawGroupDone.Store(true)
		return nil
	})
	sub.Shared = true
	res, err := (&Runner{}).Execute(context.Background(), &Plan{Groups: []*Group{pub, sub}})
	if err != nil || res.Stop.Reason != result.StopCompleted {
		t.Fatalf("err %v stop %+v", err, res.Stop)
	}
	if !sawProducersDone.Load() || !sawGroupDone.Load() {
		t.Fatalf("producers done %v, group done %v", sawProducersDone.Load(), sawGroupDone.Load())
	}
}

// The two phases: every client is prepared before Start, none runs before the start time.
func TestPreparedStartsAtTheGivenTime(t *testing.T) {
	var h harness
	var ranAt atomic.Int64
	g := h.group("pub", 2, []int64{5, 5}, func(ctx context.Context, env *Env) error {
		ranAt.CompareAndSwap(0, time.Now().UnixNano())
		return sendShare(ctx, env)
	})
	pr, err := (&Runner{}).Prepare(context.Background(), &Plan{Command: "fake", Groups: []*Group{g}})
	if err != nil {
		t.Fatal(err)
	}
	if h.prepared.Load() != 2 || ranAt.Load() != 0 {
		t.Fatalf("after Prepare: %d prepared, ran=%v; want 2 prepared, none run", h.prepared.Load(), ranAt.Load() != 0)
	}
	at := time.Now().Add(300 * time.Millisecond)
	pr.Start(at)
	res := pr.Wait()
	if ranAt.Load() < at.UnixNano() {
		t.Fatalf("a client ran %v before the start time", at.Sub(time.Unix(0, ranAt.Load())))
	}
	if res.Start.Before(at) || res.Groups[0].Aggregate.Msgs != 10 || h.closed.Load() != 2 {
		t.Fatalf("start %v (want >= %v), msgs %d, closed %d", res.Start, at, res.Groups[0].Aggregate.Msgs, h.closed.Load())
	}
}

// A prepared run that is abandoned closes its clients.
func TestPreparedAbortCloses(t *testing.T) {
	var h harness
	pr, err := (&Runner{}).Prepare(context.Background(), &Plan{Command: "fake", Groups: []*Group{h.group("pub", 3, []int64{1, 1, 1}, sendShare)}})
	if err != nil {
		t.Fatal(err)
	}
	pr.Abort()
	if h.closed.Load() != 3 || pr.Wait() != nil {
		t.Fatalf("closed %d of 3; Wait after Abort must return nil", h.closed.Load())
	}
}
