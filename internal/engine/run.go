package engine

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/fault"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// Options are how a run reports and where it reads its environment; none of them changes what
// is measured.
type Options struct {
	// Env is where NATS_URL and nats contexts are read from when the spec names no server.
	Env connect.Env
	// Warn receives one-line notices (embedded server started, retries); nil: discarded.
	Warn io.Writer
	// Logf prints the start lines; nil prints nothing.
	Logf func(format string, args ...any)
	// Progress shows live progress; nil shows nothing.
	Progress harness.Progress
	// Target, when set, is used instead of resolving the spec's (a scenario's shared target).
	Target *Target
	// Hist is echoed in the Result's settings (the command line's --hist file).
	Hist string
	// Title and Settings label the run (runner.Options'): Title replaces its title on the
	// start line ("natsperf run NAME" for several workloads), Settings' entries join the
	// Result's settings.
	Title    string
	Settings map[string]any
	// Series, when set, receives every client's intervals as they close (harness.Runner.Series).
	Series chan<- record.Slice
	// Part, when set, runs only this process's share of the spec (a distributed run's agent):
	// see SplitGroup and the instance rule in docs/agent-protocol.md.
	Part *Part
	// IDBase, when not 0, is the first publisher id block (Build.NewIDs): every process of a
	// distributed run gives the same base, so their publishers' ids never clash.
	IDBase uint32
	// ClockOffsets, with Part and IDBase, are each part's clock minus a common reference (the
	// coordinator's), indexed by part: receivers correct the latency of messages from another
	// part's publishers by the difference (see partClocks).
	ClockOffsets []int64
}

// Part is share Index (0-based) of Count of a run spread over processes.
type Part struct{ Index, Count int }

// Execution is a prepared run: its target is open and every client is connected and set up, held
// at the start barrier until Start.
type Execution struct {
	Spec   *spec.Spec
	Target *Target
	Plan   *harness.Plan
	// Interval and Warmup are the runner's settings as resolved from the spec.
	Interval, Warmup time.Duration
	// Text is the kind's own text report (latency's), nil for nats bench's form.
	Text      func(w io.Writer, res *result.Result) error
	quiet     bool
	skew      func(publisher uint32) int64
	clock     *storedClock
	ownTarget bool
	prepared  *harness.Prepared
	closers   []func()
	precision time.Duration // the run's pacing precision (resolvePrecision)
}

// CommonSettings is what a Result carries of the run's common settings, named as the command
// line's flags are (internal/cmdline owns the flags; the engine knows none).
type CommonSettings struct {
	Clients     int              `json:"clients"`
	Msgs        int64            `json:"msgs"`
	Size        int64            `json:"size"`
	Sleep       time.Duration    `json:"sleep"`
	Rate        float64          `json:"rate,omitempty"`
	Shape       pace.Shape       `json:"shape,omitzero"` // ramp, steps, Poisson arrivals and their seed
	Duration    time.Duration    `json:"duration,omitempty"`
	Warmup      time.Duration    `json:"warmup,omitempty"`
	IdleTimeout time.Duration    `json:"idle_timeout,omitempty"`
	Interval    time.Duration    `json:"interval"`
	NoLatency   bool             `json:"no_latency,omitempty"`
	Hist        string           `json:"hist,omitempty"`
	SLO         []spec.Threshold `json:"slo,omitempty"`
	// ServerMetrics are the monitoring endpoints sampled for telemetry; NoServerMetrics
	// turned telemetry off.
	ServerMetrics   []string `json:"server_metrics,omitempty"`
	NoServerMetrics bool     `json:"no_server_metrics,omitempty"`
}

// settingsEcho is what a Result carries of the run's settings; it holds no secrets.
type settingsEcho struct {
	Connection connect.Settings `json:"connection"`
	Embedded   bool             `json:"embedded,omitempty"`
	Bench      CommonSettings   `json:"bench"`
	Workload   any              `json:"workload"`
}

// Prepare checks s, opens its target (unless o.Target is given), builds its workloads through
// the registry and connects and sets up every client. Bad input is an InputError. The Run
// must be started (Start, then Wait) or closed.
func Prepare(ctx context.Context, s *spec.Spec, o Options) (*Execution, error) {
	for _, w := range s.Workloads { // this engine is nats.go's: rust runs in natsperf-rust agents
		if w.Client == "rust" {
			return nil, InputError{fmt.Errorf("%s with client rust runs through natsperf-rust agents (natsperf --client rust), not in this engine", w.Kind())}
		}
	}
	r, err := assemble(ctx, s, o)
	if err != nil {
		return nil, err
	}
	runner := &harness.Runner{
		Dial: r.Target.Dialer(), JS: r.Target.Settings.JS, Grace: r.Target.Grace(), Interval: r.Interval, Warmup: r.Warmup,
		Logf: o.Logf, Progress: o.Progress, Series: o.Series, Skew: r.skew,
		StoredClock: &r.clock.offset, PacePrecision: r.precision,
	}
	if r.quiet {
		runner.Logf = nil
	}
	r.prepared, err = runner.Prepare(ctx, r.Plan)
	if err != nil {
		r.Close()
		return nil, err
	}
	return r, nil
}

// assemble is Prepare up to the harness.Plan: the target is open, the setup made and the
// workloads built, but no client is connected. Close releases it.
func assemble(ctx context.Context, s *spec.Spec, o Options) (*Execution, error) {
	started := time.Now()
	if err := s.Validate(); err != nil {
		return nil, InputError{err}
	}
	s = s.Shaped()
	for _, w := range s.Workloads {
		if _, ok := builder(w.Kind()); !ok {
			return nil, InputError{fmt.Errorf("workload kind %q is not run by the engine yet (it runs %v)", w.Kind(), Kinds())}
		}
	}
	stream := false // a fault may act on a stream's leader
	for _, w := range s.Workloads {
		ps, _ := w.Config.(*spec.PubSub)
		stream = stream || strings.HasPrefix(w.Kind(), "js pub ") || w.Kind() == "kv put" || (ps != nil && ps.JS != nil)
	}
	fp, err := fault.ParseAll(s.Faults.Inject, s.Faults.Exec)
	if err != nil {
		return nil, InputError{err}
	}
	faults := &Faults{Plan: fp, ExecTimeout: durOr(s.Faults.ExecTimeout, fault.DefaultExecTimeout)}
	r := &Execution{Spec: s, Target: o.Target}
	if r.Target == nil {
		t, err := openSpecTarget(ctx, s, faults, o)
		if err != nil {
			return nil, err
		}
		r.Target, r.ownTarget = t, true
	}
	if err := CheckServerVersion(ctx, r.Target, s); err != nil {
		r.Close()
		return nil, err
	}
	if err := CheckPayload(ctx, r.Target, s); err != nil {
		r.Close()
		return nil, err
	}
	var setupWarnings []string
	if needsSetup(s) {
		w, teardown, err := setup(ctx, r.Target, s)
		r.closers = append(r.closers, teardown)
		if err != nil {
			r.Close()
			return nil, err
		}
		setupWarnings = w
	}
	if len(fp) > 0 {
		nodes := 0 // the user's servers: what they run is not known here
		nodes = r.Target.nodes()
		if err := fp.Validate(nodes, stream, true); err != nil {
			r.Close()
			return nil, InputError{err}
		}
	}
	interval := SeriesInterval(s)
	// Every workload instance is built on its own; a single unnamed one is the command it
	// stands for, several are joined into one plan whose groups are prefixed by instance
	// (pod1/pub, pod2/pub), all started at one barrier.
	single := len(s.Workloads) == 1 && s.Workloads[0].Instances <= 1 && s.Workloads[0].Name == ""
	plan := &harness.Plan{Command: "run", Title: "natsperf run " + s.Name, Latency: !s.NoLatency}
	if s.Name == "" {
		plan.Title = "natsperf run"
	}
	workloads := map[string]any{}
	var faultStream *StreamRef
	var streams []string                                 // every workload's, for the breakdown's clock
	var verifies []func(context.Context, *result.Result) // single workload: its read-back
	var parts []verifyPart                               // several: every instance's check
	numbered := map[string]int{}                         // instances so far per workload name
	block := 0                                           // publisher id block of the next instance, counted across every process's parts
	clocks := partClocks{base: o.IDBase}
	var paced []pacedGroup // this process's fixed-rate senders (resolvePrecision)
	for wi, w := range s.Workloads {
		build, _ := builder(w.Kind())
		for i := 1; i <= max(w.Instances, 1); i++ {
			b := &Build{Spec: s, Workload: w, Target: r.Target, Faults: faults, Logf: o.Logf, Hist: o.Hist, Started: started,
				idBase: o.IDBase, idBlock: block}
			block++
			byInstance, unit, units := Unit(s, wi, i-1)
			if o.Part != nil && byInstance && !o.Part.Has(units, unit) {
				clocks.blocks = append(clocks.blocks, idBlock{part: o.Part.Owner(units, unit)})
				numbered[w.Name]++ // named as one process would name it
				continue           // another process runs this instance whole
			}
			built, err := build(ctx, b)
			if err != nil {
				r.Close()
				return nil, err
			}
			if o.Part != nil {
				clocks.blocks = append(clocks.blocks, blockOf(built.Groups, byInstance, o.Part.Index))
			}
			if built.Close != nil {
				r.closers = append(r.closers, built.Close)
			}
			if w.Pacing.Rate > 0 {
				for _, g := range built.Groups {
					if g.Producer {
						g.Rate = offeredRate(w.Pacing) // the report says when it was not reached
					}
				}
			}
			if o.Part != nil && !byInstance {
				built.Groups = o.Part.Split(built.Groups)
			}
			if w.Pacing.Rate > 0 {
				for _, g := range built.Groups {
					if g.Producer {
						paced = append(paced, pacedGroupOf(g, w.Pacing))
					}
				}
			}
			echo := settingsEcho{
				Connection: r.Target.Settings.Redacted(), Embedded: r.Target.own(),
				Bench: benchOf(b, built, interval, o.Hist), Workload: built.Settings,
			}
			plan.Corrected = plan.Corrected || built.Corrected
			if built.After != nil {
				Chain(plan, built.After)
			}
			if faultStream == nil {
				faultStream = built.Stream
			}
			streams = append(streams, built.Streams...)
			if single {
				if built.Verify != nil {
					verifies = append(verifies, built.Verify)
				}
				r.Text, r.quiet = built.Text, built.Quiet
				plan.Command, plan.Title, plan.Params, plan.Groups, plan.Settings = w.Kind(), built.Title, Params(built.Params), built.Groups, echo
				continue
			}
			numbered[w.Name]++
			n := i
			if w.Name != "" {
				n = numbered[w.Name] // workloads of one name are numbered on: a scenario's instances
			}
			prefix := instancePrefix(w.Name, wi, n)
			for _, g := range built.Groups {
				g.Name = prefix + "/" + g.Name
				plan.Groups = append(plan.Groups, g)
			}
			workloads[prefix] = map[string]any{"command": w.Kind(), "settings": echo}
			parts = append(parts, verifyPart{prefix: prefix, check: built.Verify})
		}
	}
	if !single {
		plan.Params = Params(map[string]string{"instances": strconv.Itoa(len(workloads))})
		settings := map[string]any{"connection": r.Target.Settings.Redacted(), "embedded": r.Target.own(), "workloads": workloads}
		for k, v := range o.Settings {
			settings[k] = v
		}
		plan.Settings = settings
		// Instances that share a stream each report it: one state, their publishes added up.
		Chain(plan, func(_ context.Context, res *result.Result) { res.Streams = mergeStreams(res.Streams) })
	}
	if single && len(o.Settings) > 0 { // a run of several workloads has them above
		plan.Settings = labelled(plan.Settings, o.Settings)
	}
	if o.Title != "" {
		plan.Title = o.Title
	}
	if len(setupWarnings) > 0 {
		Chain(plan, func(_ context.Context, res *result.Result) { res.Warnings = append(res.Warnings, setupWarnings...) })
	}
	faults.Attach(plan, r.Target, faultStream, o.Logf)
	r.clock = newStoredClock(r.Target, o.Part != nil)
	if src := TelemetrySource(s, r.Target); src != nil && o.Part == nil { // an agent's part: its coordinator samples
		r.closers = append(r.closers, attachTelemetry(ctx, plan, src, r.Target, interval, r.clock, streams))
	}
	Chain(plan, func(_ context.Context, res *result.Result) { r.clock.mark(res) })
	switch {
	case !s.Verify:
	case !single:
		Chain(plan, verifyParts(parts))
	case len(verifies) > 0:
		for _, v := range verifies {
			Chain(plan, v)
		}
	default:
		AttachCoreVerify(plan)
	}
	r.Plan, r.Interval, r.Warmup = plan, interval, s.Warmup.D()
	r.precision = resolvePrecision(s, paced)
	if o.Part != nil && o.IDBase != 0 && len(o.ClockOffsets) == o.Part.Count {
		clocks.part, clocks.offsets = *o.Part, o.ClockOffsets
		r.skew = clocks.skew
	}
	return r, nil
}

// instancePrefix names instance i (1-based) of workload wi: spec.InstanceName, w1-1 for an
// unnamed workload.
func instancePrefix(name string, wi, i int) string {
	if name == "" {
		name = fmt.Sprintf("w%d-", wi+1)
	}
	return spec.InstanceName(name, i)
}

// benchOf is the Result's echo of a workload's common settings, named as the flags are.
func benchOf(b *Build, built *Built, interval time.Duration, hist string) CommonSettings {
	w, s := b.Workload, b.Spec
	echo := CommonSettings{
		Clients: b.Clients(), Msgs: max(built.Msgs, b.Msgs()), Size: built.Size, Sleep: w.Pacing.Sleep.D(), Rate: w.Pacing.Rate, Shape: shapeOf(w.Pacing),
		Duration: w.Pacing.Duration.D(), Warmup: s.Warmup.D(), Interval: interval, NoLatency: s.NoLatency, Hist: hist,
		ServerMetrics: s.Target.Monitor, NoServerMetrics: s.NoServerMetrics,
	}
	if built.Receivers {
		echo.IdleTimeout = DefaultIdleTimeout
		if it := idleTimeout(w.Config); it > 0 {
			echo.IdleTimeout = it
		}
	}
	return echo
}

// OpenSpecTarget opens s's target as Prepare would, for a caller that runs several Specs on
// one target (Options.Target): a scenario's cells. Close it when done.
func OpenSpecTarget(ctx context.Context, s *spec.Spec, o Options) (*Target, error) {
	fp, err := fault.ParseAll(s.Faults.Inject, s.Faults.Exec)
	if err != nil {
		return nil, InputError{err}
	}
	return openSpecTarget(ctx, s, &Faults{Plan: fp}, o)
}

// openSpecTarget opens the spec's target: its servers, else (unless it asks for an embedded
// server) NATS_URL or the nats context, else an embedded server or cluster sized for the
// faults.
func openSpecTarget(ctx context.Context, s *spec.Spec, f *Faults, o Options) (*Target, error) {
	eo := embedded.Options{Nodes: 1, Pausable: f.Plan.Has(fault.Pause), PowerFail: f.Plan.NeedsPower()}
	if f.Plan.NeedsCluster() {
		eo.Nodes = 3
	}
	// a replicated stream or bucket needs a cluster of its size
	if replicas := SetupReplicas(s); replicas > 1 {
		eo.Nodes = max(eo.Nodes, 3, replicas)
	}
	if e := s.Target.Embedded; e != nil && e.Nodes > 0 {
		eo.Nodes = e.Nodes
	}
	if e := s.Target.Embedded; e != nil {
		eo.Encryption, eo.EncryptionKey = e.Encryption, embedded.KeyFromEnv(o.Env.Getenv, e.Encryption)
		eo.Sync = e.SyncInterval
	}
	if e := s.Target.Embedded; e != nil {
		eo.Leafnodes, eo.Gateways = e.Leafnodes, e.Gateways
	}
	if eo.Gateways > 0 && (eo.Pausable || eo.PowerFail || f.Plan.Has(fault.Corrupt)) {
		return nil, InputError{errors.New("pause, power-fail and corrupt faults are not on a supercluster (its gateways have no proxies): drop --gateways or the fault")}
	}
	if err := withNetwork(&eo, s.Target.Embedded, f.Plan); err != nil {
		return nil, err
	}
	if s.Target.Embedded.Processes() && (eo.Network != nil || eo.Leafnodes > 0 || eo.Gateways > 0) {
		return nil, InputError{errors.New("links, zones, link faults, leaf nodes and gateways are not yet on nats-server processes (--server-bin, --server-version): use the in-process server")}
	}
	return OpenTarget(ctx, Settings(s.Target), TargetOptions{
		Env: o.Env, Embedded: eo, Processes: s.Target.Embedded, Warn: o.Warn, ForceEmbedded: s.Target.Embedded != nil,
	})
}

// SetupReplicas is the most replicas a stream or bucket of s's setup asks for (1 at least): an
// embedded target is sized for it.
func SetupReplicas(s *spec.Spec) int {
	replicas := 1
	for _, it := range s.Setup.Items() {
		replicas = max(replicas, it.Replicated())
	}
	return replicas
}

// idleTimeout is a receiver kind's own idle timeout (0: the default).
func idleTimeout(c spec.Config) time.Duration {
	switch c := c.(type) {
	case *spec.Sub:
		return c.IdleTimeout.D()
	case *spec.PubSub:
		return c.IdleTimeout.D()
	}
	if _, rc, _, _ := consumerOf(c); rc != nil {
		return rc.IdleTimeout.D()
	}
	return 0
}

// Start releases every client at at (at once when at is zero or past) and returns at once.
// It needs a Run from Prepare.
func (r *Execution) Start(at time.Time) {
	if r.prepared != nil {
		r.prepared.Start(at)
	}
}

// Wait waits for the run to end and returns its Result (Stop says how it ended), then closes
// what the run opened. It returns nil when the run was never started.
func (r *Execution) Wait() *result.Result {
	var res *result.Result
	if r.prepared != nil {
		res = r.prepared.Wait()
	}
	if res != nil {
		r.Target.describeServers(res)
	}
	if res != nil {
		Conclude(r.Spec, res)
	}
	r.Close()
	return res
}

// Close releases a run that will not start (or has ended): its clients, what its kinds
// opened, and its target unless it was given.
func (r *Execution) Close() {
	if r.prepared != nil {
		r.prepared.Abort()
	}
	for _, c := range r.closers {
		c()
	}
	r.closers = nil
	if r.ownTarget && r.Target != nil {
		r.Target.Close()
		r.ownTarget = false
	}
}

// Execute prepares s, starts it at once and waits for its Result.
func Execute(ctx context.Context, s *spec.Spec, o Options) (*result.Result, error) {
	r, err := Prepare(ctx, s, o)
	if err != nil {
		return nil, err
	}
	r.Start(time.Time{})
	return r.Wait(), nil
}

// verifyPart is one workload instance's delivery check: its read-back, or (nil) what its
// receivers saw.
type verifyPart struct {
	prefix string
	check  func(context.Context, *result.Result)
}

// verifyParts runs every instance's check on a Result of its own groups and adds them up:
// each reads back only its own publishers' messages, and each instance's receivers count
// once.
func verifyParts(parts []verifyPart) func(context.Context, *result.Result) {
	return func(ctx context.Context, res *result.Result) {
		v := &result.Verify{}
		for _, p := range parts {
			part := *res
			part.Groups, part.Verify = nil, nil
			for _, g := range res.Groups {
				if strings.HasPrefix(g.Name, p.prefix+"/") {
					part.Groups = append(part.Groups, g)
				}
			}
			if p.check == nil {
				rv := ReceiversVerify(&part)
				part.Verify = &rv
			} else {
				p.check(ctx, &part)
			}
			if part.Verify != nil {
				v.Add(part.Verify, p.prefix)
			}
		}
		v.Unavailable = Unavailable(res).Duration
		res.Verify = v
	}
}
