package link

import (
	"fmt"
	"strings"
)

// Network is the link conditions of a cluster natsperf runs: every route between two nodes
// and every connection between a client and a server goes through its own link.
type Network struct {
	Route Conditions // every route
	// Zones spreads the nodes over zones, node i in zone (i-1)%Zones+1; routes between two
	// zones add ZoneDelay to Route. 0 or 1: one zone.
	Zones     int
	ZoneDelay Conditions
	Client    Conditions // between natsperf's clients and the servers
	// Gateway is added to Route on the gateways between the clusters of a supercluster.
	Gateway Conditions
}

// Zone is node i's zone (1-based; 1 without zones).
func (n Network) Zone(node int) int {
	if n.Zones < 2 {
		return 1
	}
	return (node-1)%n.Zones + 1
}

// Between is the conditions of the routes between nodes i and j.
func (n Network) Between(i, j int) Conditions {
	if n.Zone(i) != n.Zone(j) {
		return n.Route.Plus(n.ZoneDelay)
	}
	return n.Route
}

// Check refuses a network a cluster of nodes cannot have.
func (n Network) Check(nodes int) error {
	for _, c := range []struct {
		what string
		c    Conditions
	}{{"route", n.Route}, {"zone", n.ZoneDelay}, {"client", n.Client}, {"gateway", n.Gateway}} {
		if err := c.c.Check(); err != nil {
			return fmt.Errorf("%s links: %w", c.what, err)
		}
	}
	switch {
	case n.Zones < 0:
		return fmt.Errorf("zones must not be negative, got %d", n.Zones)
	case n.Zones > 1 && n.Zones > nodes:
		return fmt.Errorf("%d zones need at least %d nodes, the cluster has %d", n.Zones, n.Zones, nodes)
	case n.Zones < 2 && !n.ZoneDelay.Zero():
		return fmt.Errorf("a zone delay needs 2 or more zones")
	}
	return nil
}

// String describes n in a line, e.g. "routes 1ms, 3 zones +2ms, clients 5ms".
func (n Network) String() string {
	var parts []string
	if !n.Route.Zero() {
		parts = append(parts, "routes "+n.Route.String())
	}
	if n.Zones > 1 {
		parts = append(parts, fmt.Sprintf("%d zones +%s", n.Zones, n.ZoneDelay))
	}
	if !n.Gateway.Zero() {
		parts = append(parts, "gateways +"+n.Gateway.String())
	}
	if !n.Client.Zero() {
		parts = append(parts, "clients "+n.Client.String())
	}
	if len(parts) == 0 {
		return "links without conditions"
	}
	return strings.Join(parts, ", ")
}
