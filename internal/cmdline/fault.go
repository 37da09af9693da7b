package cmdline

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/fault"
)

// faultFlags are --verify, --fault and --fault-exec of the publish+consume commands.
type faultFlags struct {
	Verify      bool          `json:"verify,omitempty"`
	Faults      []string      `json:"faults,omitempty"`
	Execs       []string      `json:"fault_exec,omitempty"`
	ExecTimeout time.Duration `json:"fault_exec_timeout,omitempty"`
	plan        fault.Plan
}

func (f *faultFlags) register(fs *pflag.FlagSet) {
	fs.BoolVar(&f.Verify, "verify", false, "check delivery: per publisher what was sent, acknowledged, stored and delivered (JetStream: the stream is read back after the run)")
	f.registerFaults(fs)
}

// registerFaults registers --fault and --fault-exec alone (kv put: a bucket keeps only each
// key's last values, so there is nothing to read back for --verify).
func (f *faultFlags) registerFaults(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.Faults, "fault", nil, "inject a fault at a time of the run, repeatable: AT:kill-leader, AT:kill:N, AT:restart[:N], AT:pause:D[:N], AT:stepdown, AT:partition[:N|:zN], AT:heal, AT:delay:N:D (links: docs/network.md), AT:power-fail:all|leader|minority|N (drops unsynced writes; needs FUSE), AT:corrupt:N (a down node) (e.g. 4s:kill-leader)")
	fs.StringArrayVar(&f.Execs, "fault-exec", nil, "run a command (sh -c) at a time of the run, repeatable: AT:COMMAND (e.g. 5s:'kubectl delete pod nats-1')")
	fs.DurationVar(&f.ExecTimeout, "fault-exec-timeout", fault.DefaultExecTimeout, "how long a --fault-exec command may run before it is killed")
}

// parse reads the specs and checks them against the target the run will have: the embedded
// server (nodes nodes) unless a server is given. Usage errors.
func (f *faultFlags) parse(in *input, stream bool, nodes int) error {
	p, err := fault.ParseAll(f.Faults, f.Execs)
	if err != nil {
		return usageError{err}
	}
	if f.ExecTimeout <= 0 {
		return usagef("--fault-exec-timeout must be positive")
	}
	if len(p) > 0 {
		if in.conn.Servers.Cluster > 0 {
			nodes = in.conn.Servers.Cluster
		}
		if _, specified, err := connect.Resolve(in.conn.Settings, in.env); err == nil && specified {
			nodes = 0
		}
		if err := p.Validate(nodes, stream, true); err != nil {
			return usageError{err}
		}
	}
	f.plan = p
	return nil
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
