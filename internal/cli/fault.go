package cli

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/fault"
	"github.com/natsperf/natsperf/internal/js"
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
type streamRef = engine.StreamRef

// attachFaults runs the fault timeline alongside plan's clients (engine.Faults.Attach).
func (f *faultFlags) attachFaults(plan *bench.Plan, t *target, s *streamRef, logf func(string, ...any)) {
	ef := engine.Faults{Plan: f.plan, ExecTimeout: f.ExecTimeout, Waits: f.waits, AckTimeout: f.ackTimeout}
	ef.Attach(plan, t, s, logf)
}
