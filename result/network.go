package result

import (
	"fmt"
	"strings"
	"time"
)

// Network is the topology of the servers natsperf ran and the conditions of the links between
// them and to its clients (docs/network.md). Absent for servers natsperf did not start.
type Network struct {
	Topology string `json:"topology"` // single, cluster, leafnodes (a hub of nodes with leaf nodes) or supercluster
	// Nodes is the number of servers natsperf ran (a supercluster's all; the hub's for leafnodes).
	Nodes int `json:"nodes"`
	// Leafnodes is the number of leaf nodes around the hub; their clients connected to them,
	// their leaf connections through links with the route conditions.
	Leafnodes int `json:"leafnodes,omitempty"`
	// Clusters is the number of clusters of a supercluster (Nodes counts them all), joined by
	// gateways; the clients connected to the first.
	Clusters int `json:"clusters,omitempty"`
	// Links is true when the routes (and, with a client delay, the clients) went through
	// natsperf's links; the figures below are one way, each direction.
	Links bool `json:"links,omitempty"`
	// RouteDelay is the delay added to each route, one way (0: none).
	RouteDelay time.Duration `json:"route_delay_ns,omitempty"`
	// RouteJitter is the jitter added around RouteDelay (0: none).
	RouteJitter    time.Duration `json:"route_jitter_ns,omitempty"`
	RouteBandwidth int64         `json:"route_bandwidth,omitempty"` // bytes/s
	// Zones is the number of zones the nodes were spread over (0 or 1: one).
	Zones     int           `json:"zones,omitempty"`
	ZoneDelay time.Duration `json:"zone_delay_ns,omitempty"` // added between zones
	// ClientDelay is the delay added between the clients and their server, one way (0: none).
	ClientDelay time.Duration `json:"client_delay_ns,omitempty"`
	// ClientJitter is the jitter added around ClientDelay (0: none).
	ClientJitter time.Duration `json:"client_jitter_ns,omitempty"`
	GatewayDelay time.Duration `json:"gateway_delay_ns,omitempty"` // added to the route conditions on the gateways
}

// Conditions words what the links did, "" when they did nothing (or there were none): two
// runs whose conditions differ measured different networks.
func (n *Network) Conditions() string {
	if n == nil {
		return ""
	}
	var parts []string
	if n.Leafnodes > 0 { // clients on leaves cross a leaf connection: another network
		parts = append(parts, fmt.Sprintf("%d leaf nodes", n.Leafnodes))
	}
	if n.Clusters > 0 { // a client's cluster holds its streams, others are a gateway away
		parts = append(parts, fmt.Sprintf("%d clusters", n.Clusters))
	}
	if n.GatewayDelay > 0 {
		parts = append(parts, "gateways +"+n.GatewayDelay.String())
	}
	if n.RouteDelay > 0 || n.RouteJitter > 0 {
		parts = append(parts, "routes "+delay(n.RouteDelay, n.RouteJitter))
	}
	if n.RouteBandwidth > 0 {
		parts = append(parts, fmt.Sprintf("routes %d B/s", n.RouteBandwidth))
	}
	if n.Zones > 1 && n.ZoneDelay > 0 { // zones without a delay between them are one network
		parts = append(parts, fmt.Sprintf("%d zones +%s", n.Zones, n.ZoneDelay))
	}
	if n.ClientDelay > 0 || n.ClientJitter > 0 {
		parts = append(parts, "clients "+delay(n.ClientDelay, n.ClientJitter))
	}
	return strings.Join(parts, ", ")
}

func delay(d, jitter time.Duration) string {
	if jitter > 0 {
		return d.String() + "±" + jitter.String()
	}
	return d.String()
}
