package embedded

import (
	"fmt"

	"github.com/nats-io/nats-server/v2/server"
)

// Describe returns a one-line description for the CLI, e.g.
// "embedded nats-server 2.15.2 (JetStream, 1 node) at nats://127.0.0.1:41231, store /tmp/natsperf-123".
func (c *Cluster) Describe() string {
	what := "1 node"
	if c.opts.Gateways > 0 {
		nodes := fmt.Sprintf("%d nodes", c.opts.Nodes)
		if c.opts.Nodes == 1 {
			nodes = "1 node"
		}
		what = fmt.Sprintf("supercluster: %d clusters of %s joined by gateways, %s to %s; clients on %s",
			c.opts.Gateways, nodes, GatewayClusterName(1), GatewayClusterName(c.opts.Gateways), GatewayClusterName(1))
	} else if c.opts.clustered() {
		what = fmt.Sprintf("%d nodes, cluster %q", c.opts.Nodes, ClusterName)
	}
	if c.opts.Sync != "" {
		what += ", sync_interval " + c.opts.Sync
	}
	if c.opts.PowerFail {
		what += ", stores on powerfs"
	}
	if c.opts.Pausable {
		what += ", pausable via proxies"
	}
	if len(c.leaves) > 0 {
		leaves := fmt.Sprintf("%d leaf nodes", len(c.leaves))
		if len(c.leaves) == 1 {
			leaves = "1 leaf node"
		}
		what += ", " + leaves + " (clients connect to them)"
	}
	if nw := c.Network(); nw != nil {
		what += ", links: " + nw.String()
	}
	return fmt.Sprintf("embedded nats-server %s (JetStream, %s) at %s, store %s%s",
		server.VERSION, what, c.URL(), c.root, c.encryptionDescription())
}
