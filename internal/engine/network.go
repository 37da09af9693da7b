package engine

import (
	"errors"
	"fmt"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/fault"
	"github.com/natsperf/natsperf/internal/link"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// withNetwork puts eo's routes behind links when e or a link fault asks for them: zones need a
// node each, route conditions a cluster. Usage errors.
func withNetwork(eo *embedded.Options, e *spec.Embedded, plan fault.Plan) error {
	nw := link.FromSpec(e)
	if nw == nil && plan.NeedsLinks() {
		nw = &link.Network{} // links without conditions, for the faults to cut
	}
	if nw == nil {
		return nil
	}
	if nw.Zones > 1 {
		eo.Nodes = max(eo.Nodes, nw.Zones)
	}
	if (plan.NeedsLinks() || (e.RouteLinks() && eo.Leafnodes == 0 && eo.Gateways == 0)) && eo.Nodes < 2 {
		return InputError{errors.New("link delays, zones and link faults act on the routes between nodes, and this run has one node: give --replicas 3 (or target.embedded.nodes)")}
	}
	if err := nw.Check(eo.Nodes); err != nil {
		return InputError{fmt.Errorf("network: %w", err)}
	}
	eo.Network = nw
	return nil
}

// networkOf is the Result's record of a cluster's network.
func networkOf(c *embedded.Cluster) *result.Network {
	rn := &result.Network{Topology: "single", Nodes: c.Size()}
	if c.Size() > 1 {
		rn.Topology = "cluster"
	}
	if rn.Leafnodes = c.Leafnodes(); rn.Leafnodes > 0 {
		rn.Topology = "leafnodes"
	}
	if rn.Clusters = c.Gateways(); rn.Clusters > 0 {
		rn.Topology = "supercluster"
	}
	nw := c.Network()
	if nw == nil {
		return rn
	}
	rn.Links = true
	rn.RouteDelay, rn.RouteJitter, rn.RouteBandwidth = nw.Route.Delay, nw.Route.Jitter, nw.Route.Bandwidth
	if nw.Zones > 1 {
		rn.Zones, rn.ZoneDelay = nw.Zones, nw.ZoneDelay.Delay
	}
	rn.ClientDelay, rn.ClientJitter = nw.Client.Delay, nw.Client.Jitter
	rn.GatewayDelay = nw.Gateway.Delay
	return rn
}
