package embedded

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"sync"
	"time"

	"github.com/natsperf/natsperf/internal/link"
)

// links puts a cluster's routes, and with client conditions its client ports, behind links
// (Options.Network). Node i reaches node j only through route link i→j, which forwards to j's
// public cluster port (behind j's proxy when the cluster is pausable): every route pays the
// link's delay, and a partition can cut exactly the routes between two sides.
type links struct {
	net    link.Network
	route  map[[2]int]*link.Link // [from, to], 1-based
	client []*link.Link          // per node; nil without client conditions
	// sink is every node's advertised cluster address: a route learnt by gossip would reach
	// the other node directly, around the links, so the address it is told accepts and
	// closes. Routes then come only from each node's own list, which names links.
	sink net.Listener

	mu   sync.Mutex
	cut  map[[2]int]bool // links cut by Partition
	slow map[int]time.Duration
}

// openLinks opens the links of Options.Network once every public port is fixed (and, for a
// cluster with direct ports, still reserved: a link on port 0 must not take a node's port).
func (c *Cluster) openLinks() (err error) {
	if c.opts.Network == nil {
		return nil
	}
	nw := *c.opts.Network
	l := &links{net: nw, route: map[[2]int]*link.Link{}, cut: map[[2]int]bool{}, slow: map[int]time.Duration{}}
	c.links = l
	if !nw.Client.Zero() {
		for _, n := range c.nodes {
			port := 0
			if n.Index == 1 {
				port = c.opts.Port
			}
			up := hostPort(c.opts.dialHost(), n.clientPort)
			cl, err := link.Open(n.Name+"-client", hostPort(c.opts.Host, port), up, nw.Client)
			if err != nil {
				return fmt.Errorf("client link of %s: %w", n.Name, err)
			}
			l.client = append(l.client, cl)
		}
	}
	if !c.opts.clustered() {
		return nil
	}
	if l.sink, err = net.Listen("tcp", hostPort(defaultHost, 0)); err != nil {
		return fmt.Errorf("route sink: %w", err)
	}
	go func(ln net.Listener) {
		for {
			conn, err := ln.Accept()
			if err != nil {
				return
			}
			conn.Close()
		}
	}(l.sink)
	for _, from := range c.nodes {
		for _, to := range c.nodes {
			if from == to {
				continue
			}
			name, port, what := from.Name+"-"+to.Name, to.clusterPort, "route"
			if !c.sameCluster(from.Index, to.Index) {
				name, port, what = name+"-gw", to.gatewayPort, "gateway"
			}
			rl, err := link.Open(name, hostPort(defaultHost, 0), hostPort(defaultHost, port), c.between(from.Index, to.Index))
			if err != nil {
				return fmt.Errorf("%s link %s: %w", what, name, err)
			}
			l.route[[2]int{from.Index, to.Index}] = rl
		}
	}
	return nil
}

func (c *Cluster) closeLinks() {
	l := c.links
	if l == nil {
		return
	}
	for _, rl := range l.route {
		rl.Close()
	}
	for _, cl := range l.client {
		cl.Close()
	}
	if l.sink != nil {
		l.sink.Close()
	}
}

// clientLink is the link in front of node n's client port, nil without one.
func (c *Cluster) clientLink(n *node) *link.Link {
	if c.links == nil || len(c.links.client) == 0 {
		return nil
	}
	return c.links.client[n.Index-1]
}

// publicClientPort is the port clients of n dial: its client link's, else its own.
func (c *Cluster) publicClientPort(n *node) int {
	if cl := c.clientLink(n); cl != nil {
		_, p, _ := net.SplitHostPort(cl.Addr())
		port, _ := strconv.Atoi(p)
		return port
	}
	return n.clientPort
}

// routesFrom is node n's route list: its links to every other node, and its own cluster port
// (see routes for why it names itself).
func (c *Cluster) routesFrom(n *node) []string {
	var hosts []string
	for _, o := range c.nodes {
		if !c.sameCluster(n.Index, o.Index) {
			continue // a gateway link
		}
		if rl := c.links.route[[2]int{n.Index, o.Index}]; rl != nil {
			hosts = append(hosts, rl.Addr())
		} else {
			hosts = append(hosts, hostPort(defaultHost, o.clusterPort))
		}
	}
	return hosts
}

// Network is the cluster's link conditions, nil when its nodes connect directly.
func (c *Cluster) Network() *link.Network {
	if c.links == nil {
		return nil
	}
	nw := c.links.net
	return &nw
}

// ErrNoLinks is returned by link faults on a cluster started without Options.Network.
var ErrNoLinks = errors.New("the cluster was started without links (Options.Network)")

// Zone lists the nodes of zone z (1-based), none when z is not a zone of the cluster.
func (c *Cluster) Zone(z int) []int {
	if c.links == nil || z < 1 || z > max(c.links.net.Zones, 1) {
		return nil
	}
	var nodes []int
	for _, n := range c.nodes {
		if c.links.net.Zone(n.Index) == z {
			nodes = append(nodes, n.Index)
		}
	}
	return nodes
}

// Partition cuts every route link between the given nodes and the rest, both ways: the
// connections stay open and hold their bytes until Heal, as TCP rides out a partition.
func (c *Cluster) Partition(nodes []int) error {
	if c.links == nil {
		return fmt.Errorf("embedded: partition: %w", ErrNoLinks)
	}
	in := map[int]bool{}
	for _, i := range nodes {
		if _, err := c.node(i); err != nil {
			return fmt.Errorf("embedded: partition: %w", err)
		}
		in[i] = true
	}
	c.links.mu.Lock()
	defer c.links.mu.Unlock()
	var errs []error
	for k, rl := range c.links.route {
		if in[k[0]] != in[k[1]] {
			errs = append(errs, rl.Cut())
			c.links.cut[k] = true
		}
	}
	return errors.Join(errs...)
}

// Heal ends every partition and slow node: the links carry their configured conditions again.
func (c *Cluster) Heal() error {
	if c.links == nil {
		return fmt.Errorf("embedded: heal: %w", ErrNoLinks)
	}
	c.links.mu.Lock()
	defer c.links.mu.Unlock()
	var errs []error
	for k, rl := range c.links.route {
		if c.links.cut[k] {
			errs = append(errs, rl.Heal())
		}
		if c.links.slow[k[0]] > 0 || c.links.slow[k[1]] > 0 {
			errs = append(errs, rl.Set(c.between(k[0], k[1])))
		}
	}
	clear(c.links.cut)
	clear(c.links.slow)
	return errors.Join(errs...)
}

// SlowNode adds d one way to every route of node i, both directions (a node on a slow
// network), until Heal.
func (c *Cluster) SlowNode(i int, d time.Duration) error {
	if c.links == nil {
		return fmt.Errorf("embedded: delay: %w", ErrNoLinks)
	}
	if _, err := c.node(i); err != nil {
		return fmt.Errorf("embedded: delay: %w", err)
	}
	if d < 0 {
		return fmt.Errorf("embedded: delay: %s is negative", d)
	}
	c.links.mu.Lock()
	defer c.links.mu.Unlock()
	c.links.slow[i] = d
	var errs []error
	for k, rl := range c.links.route {
		if k[0] == i || k[1] == i {
			extra := link.Conditions{Delay: c.links.slow[k[0]] + c.links.slow[k[1]]}
			errs = append(errs, rl.Set(c.between(k[0], k[1]).Plus(extra)))
		}
	}
	return errors.Join(errs...)
}
