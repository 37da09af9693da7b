// Package fault parses fault specs ("4s:kill-leader", "5s:pause:2s") and runs them on a
// timeline alongside a benchmark, recording when each took effect and how long it took.
package fault

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/powerfs"
)

// Kinds of fault.
const (
	KillLeader = "kill-leader" // kill the node leading the stream
	Kill       = "kill"        // kill node N
	Restart    = "restart"     // bring killed nodes back (or node N)
	Pause      = "pause"       // stall a node (the stream leader's, or node N) for a while
	Stepdown   = "stepdown"    // ask the stream leader to step down (JetStream API)
	Exec       = "exec"        // run a user command
	Partition  = "partition"   // cut a node (the stream leader's, node N or zone zN) off the others' routes
	Heal       = "heal"        // end every partition and slow node
	Delay      = "delay"       // add a one-way delay to every route of node N
	PowerFail  = "power-fail"  // stop nodes at one instant and drop what they had not fsynced
	Corrupt    = "corrupt"     // flip a bit in a down node's newest message block
)

// Targets of a power failure besides a node number.
const (
	All      = "all"      // every node
	Leader   = "leader"   // the stream leader's node
	Minority = "minority" // the stream leader's node and the next ones, fewer than half
)

// MaxAt bounds a fault's time: anything later is a typo, not a plan.
const MaxAt = 24 * time.Hour

// Action is one fault at one moment of the run.
type Action struct {
	At   time.Duration `json:"at_ns"` // from the start of the run
	Kind string        `json:"kind"`
	Node int           `json:"node,omitempty"` // 1-based; 0: the stream leader's node (or all killed, for restart)
	For  time.Duration `json:"for_ns,omitempty"`
	Cmd  string        `json:"cmd,omitempty"`
	Zone int           `json:"zone,omitempty"` // partition: 1-based zone, instead of a node
	Who  string        `json:"who,omitempty"`  // power-fail: all, leader or minority (else Node)
}

// Parse reads a --fault spec: AT:kill-leader, AT:kill:N, AT:restart[:N], AT:pause:D[:N],
// AT:stepdown. AT and D are Go durations ("4s", "1.5s", "500ms").
func Parse(spec string) (Action, error) {
	parts := strings.Split(strings.TrimSpace(spec), ":")
	if len(parts) < 2 {
		return Action{}, fmt.Errorf("fault %q: want AT:ACTION, e.g. 4s:kill-leader", spec)
	}
	at, err := parseAt(parts[0])
	if err != nil {
		return Action{}, fmt.Errorf("fault %q: %w", spec, err)
	}
	a := Action{At: at, Kind: parts[1]}
	args := parts[2:]
	switch a.Kind {
	case KillLeader, Stepdown:
		if len(args) != 0 {
			return Action{}, fmt.Errorf("fault %q: %s takes no argument", spec, a.Kind)
		}
	case Kill:
		if len(args) != 1 {
			return Action{}, fmt.Errorf("fault %q: want AT:kill:NODE, e.g. 4s:kill:2", spec)
		}
		if a.Node, err = parseNode(args[0]); err != nil {
			return Action{}, fmt.Errorf("fault %q: %w", spec, err)
		}
	case Restart:
		if len(args) > 1 {
			return Action{}, fmt.Errorf("fault %q: want AT:restart or AT:restart:NODE", spec)
		}
		if len(args) == 1 {
			if a.Node, err = parseNode(args[0]); err != nil {
				return Action{}, fmt.Errorf("fault %q: %w", spec, err)
			}
		}
	case Pause:
		if len(args) < 1 || len(args) > 2 {
			return Action{}, fmt.Errorf("fault %q: want AT:pause:DURATION[:NODE], e.g. 5s:pause:2s", spec)
		}
		d, err := time.ParseDuration(args[0])
		if err != nil || d <= 0 || d > MaxAt {
			return Action{}, fmt.Errorf("fault %q: pause duration %q must be a positive duration such as 2s", spec, args[0])
		}
		a.For = d
		if len(args) == 2 {
			if a.Node, err = parseNode(args[1]); err != nil {
				return Action{}, fmt.Errorf("fault %q: %w", spec, err)
			}
		}
	case Partition, Heal, Delay:
		if err := parseLink(&a, args); err != nil {
			return Action{}, fmt.Errorf("fault %q: %w", spec, err)
		}
	case PowerFail:
		if len(args) != 1 {
			return Action{}, fmt.Errorf("fault %q: want AT:power-fail:all|leader|minority|NODE, e.g. 4s:power-fail:all", spec)
		}
		switch args[0] {
		case All, Leader, Minority:
			a.Who = args[0]
		default:
			if a.Node, err = parseNode(args[0]); err != nil {
				return Action{}, fmt.Errorf("fault %q: %w, or all, leader or minority", spec, err)
			}
		}
	case Corrupt:
		if len(args) != 1 {
			return Action{}, fmt.Errorf("fault %q: want AT:corrupt:NODE (a node that is down), e.g. 4s:corrupt:2", spec)
		}
		if a.Node, err = parseNode(args[0]); err != nil {
			return Action{}, fmt.Errorf("fault %q: %w", spec, err)
		}
	default:
		return Action{}, fmt.Errorf("fault %q: unknown action %q (kill-leader, kill:N, restart, pause:D, stepdown, partition[:N|:zN], heal, delay:N:D, power-fail:all|leader|minority|N, corrupt:N)", spec, a.Kind)
	}
	return a, nil
}

// ParseExec reads a --fault-exec spec: AT:COMMAND, the command run with sh -c.
func ParseExec(spec string) (Action, error) {
	at, cmd, ok := strings.Cut(spec, ":")
	if !ok || strings.TrimSpace(cmd) == "" {
		return Action{}, fmt.Errorf("fault-exec %q: want AT:COMMAND, e.g. 5s:'kubectl delete pod nats-1'", spec)
	}
	d, err := parseAt(at)
	if err != nil {
		return Action{}, fmt.Errorf("fault-exec %q: %w", spec, err)
	}
	return Action{At: d, Kind: Exec, Cmd: cmd}, nil
}

func parseAt(s string) (time.Duration, error) {
	d, err := time.ParseDuration(strings.TrimSpace(s))
	if err != nil {
		return 0, fmt.Errorf("time %q is not a duration such as 4s or 1.5s", s)
	}
	if d < 0 || d > MaxAt {
		return 0, fmt.Errorf("time %q must be between 0 and %s", s, MaxAt)
	}
	return d, nil
}

func parseNode(s string) (int, error) {
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 || n > 99 {
		return 0, fmt.Errorf("node %q must be a number from 1", s)
	}
	return n, nil
}

// String is the spec that parses back to a.
func (a Action) String() string {
	at := a.At.String()
	switch a.Kind {
	case Kill:
		return fmt.Sprintf("%s:kill:%d", at, a.Node)
	case Restart:
		if a.Node > 0 {
			return fmt.Sprintf("%s:restart:%d", at, a.Node)
		}
	case Pause:
		if a.Node > 0 {
			return fmt.Sprintf("%s:pause:%s:%d", at, a.For, a.Node)
		}
		return fmt.Sprintf("%s:pause:%s", at, a.For)
	case Exec:
		return at + ":" + a.Cmd
	case Partition:
		if a.Zone > 0 {
			return fmt.Sprintf("%s:partition:z%d", at, a.Zone)
		}
		if a.Node > 0 {
			return fmt.Sprintf("%s:partition:%d", at, a.Node)
		}
	case Delay:
		return fmt.Sprintf("%s:delay:%d:%s", at, a.Node, a.For)
	case PowerFail:
		if a.Who != "" {
			return at + ":power-fail:" + a.Who
		}
		return fmt.Sprintf("%s:power-fail:%d", at, a.Node)
	case Corrupt:
		return fmt.Sprintf("%s:corrupt:%d", at, a.Node)
	}
	return at + ":" + a.Kind
}

// NeedsCluster reports whether the action acts on embedded nodes.
func (a Action) NeedsCluster() bool {
	switch a.Kind {
	case KillLeader, Kill, Restart, Pause, Partition, Heal, Delay, PowerFail, Corrupt:
		return true
	}
	return false
}

// NeedsLinks reports whether the action acts on the links between nodes.
func (a Action) NeedsLinks() bool {
	return a.Kind == Partition || a.Kind == Heal || a.Kind == Delay
}

// NeedsStream reports whether the action finds its target through the stream's leader.
func (a Action) NeedsStream() bool {
	return a.Kind == KillLeader || a.Kind == Stepdown || (a.Kind == Pause && a.Node == 0) ||
		(a.Kind == Partition && a.Node == 0 && a.Zone == 0) ||
		(a.Kind == PowerFail && (a.Who == Leader || a.Who == Minority))
}

// Plan is the actions of one run, in time order.
type Plan []Action

// ParseAll parses the --fault and --fault-exec values into a plan sorted by time (specs at the
// same time keep their order).
func ParseAll(faults, execs []string) (Plan, error) {
	var p Plan
	var errs []error
	for _, s := range faults {
		a, err := Parse(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p = append(p, a)
	}
	for _, s := range execs {
		a, err := ParseExec(s)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		p = append(p, a)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	sort.SliceStable(p, func(i, j int) bool { return p[i].At < p[j].At })
	return p, nil
}

// Validate checks the plan against what the run has: an embedded cluster of nodes nodes (0: an
// external server), a stream or not, and whether the cluster can pause nodes.
func (p Plan) Validate(nodes int, stream, pausable bool) error {
	for _, a := range p {
		switch {
		case a.NeedsCluster() && nodes == 0:
			return fmt.Errorf("fault %s needs the embedded server (no --server, NATS_URL or --context); against your own servers use stepdown or --fault-exec", a)
		case a.NeedsStream() && !stream:
			return fmt.Errorf("fault %s needs a JetStream stream (--js, or a js command)", a)
		case a.Node > nodes && a.NeedsCluster():
			return fmt.Errorf("fault %s: node %d does not exist (the embedded cluster has %d)", a, a.Node, nodes)
		case a.Kind == Pause && !pausable:
			return fmt.Errorf("fault %s: the embedded cluster was not started pausable", a)
		case a.Kind == PowerFail:
			if err := powerfs.Check(); err != nil {
				return fmt.Errorf("fault %s: %w", a, err)
			}
		}
	}
	return nil
}

// Has reports whether the plan holds an action of kind.
func (p Plan) Has(kind string) bool {
	for _, a := range p {
		if a.Kind == kind {
			return true
		}
	}
	return false
}

// NeedsPower reports whether the plan has a power failure: the nodes' stores go on powerfs.
func (p Plan) NeedsPower() bool { return p.Has(PowerFail) }

// NeedsCluster reports whether any action acts on embedded nodes.
func (p Plan) NeedsCluster() bool {
	for _, a := range p {
		if a.NeedsCluster() {
			return true
		}
	}
	return false
}
