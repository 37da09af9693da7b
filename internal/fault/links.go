package fault

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// Links is what link faults need of a cluster besides Cluster; a cluster without links
// (embedded.Cluster started without a network) refuses them when they run.
type Links interface {
	Partition(nodes []int) error
	Heal() error
	SlowNode(i int, d time.Duration) error
	Zone(z int) []int // the nodes of zone z (1-based)
}

// parseLink reads the arguments of partition[:N|:zN], heal and delay:N:D.
func parseLink(a *Action, args []string) error {
	var err error
	switch a.Kind {
	case Heal:
		if len(args) != 0 {
			return errors.New("heal takes no argument")
		}
	case Partition:
		if len(args) > 1 {
			return errors.New("want AT:partition, AT:partition:NODE or AT:partition:zZONE (2s:partition:z1)")
		}
		if len(args) == 1 {
			if z, ok := strings.CutPrefix(args[0], "z"); ok {
				if a.Zone, err = strconv.Atoi(z); err != nil || a.Zone < 1 || a.Zone > 99 {
					return fmt.Errorf("zone %q must be z1 to z99", args[0])
				}
				return nil
			}
			a.Node, err = parseNode(args[0])
		}
	case Delay:
		if len(args) != 2 {
			return errors.New("want AT:delay:NODE:DURATION (2s:delay:3:20ms)")
		}
		if a.Node, err = parseNode(args[0]); err != nil {
			return err
		}
		a.For, err = time.ParseDuration(args[1])
		if err != nil || a.For <= 0 || a.For > time.Minute {
			return fmt.Errorf("delay %q must be a positive duration up to 1m such as 20ms", args[1])
		}
	}
	return err
}

// NeedsLinks reports whether any action acts on the links between nodes.
func (p Plan) NeedsLinks() bool {
	for _, a := range p {
		if a.NeedsLinks() {
			return true
		}
	}
	return false
}

// CheckZones refuses a partition of a zone the cluster does not have (zones: 0 or 1 for none).
func (p Plan) CheckZones(zones int) error {
	for _, a := range p {
		if a.Zone > 0 && (zones < 2 || a.Zone > zones) {
			return fmt.Errorf("fault %s: zone %d does not exist (--zones %d)", a, a.Zone, zones)
		}
	}
	return nil
}

// link performs a link fault: the nodes it acts on, what it did, and the stream leader to
// watch when the fault cut it off.
func (t *Timeline) link(ctx context.Context, a Action) (nodes, detail, watch string, err error) {
	l, ok := t.env.Cluster.(Links)
	if !ok || t.env.Cluster == nil {
		return "", "", "", errors.New("the cluster has no links to act on")
	}
	switch a.Kind {
	case Heal:
		return "", "every link as configured", "", l.Heal()
	case Delay:
		name := t.env.Cluster.ServerName(a.Node)
		return name, fmt.Sprintf("+%s one way on every route of %s", a.For, name), "", l.SlowNode(a.Node, a.For)
	}
	var cut []int
	switch {
	case a.Zone > 0:
		if cut = l.Zone(a.Zone); len(cut) == 0 {
			return "", "", "", fmt.Errorf("zone %d has no node", a.Zone)
		}
	case a.Node > 0:
		cut = []int{a.Node}
	default:
		node, name, err := t.leaderNode(ctx)
		if err != nil {
			return name, "", "", err
		}
		cut, watch = []int{node}, name
	}
	names := make([]string, len(cut))
	for i, n := range cut {
		names[i] = t.env.Cluster.ServerName(n)
	}
	if watch == "" && t.env.Leader != nil {
		if leader, err := t.env.Leader(ctx); err == nil && slices.Contains(names, leader) {
			watch = leader
		}
	}
	nodes = strings.Join(names, ",")
	return nodes, "cut off " + nodes + " from the other nodes, both ways", watch, l.Partition(cut)
}
