package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/cpuuse"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/internal/version"
	"github.com/natsperf/natsperf/result"
)

// Runner runs Plans.
type Runner struct {
	Dial Dialer
	// JS is how the clients reach JetStream (domain, API prefix, timeout): Conn.JS.
	JS connect.JS
	// Grace is how long a dropped connection may take to come back before its client fails;
	// 0 means 5s.
	Grace time.Duration
	// Interval is the width of the per-interval series; 0 means 1s.
	Interval time.Duration
	// Warmup leaves the first part of the run out of the statistics.
	Warmup time.Duration
	// Logf prints progress lines ("Starting ..."); nil prints nothing.
	Logf func(format string, args ...any)
	// Progress shows live progress; nil shows nothing.
	Progress Progress
	// Series, when set, receives every client's intervals as they close, tagged "group/id"
	// (record.Options.Sink): long runs stream them instead of holding them in the Result.
	Series chan<- record.Slice
	// Skew, when set, corrects receivers' latencies by clock offsets (record.Options.Skew).
	Skew func(publisher uint32) int64
	// StoredClock, when set, puts JetStream stored timestamps on natsperf's clock
	// (record.Options.StoredClock): set it before the start barrier.
	StoredClock *atomic.Int64
	// PacePrecision is the pacing precision of the run's fixed-rate senders (each client's
	// Env.PacePrecision; 0: loop.DefaultPrecision): a value of the run, so runs in one process
	// each pace at their own.
	PacePrecision time.Duration
}

// Progress shows bars while clients run.
type Progress interface {
	// Start shows the bars and returns a function that ends the display.
	Start(bars []Bar) (stop func())
}

// Bar is one client's progress.
type Bar struct {
	Label string
	Total int64           // 0: open-ended
	Count func() int64    // safe from any goroutine
	Done  <-chan struct{} // closed when the client has finished
}

type slot struct {
	group  *Group
	client Client
	env    *Env
	done   chan struct{}
	err    error
	conns  []*Conn
}

// Execute executes p. It returns a Result whenever the clients started, also when they failed or
// were interrupted (then Stop says so); it returns an error alone when setup failed.
func (r *Runner) Execute(ctx context.Context, p *Plan) (*result.Result, error) {
	pr, err := r.Prepare(ctx, p)
	if err != nil {
		return nil, err
	}
	pr.Start(time.Time{})
	return pr.Wait(), nil
}

// Prepared is a run whose clients are all connected and set up, held before the start
// barrier: the two phases let a barrier span processes (every part prepared, then all
// started at one instant).
type Prepared struct {
	r             *Runner
	p             *Plan
	ctx           context.Context
	runCtx        context.Context
	cancel        context.CancelFunc
	slots         []*slot
	clk           record.Clock
	closeAll      func()
	producersDone chan struct{}
	started       bool
	conns         *connLog
	done          chan *result.Result
}

// Prepare connects and sets up every client of p (in parallel) and returns the run held at
// the start barrier. On error nothing is left open. A Prepared must be started (or closed
// with Abort) exactly once.
func (r *Runner) Prepare(ctx context.Context, p *Plan) (*Prepared, error) {
	grace := r.Grace
	if grace <= 0 {
		grace = 5 * time.Second
	}
	clk := record.NewClock()
	runCtx, cancel := context.WithCancel(ctx)

	var slots []*slot
	conns := &connLog{}
	producersDone := make(chan struct{})
	for _, g := range p.Groups {
		series := record.NewGroup() // the group's clients sum their intervals here
		for i := 0; i < g.Clients; i++ {
			s := &slot{group: g, done: make(chan struct{})}
			var share int64
			if i < len(g.Shares) {
				share = g.Shares[i]
			}
			at := g.Offset + i // the client's index in the whole group, across processes
			s.env = &Env{
				ID: at + 1, Index: at, Count: g.total(), Share: share, Bounded: g.Shares != nil, Clock: clk,
				Rec: record.New(record.Options{
					Clock: clk, Interval: r.Interval, Latency: p.Latency, Corrected: p.Corrected,
					Sink: r.Series, Src: fmt.Sprintf("%s/%d", g.Name, at+1), Skew: r.Skew, Group: series,
					StoredClock: r.StoredClock, GapMin: p.GapMin,
				}),
				ProducersDone: producersDone, PacePrecision: r.PacePrecision,
			}
			name := fmt.Sprintf("natsperf-%s-%d", g.Name, at+1)
			dialer := r.Dial
			if g.Dial != nil {
				dialer = g.Dial
			}
			note := conns.note(fmt.Sprintf("%s %d", g.Name, at+1))
			s.env.Dial = func(ctx context.Context) (*Conn, error) {
				c, err := dial(ctx, dialer, name, grace, &s.env.Rec.Events, note)
				if err != nil {
					return nil, err
				}
				c.JS = r.JS
				s.conns = append(s.conns, c)
				return c, nil
			}
			s.client = g.New(at)
			slots = append(slots, s)
		}
	}
	closeAll := func() {
		// In parallel: a client's Close may wait (boundedly) for its library to let go.
		var wg sync.WaitGroup
		for _, s := range slots {
			wg.Add(1)
			go func() {
				defer wg.Done()
				s.client.Close()
				for _, c := range s.conns {
					c.close()
				}
			}()
		}
		wg.Wait()
	}

	for _, g := range p.Groups {
		groupDone := groupDoneFunc(g, slots)
		for _, s := range slots {
			if s.group == g {
				s.env.GroupDone = groupDone
			}
		}
	}
	if err := r.prepare(runCtx, slots); err != nil {
		closeAll()
		cancel()
		return nil, err
	}
	return &Prepared{r: r, p: p, ctx: ctx, runCtx: runCtx, cancel: cancel, slots: slots, clk: clk,
		closeAll: closeAll, producersDone: producersDone, conns: conns}, nil
}

// Abort releases a prepared run that will not start.
func (pr *Prepared) Abort() {
	if pr.started {
		return
	}
	pr.started = true
	pr.closeAll()
	pr.cancel()
}

// Start releases the clients at at (at once when at is zero or past) and returns without
// waiting; Wait returns the Result. Call it once.
func (pr *Prepared) Start(at time.Time) {
	if pr.started {
		return
	}
	pr.started = true
	pr.done = make(chan *result.Result, 1)
	go func() { pr.done <- pr.run(at) }()
}

// Wait waits until every client is done and closed and returns the Result (Stop says how the
// run ended). It returns nil when the run was never started.
func (pr *Prepared) Wait() *result.Result {
	if pr.done == nil {
		return nil
	}
	return <-pr.done
}

func (pr *Prepared) run(at time.Time) *result.Result {
	defer pr.cancel()
	r, p, ctx, runCtx, cancel, slots, clk, closeAll, producersDone := pr.r, pr.p, pr.ctx, pr.runCtx, pr.cancel, pr.slots, pr.clk, pr.closeAll, pr.producersDone
	if d := time.Until(at); !at.IsZero() && d > 0 {
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-runCtx.Done():
			t.Stop()
		}
	}

	r.logStart(p)
	if p.Before != nil {
		p.Before(runCtx)
	}
	barrier := make(chan struct{})
	epoch := clk.Now()
	warmupEnd := int64(0)
	if r.Warmup > 0 {
		warmupEnd = epoch + int64(r.Warmup)
	}
	var wg sync.WaitGroup
	for _, s := range slots {
		s.env.Start = epoch
		s.env.Rec.Start(epoch, warmupEnd)
		wg.Add(1)
		go func(s *slot) {
			defer wg.Done()
			defer close(s.done)
			<-barrier
			s.err = s.client.Run(runCtx, s.env)
			if s.group.Producer {
				s.env.Rec.Stopped(clk.Now()) // an outage still open ends here
			}
			if errors.Is(s.err, ErrIdle) {
				s.err = idleOrLost(runCtx, s.conns)
			}
			if s.err != nil && !errors.Is(s.err, ErrIdle) && runCtx.Err() == nil {
				cancel() // one failed client ends the run
			}
		}(s)
	}
	go closeWhenProducersDone(slots, producersDone)
	stopProgress := r.startProgress(slots)
	runStart := time.Now()
	during := r.startDuring(runCtx, p, runStart)
	cpu := cpuuse.Now()
	close(barrier)
	wg.Wait()
	var handled int64
	for _, s := range slots {
		handled += s.env.Rec.Progress()
	}
	cpuUsed := cpuuse.Since(cpu, handled)
	end := time.Now()
	windows := during()
	stopProgress()
	closeAll()

	res := r.assemble(p, slots, clk, epoch)
	res.Start, res.End = runStart.UTC(), end.UTC()
	res.CPU = cpuUsed
	res.Windows = windowStats(p, slots, epoch, windows)
	res.Events = pr.conns.events(runStart)
	res.Stop = stopReason(ctx, slots)
	if p.After != nil {
		p.After(context.WithoutCancel(ctx), res)
	}
	return res
}

// idleOrLost decides what a receiver that went idle really met: a connection that is down
// did not go quiet, its server went away. Such a client waits for the connection to come
// back (then it was idle) or to be given up after the grace period (then it failed, with
// why), so a lost connection is a failure whatever the idle timeout.
func idleOrLost(ctx context.Context, conns []*Conn) error {
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for _, c := range conns {
		for !c.IsConnected() {
			select {
			case <-c.Lost():
				return c.Err()
			case <-ctx.Done():
				return ctx.Err()
			case <-tick.C:
			}
		}
	}
	return ErrIdle
}

func (r *Runner) prepare(ctx context.Context, slots []*slot) error {
	errs := make([]error, len(slots))
	var wg sync.WaitGroup
	for i, s := range slots {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := s.client.Prepare(ctx, s.env); err != nil {
				errs[i] = fmt.Errorf("%s %d: %w", s.group.Kind, s.env.ID, err)
			}
		}()
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("setup interrupted: %w", err)
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// groupDoneFunc sums the members' progress; polled a few times a second, never per message.
func groupDoneFunc(g *Group, slots []*slot) func() bool {
	total := g.Expected()
	var recs []*record.Recorder
	for _, s := range slots {
		if s.group == g {
			recs = append(recs, s.env.Rec)
		}
	}
	return func() bool {
		if g.Shares == nil {
			return false
		}
		var n int64
		for _, r := range recs {
			n += r.Unique()
		}
		return n >= total
	}
}

func closeWhenProducersDone(slots []*slot, done chan struct{}) {
	for _, s := range slots {
		if s.group.Producer {
			<-s.done
		}
	}
	close(done)
}

func (r *Runner) logStart(p *Plan) {
	if r.Logf == nil {
		return
	}
	params := ""
	for i, kv := range p.Params {
		if i > 0 {
			params += ", "
		}
		params += kv.Key + "=" + kv.Value
	}
	r.Logf("Starting %s [%s]", p.Title, params)
	for _, g := range p.Groups {
		for i := 0; i < g.Clients; i++ {
			what := "until stopped"
			if i < len(g.Shares) {
				what = fmt.Sprintf("%s messages", units.Comma(g.Shares[i]))
			}
			r.Logf("[%d] Starting %s, %s %s", g.Offset+i+1, g.Kind, g.Verb, what)
		}
	}
}

func (r *Runner) startProgress(slots []*slot) func() {
	if r.Progress == nil {
		return func() {}
	}
	bars := make([]Bar, 0, len(slots))
	for _, s := range slots {
		bars = append(bars, Bar{
			Label: fmt.Sprintf("%s %d", s.group.Name, s.env.ID),
			Total: s.env.Share,
			Count: s.env.Rec.Unique,
			Done:  s.done,
		})
	}
	return r.Progress.Start(bars)
}

func stopReason(ctx context.Context, slots []*slot) result.Stop {
	if ctx.Err() != nil {
		return result.Stop{Reason: result.StopInterrupted, Error: "interrupted"}
	}
	idle := false
	for _, s := range slots {
		switch {
		case s.err == nil:
		case errors.Is(s.err, ErrIdle):
			idle = idle || !s.group.Estimated
		case errors.Is(s.err, context.Canceled):
			// cancelled because another client failed; that one carries the reason
		default:
			return result.Stop{Reason: result.StopFailed, Error: fmt.Sprintf("%s %d: %v", s.group.Kind, s.env.ID, s.err)}
		}
	}
	if idle {
		return result.Stop{Reason: result.StopIdle, Error: "receivers ended after the idle timeout without their full share"}
	}
	return result.Stop{Reason: result.StopCompleted}
}

func (r *Runner) assemble(p *Plan, slots []*slot, clk record.Clock, epoch int64) *result.Result {
	res := &result.Result{
		Schema:  result.Schema,
		Tool:    version.Tool(),
		Command: p.Command,
		Host:    host(),
	}
	if p.Settings != nil {
		if b, err := json.Marshal(p.Settings); err == nil {
			res.Settings = b
		}
	}
	seen := map[string]bool{}
	sent := producersSent(slots)
	for _, g := range p.Groups {
		var recs []*record.Recorder
		var clients []result.Client
		for _, s := range slots {
			if s.group != g {
				continue
			}
			s.env.Rec.Finish()
			recs = append(recs, s.env.Rec)
			c := s.env.Rec.Client(s.env.ID, lossBase(g, s.env.Share), g.Shared)
			c.Client = version.ClientLib()
			if g.HearsProducers && !g.Shared {
				record.SentTail(c.Correctness, sent)
			}
			clients = append(clients, c)
			for _, c := range s.conns {
				if c.info.ID != "" && !seen[c.info.ID] {
					seen[c.info.ID] = true
					res.Servers = append(res.Servers, c.info)
				}
			}
		}
		agg := record.Aggregate(recs, clients, lossBase(g, g.Expected()), g.Shared)
		if g.HearsProducers && g.Shared {
			record.SentTail(agg.Correctness, sent)
		}
		res.Groups = append(res.Groups, result.Group{
			Client:        version.ClientLib(),
			Name:          g.Name,
			Kind:          g.Kind,
			Expected:      g.Expected(),
			TargetRate:    g.Rate,
			PacePrecision: g.PacePrecision,
			Shared:        g.Shared,
			Estimated:     g.Estimated,
			Clients:       clients,
			Aggregate:     agg,
			Series:        record.Series(recs, epoch),
			// natsperf chose the precision from the rate (none was set)
			PacePrecisionChosen: g.PacePrecisionChosen,
		})
		if seen := progress(recs); agg.Msgs == 0 && seen > 0 && r.Warmup > 0 {
			res.Warnings = append(res.Warnings, fmt.Sprintf("%s: all %s messages fell within the --warmup of %v: nothing was measured", g.Kind, units.Comma(seen), r.Warmup))
		}
	}
	return res
}

// producersSent is what the producer groups sent, duplicates aside.
func producersSent(slots []*slot) int64 {
	var n int64
	for _, s := range slots {
		if s.group.Producer {
			n += s.env.Rec.Unique()
		}
	}
	return n
}

// lossBase is what losses are judged against: the share, unless it is only an estimate.
func lossBase(g *Group, n int64) int64 {
	if g.Estimated {
		return 0
	}
	return n
}

func progress(recs []*record.Recorder) int64 {
	var n int64
	for _, r := range recs {
		n += r.Progress()
	}
	return n
}

func host() result.Host {
	name, _ := os.Hostname()
	return result.Host{Hostname: name, OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(), Go: runtime.Version()}
}
