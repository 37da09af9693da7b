package embedded

import (
	"github.com/nats-io/nats-server/v2/server"
)

// Replica is one node's own copy of a stream, from that node's JetStream state.
type Replica struct {
	Node     string
	Present  bool // the node holds the stream
	Down     bool // the node is not running
	Msgs     uint64
	FirstSeq uint64
	LastSeq  uint64
	// Peers are the stream's peers (its leader and replicas) as this node knows them, when it
	// holds the stream in a cluster: a node of a larger cluster outside them holds no copy by
	// design.
	Peers []string
}

// StreamReplicas reads every node's own copy of stream (in the default account, natsperf's
// embedded servers have no other) from the node itself, not through the stream leader.
func (c *Cluster) StreamReplicas(stream string) []Replica {
	c.mu.RLock()
	type ns struct {
		name    string
		srv     *server.Server
		cluster int
	}
	var nodes []ns
	for _, n := range c.nodes {
		nodes = append(nodes, ns{n.Name, n.srv, c.clusterOf(n.Index)})
	}
	c.mu.RUnlock()
	out := make([]Replica, 0, len(nodes))
	for _, n := range nodes {
		r := Replica{Node: n.name, Down: n.srv == nil}
		if n.srv != nil {
			if ad, err := n.srv.JszAccount(&server.JSzOptions{Account: server.DEFAULT_GLOBAL_ACCOUNT, Streams: true}); err == nil {
				for _, sd := range ad.Streams {
					if sd.Name == stream {
						r.Present, r.Msgs, r.FirstSeq, r.LastSeq = true, sd.State.Msgs, sd.State.FirstSeq, sd.State.LastSeq
						if ci := sd.Cluster; ci != nil {
							r.Peers = append(r.Peers, ci.Leader)
							for _, p := range ci.Replicas {
								r.Peers = append(r.Peers, p.Name)
							}
						}
					}
				}
			}
		}
		out = append(out, r)
	}
	if c.opts.Gateways == 0 {
		return out
	}
	// A supercluster's stream lives in one cluster: the other clusters' nodes hold no copy
	// by design, so only the nodes of the cluster holding one are its replicas.
	home := 0
	for i, r := range out {
		if r.Present {
			home = nodes[i].cluster
			break
		}
	}
	var mine []Replica
	for i, r := range out {
		if home == 0 || nodes[i].cluster == home {
			mine = append(mine, r)
		}
	}
	return mine
}
