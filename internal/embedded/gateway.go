package embedded

import (
	"fmt"
	"net/url"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/link"
)

// A supercluster (Options.Gateways M): M clusters of Options.Nodes nodes each, joined by
// gateways. Node i (1-based, over the whole supercluster) is in cluster (i-1)/Nodes+1, named
// natsperf-c1, natsperf-c2, ...; every node has routes to the nodes of its own cluster and a
// gateway port. The JetStream meta group spans the supercluster; a stream lives in the cluster
// of the client that created it, and natsperf's clients connect to the first cluster.
//
// With Options.Network, node i reaches node j of another cluster only through gateway link
// i→j (in links.route beside the routes, so partitions and slow nodes cut and slow gateways
// too), which forwards to j's gateway port. Each node's gateway list names its links to every
// node of the other clusters, and the gateway address every node advertises is the route sink:
// a gateway URL learnt from another server would otherwise lead around the links.

// GatewayClusterName is the name of cluster k (1-based) of a supercluster.
func GatewayClusterName(k int) string { return fmt.Sprintf("%s-c%d", ClusterName, k) }

// clusterName is the nats-server cluster (and gateway) name of node n.
func (c *Cluster) clusterName(n *node) string {
	if c.opts.Gateways == 0 {
		return ClusterName
	}
	return GatewayClusterName(c.clusterOf(n.Index))
}

// clusterOf is the cluster (1-based) of node i: 1 without gateways.
func (c *Cluster) clusterOf(i int) int { return (i-1)/c.opts.Nodes + 1 }

// sameCluster reports whether nodes i and j are in one cluster (joined by routes, not gateways).
func (c *Cluster) sameCluster(i, j int) bool { return c.clusterOf(i) == c.clusterOf(j) }

// between is the conditions of the link from node i to node j: a route's, or a gateway's (the
// route conditions and Network.Gateway added).
func (c *Cluster) between(i, j int) link.Conditions {
	nw := c.links.net
	if !c.sameCluster(i, j) {
		return nw.Route.Plus(nw.Gateway)
	}
	return nw.Between(i, j)
}

// Gateways is the number of clusters of a supercluster, 0 for a single cluster.
func (c *Cluster) Gateways() int { return c.opts.Gateways }

// ClusterOf is the cluster name of node i (1-based), "" when i is out of range.
func (c *Cluster) ClusterOf(i int) string {
	n, err := c.node(i)
	if err != nil {
		return ""
	}
	return c.clusterName(n)
}

// makeGatewayPorts gives every node of a supercluster its gateway port; call it while the
// other reservations are held (see holdPorts).
func (c *Cluster) makeGatewayPorts() (release func(), err error) {
	if c.opts.Gateways == 0 {
		return func() {}, nil
	}
	ports, release, err := c.holdNodePorts()
	if err != nil {
		return release, err
	}
	for i, n := range c.nodes {
		n.gatewayPort = ports[i]
	}
	return release, nil
}

// gatewayOptions are node n's gateway options: its cluster's name, its port, and every other
// cluster with the addresses (links, or the nodes' gateway ports) n reaches its nodes at.
func (c *Cluster) gatewayOptions(n *node) server.GatewayOpts {
	g := server.GatewayOpts{Name: c.clusterName(n), Host: defaultHost, Port: n.gatewayPort}
	if c.links != nil {
		g.Advertise = c.links.sink.Addr().String()
	}
	for k := 1; k <= c.opts.Gateways; k++ {
		if k == c.clusterOf(n.Index) {
			continue
		}
		r := &server.RemoteGatewayOpts{Name: GatewayClusterName(k)}
		for _, o := range c.nodes {
			if c.clusterOf(o.Index) != k {
				continue
			}
			host := hostPort(defaultHost, o.gatewayPort)
			if c.links != nil {
				host = c.links.route[[2]int{n.Index, o.Index}].Addr()
			}
			r.URLs = append(r.URLs, &url.URL{Scheme: "nats", Host: host})
		}
		g.Gateways = append(g.Gateways, r)
	}
	return g
}

// gatewaysPending is what a supercluster still waits for: every running node with an
// outbound gateway to each other cluster ("" when done).
func (c *Cluster) gatewaysPending(running []runningNode) string {
	if c.opts.Gateways == 0 {
		return ""
	}
	for _, r := range running {
		if got := r.srv.NumOutboundGateways(); got < c.opts.Gateways-1 {
			return fmt.Sprintf("%s has %d of %d outbound gateways", r.Name, got, c.opts.Gateways-1)
		}
	}
	return ""
}

// ClusterURLs are the client URLs of the running nodes of cluster k (1-based) of a
// supercluster, nil for another k; ClientURLs are cluster 1's.
func (c *Cluster) ClusterURLs(k int) []string {
	if c.opts.Gateways == 0 || k < 1 || k > c.opts.Gateways {
		return nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	var urls []string
	for _, n := range c.nodes {
		if n.srv != nil && c.clusterOf(n.Index) == k {
			urls = append(urls, "nats://"+hostPort(c.opts.dialHost(), c.publicClientPort(n)))
		}
	}
	return urls
}
