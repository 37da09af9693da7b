// Package agent is `natsperf agent`: a long-running worker that registers a micro service on
// a control NATS server and runs the parts of distributed runs a coordinator hands it, one
// run at a time (docs/agent-protocol.md).
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/natsperf/natsperf/internal/agentproto"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// Config is how an agent is started.
type Config struct {
	// Control is the connection to the control server the coordinator uses.
	Control connect.Settings
	// Target is what the agent's clients load when a Spec names no server (its -s and
	// connection flags).
	Target connect.Settings
	Env    connect.Env
	// Name is the agent's name (default HOST-PID).
	Name   string
	Labels map[string]string
	// AllowExec lets Specs run --fault-exec commands.
	AllowExec bool
	// Version is the natsperf version the agent announces and checks.
	Version string
	// Log receives one line per event (registered, prepared, started, ended).
	Log io.Writer
	// PrepareTimeout closes a prepared run that was not started (a coordinator gone); 0: 60s.
	PrepareTimeout time.Duration
	// ClockSkew is added to the clock the agent reports (tests: a machine whose clock is off).
	ClockSkew time.Duration
}

// Agent serves runs until its context ends.
type Agent struct {
	cfg  Config
	nc   *nats.Conn
	svc  micro.Service
	id   string
	ctx  context.Context
	mu   sync.Mutex
	job  *job // the run prepared or running; nil when idle
	logf func(format string, args ...any)
}

// job is one run on this agent.
type job struct {
	id      string
	run     *engine.Execution
	cancel  context.CancelFunc
	state   atomic.Value // agentproto.StatePrepared or StateRunning
	counts  *counter
	started chan struct{} // closed by start
	ended   chan struct{} // closed once the result is published
	hbStop  chan struct{}
	once    sync.Once // start or end, whichever comes first, decides who waits for the run
	fin     sync.Once // the Result is published once
	// seriesStop and seriesDone end the interval publisher before the Result goes out.
	seriesStop, seriesDone chan struct{}
}

// Serve registers the agent and serves until ctx ends; then it stops its run (publishing the
// partial Result) and unregisters.
func Serve(ctx context.Context, cfg Config) error {
	a, err := Start(ctx, cfg)
	if err != nil {
		return err
	}
	<-ctx.Done()
	a.Close()
	return nil
}

// Start connects to the control server and registers the agent's service.
func Start(ctx context.Context, cfg Config) (*Agent, error) {
	if cfg.Name == "" {
		host, _ := os.Hostname()
		cfg.Name = fmt.Sprintf("%s-%d", host, os.Getpid())
	}
	if cfg.PrepareTimeout <= 0 {
		cfg.PrepareTimeout = time.Minute
	}
	a := &Agent{cfg: cfg, ctx: ctx, logf: func(string, ...any) {}}
	if cfg.Log != nil {
		a.logf = func(format string, args ...any) {
			fmt.Fprintf(cfg.Log, time.Now().Format("15:04:05 ")+format+"\n", args...)
		}
	}
	nc, err := connect.ConnectPatiently(ctx, cfg.Control, "natsperf-agent-"+cfg.Name, nil,
		nats.MaxReconnects(-1), nats.ReconnectWait(250*time.Millisecond))
	if err != nil {
		return nil, fmt.Errorf("control server: %w", err)
	}
	a.nc = nc
	host, _ := os.Hostname()
	meta := map[string]string{
		agentproto.MetaProtocol: agentproto.Protocol, agentproto.MetaVersion: cfg.Version,
		agentproto.MetaName: cfg.Name, agentproto.MetaHost: host, agentproto.MetaCores: strconv.Itoa(runtime.NumCPU()),
		agentproto.MetaClient: "go", agentproto.MetaClientVersion: nats.Version,
	}
	for k, v := range cfg.Labels {
		meta[agentproto.MetaLabelPrefix+k] = v
	}
	svc, err := micro.AddService(nc, micro.Config{
		Name: agentproto.ServiceName, Version: agentproto.ServiceVersion(cfg.Version),
		Description: "natsperf agent: runs parts of distributed benchmarks", Metadata: meta,
	})
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("register the agent service: %w", err)
	}
	a.svc, a.id = svc, svc.Info().ID
	g := svc.AddGroup(agentproto.EndpointGroup(a.id), micro.WithGroupQueueGroupDisabled())
	for name, h := range map[string]micro.HandlerFunc{
		"clock": a.clock, "prepare": a.prepare, "start": a.start, "stop": a.stop,
	} {
		if err := g.AddEndpoint(name, h); err != nil {
			a.Close()
			return nil, fmt.Errorf("register the agent's %s endpoint: %w", name, err)
		}
	}
	if err := nc.Flush(); err != nil { // the server has every subscription: reachable from now on
		a.Close()
		return nil, fmt.Errorf("register the agent service: %w", err)
	}
	labels := make([]string, 0, len(cfg.Labels))
	for k, v := range cfg.Labels {
		labels = append(labels, k+"="+v)
	}
	sort.Strings(labels)
	a.logf("natsperf agent %s (id %s, natsperf %s, labels %v) waiting for runs on %s", cfg.Name, a.id, cfg.Version, labels, connect.RedactURL(nc.ConnectedUrl()))
	return a, nil
}

// ID is the agent's id (its micro service id).
func (a *Agent) ID() string { return a.id }

// Close stops the agent's run, waits (bounded) for its Result to be published, and
// unregisters.
func (a *Agent) Close() {
	a.mu.Lock()
	j := a.job
	a.mu.Unlock()
	if j != nil {
		a.logf("stopping run %s", j.id)
		a.end(j)
		select {
		case <-j.ended:
		case <-time.After(30 * time.Second):
		}
	}
	if a.svc != nil {
		_ = a.svc.Stop()
	}
	if a.nc != nil {
		_ = a.nc.Drain()
		deadline := time.Now().Add(5 * time.Second)
		for !a.nc.IsClosed() && time.Now().Before(deadline) {
			time.Sleep(10 * time.Millisecond)
		}
		a.nc.Close()
	}
}

func (a *Agent) clock(req micro.Request) {
	_ = req.RespondJSON(agentproto.ClockReply{NowNS: time.Now().Add(a.cfg.ClockSkew).UnixNano()})
}

// refuse replies with a protocol error: micro's error headers and a JSON body.
func refuse(req micro.Request, code, msg string) {
	body, _ := json.Marshal(agentproto.ErrorReply{Error: msg, Code: code})
	_ = req.Error(code, msg, body)
}

func (a *Agent) prepare(req micro.Request) {
	var p agentproto.Prepare
	if err := json.Unmarshal(req.Data(), &p); err != nil {
		refuse(req, agentproto.CodeBadRequest, "prepare: "+err.Error())
		return
	}
	switch {
	case p.Protocol != agentproto.Protocol:
		refuse(req, agentproto.CodeVersion, fmt.Sprintf("agent %s speaks %s, the coordinator %q", a.cfg.Name, agentproto.Protocol, p.Protocol))
		return
	case p.Version != a.cfg.Version:
		refuse(req, agentproto.CodeVersion, fmt.Sprintf("agent %s is natsperf %s, the coordinator natsperf %s: use one version", a.cfg.Name, a.cfg.Version, p.Version))
		return
	case p.Run == "" || p.Part.Count < 1 || p.Part.Index < 0 || p.Part.Index >= p.Part.Count:
		refuse(req, agentproto.CodeBadRequest, fmt.Sprintf("prepare: run %q, part %d of %d: not a run part", p.Run, p.Part.Index, p.Part.Count))
		return
	}
	s, err := spec.ParseJSON(p.Spec)
	if err != nil {
		refuse(req, agentproto.CodeBadRequest, err.Error())
		return
	}
	if len(s.Faults.Exec) > 0 && !a.cfg.AllowExec {
		refuse(req, agentproto.CodeExec, fmt.Sprintf("agent %s runs no commands: --fault-exec needs the agent started with --allow-exec", a.cfg.Name))
		return
	}
	s.Target.Password, s.Target.Token = spec.Secret(p.Secrets.Password), spec.Secret(p.Secrets.Token)

	a.mu.Lock()
	if a.job != nil {
		busy := a.job.id
		a.mu.Unlock()
		refuse(req, agentproto.CodeBusy, fmt.Sprintf("agent %s is busy with run %s", a.cfg.Name, busy))
		return
	}
	ctx, cancel := context.WithCancel(a.ctx)
	j := &job{id: p.Run, cancel: cancel, counts: &counter{}, started: make(chan struct{}), ended: make(chan struct{}), hbStop: make(chan struct{})}
	j.state.Store(agentproto.StatePrepared)
	a.job = j
	a.mu.Unlock()

	o := engine.Options{
		Env: a.cfg.Env, Warn: a.cfg.Log, Progress: j.counts, IDBase: p.PublisherIDs.Base,
		Part: &engine.Part{Index: p.Part.Index, Count: p.Part.Count}, ClockOffsets: p.ClockOffsetsNS,
	}
	if p.Intervals {
		series := make(chan record.Slice, 4096)
		o.Series = series
		j.seriesStop, j.seriesDone = make(chan struct{}), make(chan struct{})
		go a.intervals(j, series)
	}
	if len(s.Target.Servers) == 0 && s.Target.Context == "" && s.Target.Embedded == nil {
		// The Spec leaves the target to the agents: the one this agent loads.
		s.Target = connect.WithSettings(s.Target, a.cfg.Target)
	}
	go a.heartbeat(j)
	if err := a.watchCoordinator(j); err != nil {
		a.finish(j, nil, err)
		refuse(req, agentproto.CodeFailed, fmt.Sprintf("agent %s: %v", a.cfg.Name, err))
		return
	}
	run, err := engine.Prepare(ctx, s, o)
	if err != nil {
		a.finish(j, nil, err)
		code := agentproto.CodeFailed
		var in engine.InputError
		if errors.As(err, &in) {
			code = agentproto.CodeBadRequest
		}
		refuse(req, code, fmt.Sprintf("agent %s: %v", a.cfg.Name, err))
		return
	}
	if len(run.Plan.Groups) == 0 {
		run.Close()
		a.finish(j, nil, errors.New("no clients"))
		refuse(req, agentproto.CodeBadRequest, fmt.Sprintf("agent %s: part %d of %d has no clients", a.cfg.Name, p.Part.Index+1, p.Part.Count))
		return
	}
	a.mu.Lock()
	stopped := a.job != j // stopped while preparing
	if !stopped {
		j.run = run
	}
	a.mu.Unlock()
	if stopped {
		run.Close()
		refuse(req, agentproto.CodeFailed, fmt.Sprintf("agent %s: run %s was stopped while it prepared", a.cfg.Name, p.Run))
		return
	}
	a.logf("run %s: prepared part %d of %d (%s)", p.Run, p.Part.Index+1, p.Part.Count, run.Plan.Title)
	go func() { // a coordinator that never starts the run does not hold the agent
		select {
		case <-j.started:
		case <-j.ended:
		case <-time.After(a.cfg.PrepareTimeout):
			a.logf("run %s: not started within %v, closed", j.id, a.cfg.PrepareTimeout)
			a.end(j)
		}
	}()
	_ = req.RespondJSON(agentproto.OK{OK: true})
}

func (a *Agent) current(runID string) (*job, *engine.Execution) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.job != nil && a.job.id == runID {
		return a.job, a.job.run
	}
	return nil, nil
}

func (a *Agent) start(req micro.Request) {
	var st agentproto.Start
	if err := json.Unmarshal(req.Data(), &st); err != nil {
		refuse(req, agentproto.CodeBadRequest, "start: "+err.Error())
		return
	}
	j, run := a.current(st.Run)
	if run == nil {
		refuse(req, agentproto.CodeBusy, fmt.Sprintf("agent %s has no prepared run %s", a.cfg.Name, st.Run))
		return
	}
	started := false
	j.once.Do(func() {
		started = true
		close(j.started)
		j.state.Store(agentproto.StateRunning)
		at := time.Unix(0, st.AtNS)
		run.Start(at)
		a.logf("run %s: starting at %s (in %v)", j.id, at.Format("15:04:05.000"), time.Until(at).Round(time.Millisecond))
		go func() {
			res := run.Wait()
			a.finish(j, res, nil)
		}()
	})
	if !started {
		refuse(req, agentproto.CodeBusy, fmt.Sprintf("agent %s: run %s was already started or stopped", a.cfg.Name, st.Run))
		return
	}
	_ = req.RespondJSON(agentproto.OK{OK: true})
}

func (a *Agent) stop(req micro.Request) {
	var st agentproto.Stop
	if err := json.Unmarshal(req.Data(), &st); err != nil {
		refuse(req, agentproto.CodeBadRequest, "stop: "+err.Error())
		return
	}
	if j, _ := a.current(st.Run); j != nil {
		a.logf("run %s: stop asked", j.id)
		a.end(j)
	}
	_ = req.RespondJSON(agentproto.OK{OK: true})
}

// end cancels j: a running run ends with its partial Result, a prepared one is closed.
func (a *Agent) end(j *job) {
	j.cancel()
	j.once.Do(func() { // never started: nothing will Wait
		a.mu.Lock()
		run := j.run
		a.mu.Unlock()
		if run != nil {
			run.Close()
		}
		a.finish(j, nil, errors.New("stopped before it started"))
	})
}

// finish publishes j's Result (or why there is none) and frees the agent.
func (a *Agent) finish(j *job, res *result.Result, cause error) {
	j.fin.Do(func() { a.publish(j, res, cause) })
}

func (a *Agent) publish(j *job, res *result.Result, cause error) {
	close(j.hbStop)
	if j.seriesStop != nil {
		close(j.seriesStop)
		<-j.seriesDone
	}
	var chunks []agentproto.ResultChunk
	if res != nil {
		data, err := json.Marshal(res)
		if err != nil {
			cause = fmt.Errorf("encode the Result: %w", err)
		} else {
			chunks = agentproto.Chunk(j.id, a.id, data, int(a.nc.MaxPayload()))
		}
	}
	if chunks == nil {
		chunks = []agentproto.ResultChunk{{Run: j.id, Agent: a.id, Chunk: 0, Chunks: 1, Error: cause.Error()}}
	}
	subject := agentproto.RunSubject(j.id, a.id, "result")
	for _, c := range chunks {
		b, _ := json.Marshal(c)
		if err := a.nc.Publish(subject, b); err != nil {
			a.logf("run %s: publish result: %v", j.id, err)
		}
	}
	_ = a.nc.FlushTimeout(5 * time.Second)
	if res != nil {
		a.logf("run %s: ended (%s), Result sent in %d message(s)", j.id, res.Stop.Reason, len(chunks))
	}
	a.mu.Lock()
	if a.job == j {
		a.job = nil
	}
	a.mu.Unlock()
	j.cancel()
	close(j.ended)
}

// watchCoordinator ends j when its coordinator's heartbeat stops (the coordinator died or is
// cut off): nothing waits for a coordinator that is gone.
func (a *Agent) watchCoordinator(j *job) error {
	heard := make(chan struct{}, 1)
	sub, err := a.nc.Subscribe(agentproto.CoordinatorBeat(j.id), func(*nats.Msg) {
		select {
		case heard <- struct{}{}:
		default:
		}
	})
	if err != nil {
		return fmt.Errorf("watch the coordinator: %w", err)
	}
	go func() {
		defer func() { _ = sub.Unsubscribe() }()
		t := time.NewTimer(agentproto.LossAfter)
		defer t.Stop()
		for {
			select {
			case <-j.ended:
				return
			case <-heard:
				if !t.Stop() {
					<-t.C
				}
				t.Reset(agentproto.LossAfter)
			case <-t.C:
				a.logf("run %s: the coordinator is silent (no heartbeat for %v): stopping", j.id, time.Duration(agentproto.LossAfter))
				a.end(j)
				return
			}
		}
	}()
	return nil
}

// intervals publishes the run's closed intervals as they come, until the run has ended.
func (a *Agent) intervals(j *job, series chan record.Slice) {
	defer close(j.seriesDone)
	subject := agentproto.RunSubject(j.id, a.id, "interval")
	send := func(sl record.Slice) {
		b, _ := json.Marshal(agentproto.Interval{Run: j.id, Agent: a.id, T: sl.Start, Src: sl.Src, Msgs: sl.Msgs, Bytes: sl.Bytes, Lat: sl.Lat})
		_ = a.nc.Publish(subject, b)
	}
	for {
		select {
		case sl := <-series:
			send(sl)
		case <-j.seriesStop:
			for { // the run's last intervals, before its Result
				select {
				case sl := <-series:
					send(sl)
				default:
					return
				}
			}
		}
	}
}

// heartbeat publishes j's state every second until it ends.
func (a *Agent) heartbeat(j *job) {
	t := time.NewTicker(agentproto.HeartbeatEvery)
	defer t.Stop()
	subject := agentproto.RunSubject(j.id, a.id, "hb")
	for {
		hb := agentproto.Heartbeat{Run: j.id, Agent: a.id, State: j.state.Load().(string), Msgs: j.counts.total(), AtNS: time.Now().UnixNano()}
		b, _ := json.Marshal(hb)
		_ = a.nc.Publish(subject, b)
		select {
		case <-j.hbStop:
			return
		case <-t.C:
		}
	}
}

// counter is the engine's progress display for an agent: it sums its clients' counts for
// the heartbeats.
type counter struct {
	mu   sync.Mutex
	bars []harness.Bar
}

func (c *counter) Start(bars []harness.Bar) func() {
	c.mu.Lock()
	c.bars = bars
	c.mu.Unlock()
	return func() {}
}

func (c *counter) total() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	var n int64
	for _, b := range c.bars {
		n += b.Count()
	}
	return n
}
