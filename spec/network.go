package spec

// Links reports whether e asks for links (docs/network.md): any link delay, bandwidth,
// zones or client delay.
func (e *Embedded) Links() bool {
	return e != nil && (e.LinkDelay != 0 || e.LinkJitter != 0 || e.LinkBandwidth != 0 || e.Zones > 1 ||
		e.ZoneDelay != 0 || e.ClientDelay != 0 || e.ClientJitter != 0 || e.GatewayDelay != 0)
}

// RouteLinks reports whether e conditions the routes between nodes (which a single node has
// none of).
func (e *Embedded) RouteLinks() bool {
	return e != nil && (e.LinkDelay != 0 || e.LinkJitter != 0 || e.LinkBandwidth != 0 || e.Zones > 1 || e.ZoneDelay != 0)
}

func (e *Embedded) checkNetwork(c *checker) {
	const p = "target.embedded."
	switch {
	case e.LinkDelay < 0 || e.LinkJitter < 0 || e.ZoneDelay < 0 || e.ClientDelay < 0 || e.ClientJitter < 0 || e.GatewayDelay < 0:
		c.failf(p+"link_delay", "delays and jitters must not be negative")
	case e.LinkJitter > e.LinkDelay:
		c.failf(p+"link_jitter", "must not exceed link_delay (%s)", e.LinkDelay.D())
	case e.ClientJitter > e.ClientDelay:
		c.failf(p+"client_jitter", "must not exceed client_delay (%s)", e.ClientDelay.D())
	case e.LinkBandwidth < 0 || (e.LinkBandwidth > 0 && e.LinkBandwidth < 1000):
		c.failf(p+"link_bandwidth", "must be at least 1000 bytes/s, got %d", e.LinkBandwidth)
	case e.Zones < 0 || e.Zones > 9:
		c.failf(p+"zones", "must be 0 to 9, got %d", e.Zones)
	case e.ZoneDelay != 0 && e.Zones < 2:
		c.failf(p+"zone_delay", "needs 2 or more zones")
	case e.Leafnodes < 0 || e.Leafnodes > 9:
		c.failf(p+"leafnodes", "must be 0 to 9, got %d", e.Leafnodes)
	case e.Gateways != 0 && (e.Gateways < 2 || e.Gateways > 9):
		c.failf(p+"gateways", "must be 0, or 2 to 9 clusters, got %d", e.Gateways)
	case e.GatewayDelay != 0 && e.Gateways == 0:
		c.failf(p+"gateway_delay", "needs gateways (2 or more clusters)")
	case e.Gateways > 0 && e.Leafnodes > 0:
		c.failf(p+"gateways", "a supercluster with leaf nodes is not supported: give gateways or leafnodes")
	case e.Gateways > 0 && (e.Zones > 1 || e.ZoneDelay != 0):
		c.failf(p+"zones", "a supercluster's clusters are its zones: give gateway_delay, not zones")
	case e.Gateways > 0 && e.Gateways*max(e.Nodes, 1) > 27:
		c.failf(p+"gateways", "%d clusters of %d nodes are more than 27 servers", e.Gateways, e.Nodes)
	case e.Zones > 1 && e.Nodes > 0 && e.Zones > e.Nodes:
		c.failf(p+"zones", "%d zones need at least %d nodes, got %d", e.Zones, e.Zones, e.Nodes)
	}
}
