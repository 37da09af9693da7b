package fault

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/natsperf/natsperf/result"
)

// Cluster is what the timeline needs of an embedded cluster (embedded.Cluster has it).
type Cluster interface {
	Kill(i int) error
	Restart(i int) error
	Pause(i int, d time.Duration) error
	NodeByName(name string) (int, bool)
	ServerName(i int) string
}

// PowerCluster is what power failures and corruption need of a cluster besides Cluster
// (embedded.Cluster and procs.Cluster have it).
type PowerCluster interface {
	Size() int
	// PowerFail stops the nodes at one instant, dropping what they had not fsynced, and
	// says what was dropped.
	PowerFail(nodes []int) (string, error)
	// RestartAll brings down nodes back together.
	RestartAll(nodes []int) error
	// Corrupt damages a down node's newest message block and says how.
	Corrupt(node int) (string, error)
}

// Env is what a timeline acts on.
type Env struct {
	Cluster Cluster // nil against external servers
	// Leader returns the server name of the stream's leader ("" while there is none).
	Leader func(ctx context.Context) (string, error)
	// Stepdown asks the stream leader to step down.
	Stepdown func(ctx context.Context) error
	// ExecTimeout bounds a --fault-exec command; 0 means DefaultExecTimeout.
	ExecTimeout time.Duration
	// Logf prints a line when an action takes effect; nil prints nothing.
	Logf func(format string, args ...any)
}

// DefaultExecTimeout bounds a --fault-exec command.
const DefaultExecTimeout = 30 * time.Second

// leaderWait bounds how long the timeline watches for a new stream leader after a fault.
const leaderWait = 20 * time.Second

// Timeline runs a plan's actions at their times.
type Timeline struct {
	plan   Plan
	env    Env
	mu     sync.Mutex
	events []result.FaultEvent
	killed []int // nodes killed and not yet restarted
	wg     sync.WaitGroup
}

// NewTimeline prepares plan on env.
func NewTimeline(plan Plan, env Env) *Timeline {
	if env.ExecTimeout <= 0 {
		env.ExecTimeout = DefaultExecTimeout
	}
	return &Timeline{plan: plan, env: env}
}

// Run performs the actions at their offsets from start until ctx ends; actions whose time did
// not come are recorded as skipped. It returns once every action and leader watch is over.
func (t *Timeline) Run(ctx context.Context, start time.Time) {
	defer t.wg.Wait()
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for i, a := range t.plan {
		if wait := time.Until(start.Add(a.At)); wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
				t.skip(t.plan[i:])
				return
			}
		}
		if ctx.Err() != nil {
			t.skip(t.plan[i:])
			return
		}
		t.do(ctx, start, a)
	}
}

func (t *Timeline) skip(rest Plan) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, a := range rest {
		t.events = append(t.events, result.FaultEvent{Spec: a.String(), Kind: a.Kind, At: a.At, Skipped: true, Error: "the run ended first"})
	}
}

// do performs one action and records it.
func (t *Timeline) do(ctx context.Context, start time.Time, a Action) {
	began := time.Now()
	ev := result.FaultEvent{Spec: a.String(), Kind: a.Kind, At: a.At, Started: began.Sub(start)}
	var err error
	watch := ""
	switch a.Kind {
	case KillLeader:
		var node int
		if node, ev.Node, err = t.leaderNode(ctx); err == nil {
			watch = ev.Node
			err = t.kill(node)
		}
	case Kill:
		ev.Node = t.env.Cluster.ServerName(a.Node)
		if t.env.Leader != nil {
			if l, lerr := t.env.Leader(ctx); lerr == nil && l == ev.Node {
				watch = l
			}
		}
		err = t.kill(a.Node)
	case Restart:
		ev.Node, err = t.restart(a.Node)
	case Pause:
		node := a.Node
		if node == 0 {
			node, ev.Node, err = t.leaderNode(ctx)
		} else {
			ev.Node = t.env.Cluster.ServerName(node)
		}
		if err == nil {
			err = t.env.Cluster.Pause(node, a.For)
		}
	case Stepdown:
		if t.env.Leader != nil {
			ev.Node, _ = t.env.Leader(ctx)
		}
		if err = t.env.Stepdown(ctx); err == nil {
			watch = ev.Node
		}
	case Partition, Heal, Delay:
		ev.Node, ev.Detail, watch, err = t.link(ctx, a)
	case Exec:
		ev.Detail, err = runCommand(ctx, a.Cmd, t.env.ExecTimeout)
	case PowerFail:
		ev.Node, ev.Detail, watch, err = t.powerFail(ctx, a)
	case Corrupt:
		ev.Node = t.env.Cluster.ServerName(a.Node)
		if pc, ok := t.env.Cluster.(PowerCluster); ok {
			ev.Detail, err = pc.Corrupt(a.Node)
		} else {
			err = errors.New("this cluster cannot corrupt a store")
		}
	default:
		err = fmt.Errorf("unknown fault %q", a.Kind)
	}
	ev.Took = time.Since(began)
	if err != nil {
		ev.Error = err.Error()
	}
	t.logf("Fault %s: %s", ev.Spec, describe(ev))
	t.mu.Lock()
	i := len(t.events)
	t.events = append(t.events, ev)
	t.mu.Unlock()
	if watch != "" && t.env.Leader != nil {
		t.wg.Add(1)
		go t.watchLeader(ctx, i, watch, began)
	}
}

func describe(ev result.FaultEvent) string {
	s := fmt.Sprintf("at %.2fs, took %s", ev.Started.Seconds(), ev.Took.Round(time.Millisecond))
	if ev.Node != "" {
		s += ", node " + ev.Node
	}
	if ev.Detail != "" {
		s += ": " + ev.Detail
	}
	if ev.Error != "" {
		s += ", failed: " + ev.Error
	}
	return s
}

func (t *Timeline) logf(format string, args ...any) {
	if t.env.Logf != nil {
		t.env.Logf(format, args...)
	}
}

// leaderNode finds the node leading the stream.
func (t *Timeline) leaderNode(ctx context.Context) (int, string, error) {
	if t.env.Leader == nil {
		return 0, "", errors.New("no stream to find a leader for")
	}
	name, err := t.env.Leader(ctx)
	if err != nil {
		return 0, "", fmt.Errorf("stream leader: %w", err)
	}
	if name == "" {
		return 0, "", errors.New("the stream has no leader right now")
	}
	node, ok := t.env.Cluster.NodeByName(name)
	if !ok {
		return 0, name, fmt.Errorf("stream leader %s is not an embedded node", name)
	}
	return node, name, nil
}

func (t *Timeline) kill(node int) error {
	if err := t.env.Cluster.Kill(node); err != nil {
		return err
	}
	t.mu.Lock()
	t.killed = append(t.killed, node)
	t.mu.Unlock()
	return nil
}

// restart brings node back, or with 0 every node this timeline killed, in kill order.
func (t *Timeline) restart(node int) (string, error) {
	t.mu.Lock()
	var nodes []int
	if node == 0 {
		nodes, t.killed = t.killed, nil
	} else {
		nodes = []int{node}
		for i, k := range t.killed {
			if k == node {
				t.killed = append(t.killed[:i:i], t.killed[i+1:]...)
				break
			}
		}
	}
	t.mu.Unlock()
	if len(nodes) == 0 {
		return "", errors.New("no killed node to restart")
	}
	var names string
	var errs []error
	for _, n := range nodes {
		if names != "" {
			names += ","
		}
		names += t.env.Cluster.ServerName(n)
	}
	if pc, ok := t.env.Cluster.(PowerCluster); ok && node == 0 {
		return names, pc.RestartAll(nodes) // together: nodes that all went down need each other's votes
	}
	for _, n := range nodes {
		if err := t.env.Cluster.Restart(n); err != nil {
			errs = append(errs, err)
		}
	}
	return names, errors.Join(errs...)
}

// powerFail picks the nodes of a power failure and fails them; watch is the stream leader
// when it went down with them.
func (t *Timeline) powerFail(ctx context.Context, a Action) (names, detail, watch string, err error) {
	pc, ok := t.env.Cluster.(PowerCluster)
	if !ok {
		return "", "", "", errors.New("this cluster cannot lose power")
	}
	var nodes []int
	leader := ""
	if t.env.Leader != nil {
		leader, _ = t.env.Leader(ctx)
	}
	switch a.Who {
	case All:
		for i := 1; i <= pc.Size(); i++ {
			nodes = append(nodes, i)
		}
	case Leader, Minority:
		l, name, lerr := t.leaderNode(ctx)
		if lerr != nil {
			return name, "", "", lerr
		}
		nodes = append(nodes, l)
		for i := 1; a.Who == Minority && len(nodes) < (pc.Size()-1)/2 && i <= pc.Size(); i++ {
			if i != l {
				nodes = append(nodes, i)
			}
		}
	default:
		nodes = []int{a.Node}
	}
	for _, n := range nodes {
		if names != "" {
			names += ","
		}
		names += t.env.Cluster.ServerName(n)
		if t.env.Cluster.ServerName(n) == leader && leader != "" {
			watch = leader
		}
	}
	detail, err = pc.PowerFail(nodes)
	if err == nil {
		t.mu.Lock()
		t.killed = append(t.killed, nodes...)
		t.mu.Unlock()
	}
	return names, detail, watch, err
}

// watchLeader records how long after the fault the stream had a new leader.
func (t *Timeline) watchLeader(ctx context.Context, i int, old string, began time.Time) {
	defer t.wg.Done()
	deadline := time.Now().Add(leaderWait)
	tick := time.NewTicker(25 * time.Millisecond)
	defer tick.Stop()
	for time.Now().Before(deadline) {
		lctx, cancel := context.WithTimeout(ctx, time.Second)
		name, err := t.env.Leader(lctx)
		cancel()
		if err == nil && name != "" && name != old {
			d := time.Since(began)
			t.mu.Lock()
			t.events[i].NewLeader, t.events[i].NewLeaderAfter = name, d
			t.mu.Unlock()
			// Not printed: the run's failover story tells the new leader once, from its
			// advisory (this poll waits on a client that may itself be reconnecting).
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// Events returns what happened, in time order.
func (t *Timeline) Events() []result.FaultEvent {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]result.FaultEvent(nil), t.events...)
}
