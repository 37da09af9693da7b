package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/fault"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/result"
)

// faultFlags are --verify, --fault and --fault-exec of the publish+consume commands.
type faultFlags struct {
	Verify      bool          `json:"verify,omitempty"`
	Faults      []string      `json:"faults,omitempty"`
	Execs       []string      `json:"fault_exec,omitempty"`
	ExecTimeout time.Duration `json:"fault_exec_timeout,omitempty"`
	plan        fault.Plan
	// waits and ackTimeout: the JetStream publishers' time waiting on acks that timed out.
	waits      *js.AckWaits
	ackTimeout time.Duration
}

// publisherWaits returns the registry a fault run's JetStream publishers record their
// timed-out ack waits in; nil without faults.
func (f *faultFlags) publisherWaits(ackTimeout time.Duration) *js.AckWaits {
	if !f.any() {
		return nil
	}
	f.waits, f.ackTimeout = js.NewAckWaits(), ackTimeout
	return f.waits
}

// publisherOutages splits each publisher's longest time without acks that spans a fault.
func (f *faultFlags) publisherOutages(res *result.Result, events []result.FaultEvent) []result.PublisherOutage {
	if f.waits == nil {
		return nil
	}
	var out []result.PublisherOutage
	for _, g := range res.Groups {
		if g.Name != "pub" {
			continue
		}
		for _, c := range g.Clients {
			if c.Gap == nil || c.Gap.Duration <= 0 {
				continue
			}
			spec := ""
			for _, ev := range events {
				// The last fault before the publisher had acks again (a pause or a kill lasts
				// beyond its action).
				if !ev.Skipped && ev.Error == "" && ev.Started <= c.Gap.To {
					spec = ev.Spec
				}
			}
			if spec == "" {
				continue // before any fault
			}
			out = append(out, result.PublisherOutage{
				Group: g.Name, Client: c.ID, Fault: spec, LastAckBefore: c.Gap.From, FirstAckAfter: c.Gap.To,
				WithoutAcks: c.Gap.Duration, TimedOutWait: f.waits.Within(c.ID, c.Gap.From, c.Gap.To), AckTimeout: f.ackTimeout,
			})
		}
	}
	return out
}

func (f *faultFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.Verify, "verify", false, "check delivery: per publisher what was sent, acknowledged, stored and delivered (JetStream: the stream is read back after the run)")
	fs.StringArrayVar(&f.Faults, "fault", nil, "inject a fault at a time of the run, repeatable: AT:kill-leader, AT:kill:N, AT:restart[:N], AT:pause:D[:N], AT:stepdown (e.g. 4s:kill-leader)")
	fs.StringArrayVar(&f.Execs, "fault-exec", nil, "run a command (sh -c) at a time of the run, repeatable: AT:COMMAND (e.g. 5s:'kubectl delete pod nats-1')")
	fs.DurationVar(&f.ExecTimeout, "fault-exec-timeout", fault.DefaultExecTimeout, "how long a --fault-exec command may run before it is killed")
}

// any reports whether the run has faults.
func (f *faultFlags) any() bool { return len(f.plan) > 0 }

// parse reads the specs and checks them against the target the run will have: the embedded
// server (nodes nodes) unless a server is given. Usage errors.
func (f *faultFlags) parse(a *app, stream bool, nodes int) error {
	p, err := fault.ParseAll(f.Faults, f.Execs)
	if err != nil {
		return usageError{err}
	}
	if f.ExecTimeout <= 0 {
		return usagef("--fault-exec-timeout must be positive")
	}
	if len(p) > 0 {
		if _, specified, err := connect.Resolve(a.conn.s, a.streams.Env); err == nil && specified {
			nodes = 0
		}
		if err := p.Validate(nodes, stream, true); err != nil {
			return usageError{err}
		}
	}
	f.plan = p
	return nil
}

// faultInterval is the series' width in a fault run unless --interval is given: the phases
// around a fault are cut at interval edges.
const faultInterval = 250 * time.Millisecond

// adjust narrows the series of a fault run so the phases are precise.
func (f *faultFlags) adjust(bf *benchFlags, fs *pflag.FlagSet) {
	if f.any() && !fs.Changed("interval") {
		bf.Interval = faultInterval
	}
}

// embeddedOptions is the embedded cluster a fault run needs: 3 nodes when it kills, restarts
// or pauses (so an R1 stream's node can die while the cluster answers), pausable for pauses.
func (f *faultFlags) embeddedOptions() embedded.Options {
	var eo embedded.Options
	if f.plan.NeedsCluster() {
		eo.Nodes = 3
	}
	eo.Pausable = f.plan.Has(fault.Pause)
	return eo
}

// faultNodes is the cluster size embeddedOptions gives for replicas.
func (f *faultFlags) faultNodes(replicas int) int {
	n := max(f.embeddedOptions().Nodes, 1)
	if replicas > 1 {
		n = max(n, 3, replicas)
	}
	return n
}

// streamRef is the stream a JetStream fault run acts on and reads back.
type streamRef struct {
	nc   *nats.Conn
	js   jetstream.JetStream
	name string
}

// leader returns the stream leader's server name.
func (s *streamRef) leader(ctx context.Context) (string, error) {
	st, err := s.js.Stream(ctx, s.name)
	if err != nil {
		return "", err
	}
	if c := st.CachedInfo().Cluster; c != nil {
		return c.Leader, nil
	}
	return "", nil
}

// stepdown asks the stream leader to step down through the JetStream API.
func (s *streamRef) stepdown(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	msg, err := s.nc.RequestWithContext(ctx, "$JS.API.STREAM.LEADER.STEPDOWN."+s.name, nil)
	if err != nil {
		return fmt.Errorf("stream leader stepdown: %w", err)
	}
	var resp struct {
		Success bool `json:"success"`
		Error   *struct {
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg.Data, &resp); err != nil {
		return fmt.Errorf("stream leader stepdown: %w", err)
	}
	if resp.Error != nil {
		return fmt.Errorf("stream leader stepdown: %s", resp.Error.Description)
	}
	if !resp.Success {
		return errors.New("stream leader stepdown: not done")
	}
	return nil
}

// attachFaults runs the fault timeline alongside plan's clients and adds it, with the
// unavailability window, to the Result.
func (f *faultFlags) attachFaults(plan *bench.Plan, t *target, s *streamRef, logf func(string, ...any)) {
	if !f.any() {
		return
	}
	env := fault.Env{ExecTimeout: f.ExecTimeout, Logf: logf}
	if t.Embedded != nil {
		env.Cluster = t.Embedded
	}
	if s != nil {
		env.Leader, env.Stepdown = s.leader, s.stepdown
	}
	tl := fault.NewTimeline(f.plan, env)
	plan.During = func(ctx context.Context, start time.Time) []result.Window {
		tl.Run(ctx, start)
		<-ctx.Done() // the clients are done: the last phase ends now
		return fault.Phases(tl.Events(), time.Since(start))
	}
	chain(plan, func(_ context.Context, res *result.Result) {
		res.Faults = &result.Faults{Timeline: tl.Events(), Unavailable: unavailable(res)}
		res.Faults.Publishers = f.publisherOutages(res, res.Faults.Timeline)
		for _, g := range res.Groups {
			one := *res
			one.Groups = []result.Group{g}
			if u := unavailable(&one); u.Duration > 0 {
				res.Faults.ByGroup = append(res.Faults.ByGroup, u)
			}
		}
	})
}

// chain adds f to what the plan does after the run.
func chain(plan *bench.Plan, f func(context.Context, *result.Result)) {
	prev := plan.After
	plan.After = func(ctx context.Context, res *result.Result) {
		if prev != nil {
			prev(ctx, res)
		}
		f(ctx, res)
	}
}

// unavailable is the longest time any client went without a successful operation: the
// largest gap between two of its messages or acks, or, for a client that did not finish its
// share, from its last one to the last success of any client (a consumer cut off while the
// publishers went on; not the idle wait for messages whose publish failed).
func unavailable(res *result.Result) result.Gap {
	var worst result.Gap
	var last time.Time
	for _, g := range res.Groups {
		for _, c := range g.Clients {
			if c.End.After(last) {
				last = c.End
			}
		}
	}
	runEnd := last.Sub(res.Start)
	for _, g := range res.Groups {
		for _, c := range g.Clients {
			if c.Gap != nil && c.Gap.Duration > worst.Duration {
				worst = *c.Gap
				worst.Group, worst.Client = g.Name, c.ID
			}
			if c.Expected > 0 && c.Msgs < c.Expected && !c.End.IsZero() {
				from := c.End.Sub(res.Start)
				if d := runEnd - from; d > worst.Duration {
					worst = result.Gap{Duration: d, From: from, To: runEnd, Group: g.Name, Client: c.ID}
				}
			}
		}
	}
	return worst
}

// runCoreFaults is runCore for a run that may carry --verify and faults: the embedded target
// is a cluster when a fault acts on nodes.
func (a *app) runCoreFaults(cmd *cobra.Command, plan *bench.Plan, bf benchFlags, ff *faultFlags) error {
	if !ff.any() && !ff.Verify {
		return a.runCore(cmd, plan, bf)
	}
	eo := ff.embeddedOptions()
	eo.Nodes = max(eo.Nodes, 1)
	t, err := a.openTargetWith(runCtx(cmd), eo)
	if err != nil {
		return err
	}
	defer t.Close()
	if bf.Rate > 0 {
		for _, g := range plan.Groups {
			if g.Producer {
				g.Rate = bf.Rate
			}
		}
	}
	ff.attachFaults(plan, t, nil, a.logf())
	attachCoreVerify(plan, ff)
	return a.execute(cmd, t, plan, bf, runHooks{})
}
