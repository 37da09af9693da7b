// Package coord is the coordinator of a distributed run: it finds natsperf agents on a
// control server, splits a Spec across them, starts them at one instant, watches their
// heartbeats and merges their Results (docs/agent-protocol.md).
package coord

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"
	"github.com/nats-io/nuid"

	"github.com/natsperf/natsperf/internal/agentproto"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/failover"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// What the run does when an agent is lost.
const (
	OnLossStop     = "stop"
	OnLossContinue = "continue"
)

// Config is how a distributed run is coordinated.
type Config struct {
	Control connect.Settings
	// Count is how many agents to use (--agents N); with a Selector instead, every agent whose
	// labels match (at least one).
	Count    int
	Selector map[string]string
	// Client keeps the agents whose client library is this one ("go": natsperf agents,
	// "rust": natsperf-rust agents); "": any.
	Client string
	// Wait bounds the discovery (--agents-wait; 0: 30s).
	Wait time.Duration
	// OnLoss is OnLossStop (default) or OnLossContinue.
	OnLoss string
	// Version is this natsperf's version; agents of another are refused.
	Version string
	// Secrets go to the agents next to the Spec (which never holds them).
	Secrets agentproto.Secrets
	// Log receives one line per step (agents found, split, start); nil: nothing.
	Log io.Writer
	// Progress shows one bar per agent, driven by its heartbeats; nil: none.
	Progress harness.Progress
	// Series, when set, receives the agents' closed intervals as they arrive, each client's
	// Src prefixed with its agent's name ("a1/pub/1") and its start on the coordinator's clock
	// (live metrics labelled by agent, a series file). An interval that finds it full is
	// dropped; nothing is sent after Run returns.
	Series chan<- record.Slice
	// Lost overrides agentproto.LossAfter (tests); PrepareTimeout bounds prepare (0: 2m).
	LossAfter, PrepareTimeout time.Duration
}

// Agent is an agent found on the control server.
type Agent struct {
	ID, Name, Host, Protocol, Version, Client string
	Labels                                    map[string]string
}

func (a Agent) String() string { return a.Name + " (" + a.Host + ")" }

// Parse reads --agents: a count, or a label selector k=v[,k=v].
func Parse(v string) (count int, selector map[string]string, err error) {
	if n, err := strconv.Atoi(v); err == nil {
		if n < 1 {
			return 0, nil, fmt.Errorf("--agents %d: want at least 1 agent", n)
		}
		return n, nil, nil
	}
	sel, err := agentproto.ParseLabels([]string{v})
	if err != nil {
		return 0, nil, fmt.Errorf("--agents %q: want a number of agents or labels k=v[,k=v]", v)
	}
	return 0, sel, nil
}

// Check says whether s can be split across agents, before anything connects.
func Check(s *spec.Spec, agents int) error {
	if s.Target.Embedded != nil {
		return errors.New("an embedded server is private to one process: give the agents a server (-s, or their own -s)")
	}
	if len(s.Faults.Inject) > 0 {
		return errors.New("--fault acts on one process's servers: run it without --agents (--fault-exec runs on every agent started with --allow-exec)")
	}
	for _, w := range s.Workloads {
		if w.Kind() == "latency" && agents > 1 { // one agent keeps one clock (--client rust)
			return errors.New("latency runs its publisher and subscriber in one process (one clock): run it on one agent")
		}
	}
	for p := range agents {
		if !hasClients(s, p, agents) {
			return fmt.Errorf("the Spec's clients cannot keep %d agents busy (part %d would have none): ask for fewer agents or more clients", agents, p+1)
		}
	}
	return nil
}

// busyParts is the largest number of parts, up to agents, that each run a client of s (0:
// none; a count below that is always possible: one part runs every client).
func busyParts(s *spec.Spec, agents int) int {
	for n := agents; n > 0; n-- {
		busy := true
		for p := 0; p < n && busy; p++ {
			busy = hasClients(s, p, n)
		}
		if busy {
			return n
		}
	}
	return 0
}

// hasClients reports whether part p of count runs any client of s (the engine's split rule).
func hasClients(s *spec.Spec, p, count int) bool {
	for wi, w := range s.Workloads {
		if whole, _, total := engine.Unit(s, wi, 0); whole {
			if lo, hi := agentproto.Range(total, p, count); hi > lo {
				return true
			}
			continue
		}
		for _, n := range groupSizes(w) {
			if lo, hi := agentproto.Range(n, p, count); hi > lo {
				return true
			}
		}
	}
	return false
}

// groupSizes is the client count of each of a workload's groups.
func groupSizes(w spec.Workload) []int {
	if ps, ok := w.Config.(*spec.PubSub); ok {
		return []int{max(ps.Pubs, 1), max(ps.Subs, 1)}
	}
	return []int{max(w.Clients, 1)}
}

// coordinator is one distributed run.
type coordinator struct {
	cfg    Config
	nc     *nats.Conn
	runID  string
	logf   func(format string, args ...any)
	mu     sync.Mutex
	states map[string]*agentState // by agent id
	notify chan struct{}          // a result arrived or an agent changed state
	ended  bool                   // run returned: nothing more goes to cfg.Series
}

// agentState is what the coordinator knows of one agent during the run.
type agentState struct {
	Agent
	part        int
	offset, unc time.Duration
	rtt         time.Duration
	lastHeard   time.Time
	msgs        int64
	chunks      [][]byte
	got         int
	res         *result.Result
	err         string
	done, lost  bool
	doneCh      chan struct{}
	failSeen    bool // watch has seen that its part ended early
}

// endedEarly reports whether the agent's part ended without completing (failed, or stopped
// on its machine): the run as a whole has then failed.
func (st *agentState) endedEarly() bool {
	if !st.done || st.lost {
		return false
	}
	return st.res == nil || st.res.Stop.Reason == result.StopFailed || st.res.Stop.Reason == result.StopInterrupted
}

// Coordinate runs s across agents and returns the merged Result (partial, naming lost agents, when
// some were lost or the run was interrupted). An error means nothing ran.
func Coordinate(ctx context.Context, s *spec.Spec, cfg Config) (*result.Result, error) {
	if cfg.Wait <= 0 {
		cfg.Wait = 30 * time.Second
	}
	if cfg.OnLoss == "" {
		cfg.OnLoss = OnLossStop
	}
	if cfg.LossAfter <= 0 {
		cfg.LossAfter = agentproto.LossAfter
	}
	if cfg.PrepareTimeout <= 0 {
		cfg.PrepareTimeout = 2 * time.Minute
	}
	if cfg.Secrets == (agentproto.Secrets{}) {
		cfg.Secrets = agentproto.Secrets{Password: string(s.Target.Password), Token: string(s.Target.Token)}
	}
	if cfg.Count > 0 {
		if err := Check(s, cfg.Count); err != nil {
			return nil, InputError{err}
		}
	}
	c := &coordinator{cfg: cfg, runID: nuid.Next(), logf: func(string, ...any) {}, states: map[string]*agentState{}, notify: make(chan struct{}, 1)}
	if cfg.Log != nil {
		c.logf = func(format string, args ...any) {
			fmt.Fprintf(cfg.Log, time.Now().Format("15:04:05 ")+format+"\n", args...)
		}
	}
	nc, err := connect.ConnectPatiently(ctx, cfg.Control, "natsperf-coordinator", nil)
	if err != nil {
		return nil, fmt.Errorf("control server: %w", err)
	}
	defer nc.Close()
	c.nc = nc
	agents, err := c.discover(ctx)
	if err != nil {
		return nil, err
	}
	if cfg.Count == 0 {
		// A selector asks for the agents that match, not for a number: use as many as the
		// Spec's clients keep busy.
		if n := busyParts(s, len(agents)); n > 0 && n < len(agents) {
			names := make([]string, n)
			for i, a := range agents[:n] {
				names[i] = a.String()
			}
			c.logf("the Spec's clients keep %d of the %d agents matching %s busy: running on %s", n, len(agents), labelString(cfg.Selector), strings.Join(names, ", "))
			agents = agents[:n]
		}
		if err := Check(s, len(agents)); err != nil {
			return nil, InputError{err}
		}
	}
	return c.run(ctx, s, agents)
}

// InputError is a request that cannot run as asked (exit 2).
type InputError struct{ Err error }

func (e InputError) Error() string { return e.Err.Error() }
func (e InputError) Unwrap() error { return e.Err }

// Discover lists the agents on the control connection nc that answer within wait.
func Discover(ctx context.Context, nc *nats.Conn, wait time.Duration) ([]Agent, error) {
	inbox := nc.NewRespInbox()
	sub, err := nc.SubscribeSync(inbox)
	if err != nil {
		return nil, err
	}
	defer func() { _ = sub.Unsubscribe() }()
	subject, _ := micro.ControlSubject(micro.InfoVerb, agentproto.ServiceName, "")
	if err := nc.PublishRequest(subject, inbox, nil); err != nil {
		return nil, err
	}
	var out []Agent
	seen := map[string]bool{}
	deadline := time.Now().Add(wait)
	for {
		d := time.Until(deadline)
		if d <= 0 || ctx.Err() != nil {
			break
		}
		m, err := sub.NextMsg(d)
		if err != nil {
			break
		}
		var info micro.Info
		if json.Unmarshal(m.Data, &info) != nil || info.Name != agentproto.ServiceName || seen[info.ID] {
			continue
		}
		seen[info.ID] = true
		md := info.Metadata
		out = append(out, Agent{
			ID: info.ID, Name: md[agentproto.MetaName], Host: md[agentproto.MetaHost], Protocol: md[agentproto.MetaProtocol],
			Version: md[agentproto.MetaVersion], Client: md[agentproto.MetaClient], Labels: agentproto.Labels(md),
		})
	}
	sort.Slice(out, func(i, j int) bool {
		return out[i].Name < out[j].Name || out[i].Name == out[j].Name && out[i].ID < out[j].ID
	})
	return out, nil
}

// clientOf is an agent's client library: its metadata's, go when it names none.
func clientOf(a Agent) string {
	if a.Client == "" {
		return "go"
	}
	return a.Client
}

func matches(a Agent, sel map[string]string) bool {
	for k, v := range sel {
		if a.Labels[k] != v {
			return false
		}
	}
	return true
}

// discover waits (up to cfg.Wait) for the agents asked for and checks their versions.
func (c *coordinator) discover(ctx context.Context) ([]Agent, error) {
	deadline := time.Now().Add(c.cfg.Wait)
	var found []Agent
	for {
		all, err := Discover(ctx, c.nc, 500*time.Millisecond)
		if err != nil {
			return nil, fmt.Errorf("discover agents: %w", err)
		}
		found = found[:0]
		for _, a := range all {
			if matches(a, c.cfg.Selector) && (c.cfg.Client == "" || clientOf(a) == c.cfg.Client) {
				found = append(found, a)
			}
		}
		enough := len(found) > 0 && len(found) >= c.cfg.Count
		if enough || time.Now().After(deadline) || ctx.Err() != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if !enough {
				return nil, c.missing(found, all)
			}
			break
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	if c.cfg.Count > 0 {
		found = found[:c.cfg.Count]
	}
	var bad []string
	for _, a := range found {
		if !agentproto.Compatible(a.Protocol, a.Version, a.Client, c.cfg.Version) {
			bad = append(bad, fmt.Sprintf("agent %s is natsperf %s (%s), this coordinator natsperf %s (%s)", a, a.Version, a.Protocol, c.cfg.Version, agentproto.Protocol))
		}
	}
	if len(bad) > 0 {
		return nil, fmt.Errorf("refused before anything ran: %s: run one natsperf version everywhere", strings.Join(bad, "; "))
	}
	names := make([]string, len(found))
	for i, a := range found {
		names[i] = a.String()
	}
	c.logf("Using %d agent(s): %s", len(found), strings.Join(names, ", "))
	return found, nil
}

// missing says which agents the discovery lacked.
func (c *coordinator) missing(found, all []Agent) error {
	list := func(as []Agent) string {
		if len(as) == 0 {
			return "none"
		}
		s := make([]string, len(as))
		for i, a := range as {
			s[i] = a.String()
			if len(a.Labels) > 0 {
				s[i] += " " + labelString(a.Labels)
			}
		}
		return strings.Join(s, ", ")
	}
	start, kind := "natsperf agent", ""
	if c.cfg.Client == "rust" {
		start, kind = "natsperf-rust agent", "natsperf-rust "
	}
	if len(c.cfg.Selector) > 0 {
		return fmt.Errorf("no %sagent with labels %s answered within %v (agents seen: %s); start one with '%s --control URL --label k=v'",
			kind, labelString(c.cfg.Selector), c.cfg.Wait, list(all), start)
	}
	return fmt.Errorf("%d of %d %sagents missing after %v (found: %s); start more with '%s --control URL'",
		c.cfg.Count-len(found), c.cfg.Count, kind, c.cfg.Wait, list(found), start)
}

func labelString(l map[string]string) string {
	kv := make([]string, 0, len(l))
	for k, v := range l {
		kv = append(kv, k+"="+v)
	}
	sort.Strings(kv)
	return strings.Join(kv, ",")
}

// request sends v to an agent's endpoint and decodes the reply into out, turning a refusal
// into an error with the agent's message.
func (c *coordinator) request(ctx context.Context, a Agent, endpoint string, v, out any, timeout time.Duration) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	m, err := c.nc.RequestWithContext(ctx, agentproto.Endpoint(a.ID, endpoint), b)
	if err != nil {
		return fmt.Errorf("agent %s: %s: %w", a, endpoint, err)
	}
	if msg := m.Header.Get(micro.ErrorHeader); msg != "" {
		return &refusal{code: m.Header.Get(micro.ErrorCodeHeader), msg: msg}
	}
	if out != nil {
		if err := json.Unmarshal(m.Data, out); err != nil {
			return fmt.Errorf("agent %s: %s reply: %w", a, endpoint, err)
		}
	}
	return nil
}

type refusal struct{ code, msg string }

func (r *refusal) Error() string { return r.msg }

// clock estimates a's clock offset: the round with the smallest round trip of several.
func (c *coordinator) clock(ctx context.Context, st *agentState) error {
	best := agentproto.ClockSample{RTTNS: -1}
	for range 8 {
		t0 := time.Now()
		var r agentproto.ClockReply
		if err := c.request(ctx, st.Agent, "clock", struct{}{}, &r, 5*time.Second); err != nil {
			return err
		}
		rtt := time.Since(t0) // monotonic
		if best.RTTNS < 0 || int64(rtt) < best.RTTNS {
			best = agentproto.ClockSample{T0NS: t0.UnixNano(), RTTNS: int64(rtt), NowNS: r.NowNS}
		}
	}
	st.offset, st.unc, st.rtt = time.Duration(best.Offset()), time.Duration(best.Uncertainty()), time.Duration(best.RTTNS)
	return nil
}

// onMessage handles what agents publish for the run: heartbeats and result chunks.
func (c *coordinator) onMessage(m *nats.Msg) {
	parts := strings.Split(m.Subject, ".")
	if len(parts) != 5 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	st := c.states[parts[3]]
	if st != nil && parts[4] == "interval" {
		c.interval(st, m.Data)
		return
	}
	if st == nil || st.done {
		return
	}
	st.lastHeard = time.Now()
	switch parts[4] {
	case "hb":
		var hb agentproto.Heartbeat
		if json.Unmarshal(m.Data, &hb) == nil {
			st.msgs = hb.Msgs
		}
	case "result":
		var ch agentproto.ResultChunk
		if json.Unmarshal(m.Data, &ch) != nil || ch.Chunks < 1 || ch.Chunk < 0 || ch.Chunk >= ch.Chunks {
			return
		}
		if st.chunks == nil {
			st.chunks = make([][]byte, ch.Chunks)
		}
		if ch.Chunks != len(st.chunks) || st.chunks[ch.Chunk] != nil {
			return
		}
		st.chunks[ch.Chunk] = append([]byte{}, ch.Data...)
		if ch.Error != "" {
			st.err = ch.Error
		}
		if st.got++; st.got < len(st.chunks) {
			return
		}
		if st.err == "" {
			var res result.Result
			if err := json.Unmarshal(slices.Concat(st.chunks...), &res); err != nil {
				st.err = "its Result does not decode: " + err.Error()
			} else {
				st.res = &res
			}
		}
		st.done = true
		close(st.doneCh)
		select {
		case c.notify <- struct{}{}:
		default:
		}
	}
}

// interval hands an agent's closed interval to cfg.Series (c.mu held).
func (c *coordinator) interval(st *agentState, data []byte) {
	if c.cfg.Series == nil || c.ended {
		return
	}
	var iv agentproto.Interval
	if json.Unmarshal(data, &iv) != nil {
		return
	}
	select {
	case c.cfg.Series <- record.Slice{Start: iv.T - int64(st.offset), Msgs: iv.Msgs, Bytes: iv.Bytes, Lat: iv.Lat, Src: st.Name + "/" + iv.Src}:
	default: // a full sink loses a live interval, never the Result
	}
}

// run prepares, starts, watches and merges.
func (c *coordinator) run(ctx context.Context, s *spec.Spec, agents []Agent) (*result.Result, error) {
	// The Spec goes without its secrets (a Spec never holds them: an agent refuses one that
	// does); they travel in the prepare request's own field.
	bare := *s
	bare.Target.Password, bare.Target.Token = "", ""
	bare.Target.SysPassword = "" // the coordinator samples the servers, the agents never do
	specJSON, err := json.Marshal(&bare)
	if err != nil {
		return nil, err
	}
	sub, err := c.nc.Subscribe(agentproto.RunWildcard(c.runID), c.onMessage)
	if err != nil {
		return nil, err
	}
	defer func() {
		_ = sub.Unsubscribe()
		c.mu.Lock()
		c.ended = true
		c.mu.Unlock()
	}()
	_ = sub.SetPendingLimits(-1, -1)
	states := make([]*agentState, len(agents))
	c.mu.Lock()
	for i, a := range agents {
		states[i] = &agentState{Agent: a, part: i, doneCh: make(chan struct{})}
		c.states[a.ID] = states[i]
	}
	c.mu.Unlock()
	if err := c.nc.Flush(); err != nil {
		return nil, err
	}
	stopBeat := c.beat()
	defer stopBeat()
	if err := each(states, func(st *agentState) error { return c.clock(ctx, st) }); err != nil {
		return nil, err
	}
	c.logf("Split: %s", c.describeSplit(s, len(agents)))
	// The random base of a single process, shared by every part (docs/agent-protocol.md).
	base := stamp.IDs(rand.Uint32N(2048)<<12).For(0) - 1
	if base == 0 {
		base = 1 << 12
	}
	offsets := make([]int64, len(states))
	for _, st := range states {
		offsets[st.part] = int64(st.offset)
	}
	prepare := func(st *agentState) error {
		req := agentproto.Prepare{
			Protocol: agentproto.Protocol, Version: c.cfg.Version, Run: c.runID, Spec: specJSON, Secrets: c.cfg.Secrets,
			Part: agentproto.Part{Index: st.part, Count: len(agents)}, PublisherIDs: agentproto.PublisherIDs{Base: base},
			ClockOffsetsNS: offsets, Intervals: c.cfg.Series != nil,
		}
		return c.request(ctx, st.Agent, "prepare", req, nil, c.cfg.PrepareTimeout)
	}
	if err := each(states, prepare); err != nil {
		c.stopAll(states)
		var r *refusal
		if errors.As(err, &r) && r.code == agentproto.CodeBadRequest {
			return nil, InputError{err}
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	// Every part is prepared: start all at one instant, in each agent's clock.
	var maxRTT time.Duration
	for _, st := range states {
		maxRTT = max(maxRTT, st.rtt)
	}
	at := time.Now().Add(200*time.Millisecond + 4*maxRTT)
	finishTelemetry := sampleServers(ctx, s, at)
	c.mu.Lock()
	for _, st := range states {
		st.lastHeard = time.Now()
	}
	c.mu.Unlock()
	if err := each(states, func(st *agentState) error {
		return c.request(ctx, st.Agent, "start", agentproto.Start{Run: c.runID, AtNS: at.Add(st.offset).UnixNano()}, nil, 10*time.Second)
	}); err != nil {
		c.stopAll(states)
		c.waitResults(states, 10*time.Second)
		finishTelemetry(nil)
		return c.merge(s, states, at, "start: "+err.Error())
	}
	c.logf("Started %d agents at %s", len(states), at.Format("15:04:05.000"))
	stopBars := c.progress(states)
	reason := c.watch(ctx, states)
	stopBars()
	res, err := c.merge(s, states, at, reason)
	finishTelemetry(res)
	if res != nil { // the story reads the coordinator's telemetry, which came after the merge
		res.Failovers = failover.Tell(res)
	}
	return res, err
}

// beat publishes the coordinator's heartbeat every second until stopped: agents stop a run
// whose coordinator went silent.
func (c *coordinator) beat() (stop func()) {
	done := make(chan struct{})
	go func() {
		t := time.NewTicker(agentproto.HeartbeatEvery)
		defer t.Stop()
		for {
			b, _ := json.Marshal(agentproto.CoordinatorHeartbeat{Run: c.runID, AtNS: time.Now().UnixNano()})
			_ = c.nc.Publish(agentproto.CoordinatorBeat(c.runID), b)
			select {
			case <-done:
				return
			case <-t.C:
			}
		}
	}()
	return func() { close(done) }
}

// watch waits for every agent's Result, declaring lost the ones that go silent, and stops
// the run on Ctrl-C or (with OnLossStop) a lost agent. It returns why the run was cut short
// ("" when it was not).
func (c *coordinator) watch(ctx context.Context, states []*agentState) string {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	reason := ""
	var stopped time.Time
	for {
		c.mu.Lock()
		pending := 0
		var newlyLost, newlyFailed []string
		for _, st := range states {
			if st.endedEarly() && !st.failSeen {
				st.failSeen = true
				newlyFailed = append(newlyFailed, st.Name)
			}
			if st.done {
				continue
			}
			silent := time.Since(st.lastHeard)
			if silent > c.cfg.LossAfter || (!stopped.IsZero() && time.Since(stopped) > 15*time.Second) {
				st.done, st.lost = true, true
				st.err = fmt.Sprintf("nothing heard for %v", silent.Round(time.Millisecond))
				close(st.doneCh)
				newlyLost = append(newlyLost, st.Name)
				continue
			}
			pending++
		}
		c.mu.Unlock()
		for _, n := range newlyLost {
			c.logf("Agent %s lost (no heartbeat for %v)", n, c.cfg.LossAfter)
		}
		for _, n := range newlyFailed {
			c.logf("Agent %s ended its part early (see its stop reason)", n)
		}
		if len(newlyLost)+len(newlyFailed) > 0 && reason == "" && c.cfg.OnLoss == OnLossStop && pending > 0 && stopped.IsZero() {
			reason = "agent " + strings.Join(append(newlyLost, newlyFailed...), ", ") + " lost or ended early: the others were stopped (--on-agent-loss stop)"
			c.logf("Stopping the other agents (--on-agent-loss stop)")
			c.stopAll(states)
			stopped = time.Now()
		}
		if pending == 0 {
			return reason
		}
		select {
		case <-ctx.Done():
			if stopped.IsZero() {
				reason = "interrupted"
				c.logf("Interrupted: stopping every agent")
				c.stopAll(states)
				stopped = time.Now()
			}
			ctx = context.Background() // keep waiting for the partial Results (bounded)
		case <-c.notify:
		case <-tick.C:
		}
	}
}

// waitResults waits up to d for the agents' Results.
func (c *coordinator) waitResults(states []*agentState, d time.Duration) {
	deadline := time.After(d)
	for _, st := range states {
		select {
		case <-st.doneCh:
		case <-deadline:
			return
		}
	}
}

// stopAll sends stop to every agent (bounded; an agent that does not answer is left).
func (c *coordinator) stopAll(states []*agentState) {
	_ = each(states, func(st *agentState) error {
		return c.request(context.Background(), st.Agent, "stop", agentproto.Stop{Run: c.runID}, nil, 2*time.Second)
	})
}

// progress draws one bar per agent from its heartbeats.
func (c *coordinator) progress(states []*agentState) func() {
	if c.cfg.Progress == nil {
		return func() {}
	}
	bars := make([]harness.Bar, len(states))
	for i, st := range states {
		bars[i] = harness.Bar{Label: "agent " + st.Name, Done: st.doneCh, Count: func() int64 {
			c.mu.Lock()
			defer c.mu.Unlock()
			return st.msgs
		}}
	}
	return c.cfg.Progress.Start(bars)
}

// merge joins the Results that arrived and records the distribution in the merged one.
func (c *coordinator) merge(s *spec.Spec, states []*agentState, at time.Time, reason string) (*result.Result, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	d := &result.Distributed{StartNS: at.UnixNano(), OnAgentLoss: c.cfg.OnLoss}
	var in []result.Input
	var first, last time.Time
	var failed []string
	names := map[string]int{}
	for _, st := range states {
		names[st.Name]++
	}
	for _, st := range states {
		a := result.Agent{
			Name: st.Name, ID: st.ID, Host: st.Host, Version: st.Version, Client: st.Client, Part: st.part + 1, Parts: len(states),
			ClockOffsetNS: int64(st.offset), ClockUncertaintyNS: int64(st.unc), Lost: st.lost, Error: st.err,
		}
		if st.lost {
			d.Lost = append(d.Lost, st.Name)
		} else if st.res == nil {
			failed = append(failed, st.Name+": "+st.err)
		}
		if st.res != nil {
			started := st.res.Start.Add(-st.offset) // on the coordinator's clock
			a.StartOffsetNS = int64(started.Sub(at))
			if first.IsZero() || started.Before(first) {
				first = started
			}
			if started.After(last) {
				last = started
			}
			name := st.Name
			if names[name] > 1 {
				name += "-" + st.ID
			}
			in = append(in, result.Input{Name: name, Result: st.res})
		}
		d.Agents = append(d.Agents, a)
	}
	d.StartSkewNS = int64(last.Sub(first))
	if len(in) == 0 {
		msg := "no agent sent a Result"
		if len(failed) > 0 {
			msg += ": " + strings.Join(failed, "; ")
		}
		if len(d.Lost) > 0 {
			msg += " (lost: " + strings.Join(d.Lost, ", ") + ")"
		}
		return nil, errors.New(msg)
	}
	res, err := result.MergeNamed(in)
	if err != nil {
		return nil, err
	}
	res.Distributed = d
	var why []string
	if len(d.Lost) > 0 {
		why = append(why, fmt.Sprintf("partial: agent %s lost, %d of %d agents' data", strings.Join(d.Lost, ", "), len(in), len(states)))
	}
	if len(failed) > 0 {
		why = append(why, "no Result from "+strings.Join(failed, "; "))
	}
	if reason != "" && reason != "interrupted" && len(d.Lost) == 0 {
		why = append(why, reason)
	}
	if reason != "interrupted" && res.Stop.Reason == result.StopInterrupted {
		// An agent was stopped on its own machine (Ctrl-C there): the run failed, it was not
		// this coordinator's Ctrl-C.
		res.Stop.Reason = result.StopFailed
	}
	switch {
	case reason == "interrupted":
		res.Stop = result.Stop{Reason: result.StopInterrupted, Error: strings.Join(append([]string{"interrupted"}, why...), "; ")}
	case len(why) > 0:
		res.Stop = result.Stop{Reason: result.StopFailed, Error: strings.Join(why, "; ")}
	}
	engine.Conclude(s, res) // the thresholds judge the whole run, not each agent's part
	return res, nil
}

// describeSplit says what each part runs, e.g. "3 agents; pub: 10 clients as 3+3+4".
func (c *coordinator) describeSplit(s *spec.Spec, n int) string {
	var out []string
	named := map[string]bool{}
	for wi, w := range s.Workloads {
		kind := w.Kind()
		if whole, _, total := engine.Unit(s, wi, 0); whole {
			if w.Instances <= 1 { // a scenario's instances: workloads of one name
				if named[w.Name] {
					continue
				}
				named[w.Name] = true
				kind = w.Name + " (" + kind + ")"
			}
			out = append(out, fmt.Sprintf("%s: %d instances as %s", kind, total, shares(total, n)))
			continue
		}
		sizes := groupSizes(w)
		if len(sizes) == 2 {
			out = append(out, fmt.Sprintf("%s: %d publishers as %s, %d subscribers as %s", kind, sizes[0], shares(sizes[0], n), sizes[1], shares(sizes[1], n)))
			continue
		}
		out = append(out, fmt.Sprintf("%s: %d clients as %s", kind, sizes[0], shares(sizes[0], n)))
	}
	return fmt.Sprintf("%d agents; %s", n, strings.Join(out, "; "))
}

func shares(total, n int) string {
	s := make([]string, n)
	for p := range n {
		lo, hi := agentproto.Range(total, p, n)
		s[p] = strconv.Itoa(hi - lo)
	}
	return strings.Join(s, "+")
}

// each runs f for every state at once and returns the first error.
func each(states []*agentState, f func(*agentState) error) error {
	errs := make([]error, len(states))
	var wg sync.WaitGroup
	for i, st := range states {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[i] = f(st)
		}()
	}
	wg.Wait()
	var out oneLine
	for _, err := range errs {
		if err != nil {
			out = append(out, err)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// oneLine is several agents' errors on one line.
type oneLine []error

func (e oneLine) Error() string {
	s := make([]string, len(e))
	for i, err := range e {
		s[i] = err.Error()
	}
	return strings.Join(s, "; ")
}

func (e oneLine) Unwrap() []error { return e }
