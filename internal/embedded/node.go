package embedded

import (
	"fmt"
	"net"
	"net/url"
	"sync/atomic"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/nodes"
)

// node is one server slot of a Cluster. The slot (name, ports, store)
// stays fixed; the *server.Server behind it changes on Kill/Restart.
type node struct {
	nodes.Slot
	clientPort  int // public client port; RANDOM_PORT until a direct server picked one (then guarded by Cluster.mu)
	clusterPort int // public cluster port; 0 = not clustered
	leafPort    int // leaf node port of a hub node; 0 without Options.Leafnodes
	gatewayPort int // gateway port; 0 without Options.Gateways
	gate        *gate
	clientProxy *proxy // nil unless Options.Pausable
	routeProxy  *proxy // nil unless Pausable and clustered

	id atomic.Pointer[string] // server ID of the running server, for route proxies

	// Guarded by Cluster.mu.
	srv     *server.Server
	log     *nodeLogger
	started chan struct{} // closed when srv.Start has returned
}

func newNode(root string, i int) *node {
	return &node{Slot: nodes.NewSlot(root, i), gate: newGate()}
}

func (n *node) proxied() bool { return n.clientProxy != nil }

// serverOptions builds fresh options for every (re)start: nats-server
// fills in defaults on the struct it is given.
func (c *Cluster) serverOptions(n *node) *server.Options {
	o := &server.Options{
		ServerName:         n.Name,
		Host:               c.opts.Host,
		Port:               n.clientPort,
		NoSigs:             true, // otherwise Ctrl-C in natsperf would os.Exit from inside the server
		NoLog:              c.opts.Logger == nil,
		JetStream:          true,
		StoreDir:           n.StoreDir,
		JetStreamMaxMemory: c.opts.JetStreamMaxMemory,
		JetStreamMaxStore:  c.opts.JetStreamMaxStore,
	}
	o.SyncAlways, o.SyncInterval = c.opts.syncSettings()
	if c.opts.Encryption != "" {
		o.JetStreamKey, o.JetStreamCipher = c.opts.EncryptionKey, cipher(c.opts.Encryption)
	}
	if n.leafPort != 0 {
		o.LeafNode = server.LeafNodeOpts{Host: defaultHost, Port: n.leafPort}
		o.JetStreamDomain = HubDomain
	}
	if c.opts.HTTPPort != 0 && n == c.nodes[0] {
		o.HTTPHost, o.HTTPPort = c.opts.Host, c.opts.HTTPPort
	}
	if n.proxied() {
		// The server listens on free internal ports and advertises the
		// proxy, so clients that discover servers stay behind the proxies.
		o.Port = server.RANDOM_PORT
		o.ClientAdvertise = n.clientProxy.addr
	}
	if cl := c.clientLink(n); cl != nil {
		o.ClientAdvertise = hostPort(c.opts.dialHost(), c.publicClientPort(n)) // discovered servers stay behind the links
	}
	if !c.opts.clustered() {
		return o // a cluster port would put a single server into clustered mode
	}
	o.Cluster = server.ClusterOpts{
		Name: c.clusterName(n),
		Host: defaultHost,
		Port: n.clusterPort,
	}
	o.Routes = c.routes(n)
	if c.opts.Gateways > 0 {
		o.Gateway = c.gatewayOptions(n)
	}
	if n.proxied() {
		o.Cluster.Port = server.RANDOM_PORT
		o.Cluster.Advertise = n.routeProxy.addr // gossiped routes go through the proxy too
	}
	if c.links != nil {
		o.Routes = nil
		for _, h := range c.routesFrom(n) {
			o.Routes = append(o.Routes, &url.URL{Scheme: "nats-route", Host: h})
		}
		o.Cluster.Advertise = c.links.sink.Addr().String() // gossip must not lead around the links
	}
	return o
}

// routes lists the public cluster port of every node in n's cluster, its own included: each
// server ignores the route to itself, but nats-server sizes a fresh
// JetStream meta group by len(Routes), so leaving it out would bootstrap a
// 3-node cluster as a group of 2.
func (c *Cluster) routes(n *node) []*url.URL {
	routes := make([]*url.URL, 0, len(c.nodes))
	for _, o := range c.nodes {
		if !c.sameCluster(n.Index, o.Index) {
			continue
		}
		routes = append(routes, &url.URL{Scheme: "nats-route", Host: hostPort(defaultHost, o.clusterPort)})
	}
	return routes
}

// startNode creates and starts the server of slot n without waiting for it.
func (c *Cluster) startNode(n *node) error {
	s, err := server.NewServer(c.serverOptions(n))
	if err != nil {
		return fmt.Errorf("%s: %w", n.Name, err)
	}
	prefix := ""
	if c.opts.clustered() {
		prefix = "[" + n.Name + "] "
	}
	log := newNodeLogger(c.opts.Logger, prefix)
	s.SetLogger(log, false, false)
	id := s.ID()
	n.id.Store(&id)

	started := make(chan struct{})
	c.mu.Lock()
	n.srv, n.log, n.started = s, log, started
	c.mu.Unlock()

	// Start launches the accept loops and returns; with a large store to
	// recover it can take a while, so it must not hold up ctx handling.
	go func() {
		defer close(started)
		s.Start()
	}()
	return nil
}

// stopNode shuts the server of slot n down and waits for it.
func (c *Cluster) stopNode(n *node) {
	c.mu.Lock()
	s, started := n.srv, n.started
	n.srv, n.log, n.started = nil, nil, nil
	c.mu.Unlock()
	if s != nil {
		// Shutting down halfway through Start could leave parts that Start
		// brings up after Shutdown ran.
		<-started
		s.Shutdown()
		s.WaitForShutdown()
	}
	n.id.Store(nil)
}

// listening reports whether s has opened its listeners; a server started
// on a random client port keeps the port it got for Restart.
func (c *Cluster) listening(n *node, s *server.Server) bool {
	ca, ok := s.Addr().(*net.TCPAddr)
	if !ok || (n.clusterPort != 0 && s.ClusterAddr() == nil) {
		return false
	}
	c.mu.Lock()
	if n.clientPort == server.RANDOM_PORT {
		n.clientPort = ca.Port
	}
	c.mu.Unlock()
	return true
}

// backend is the internal address a proxy of n forwards to, "" while n
// has no listener.
func (c *Cluster) backend(n *node, route bool) string {
	c.mu.RLock()
	s := n.srv
	c.mu.RUnlock()
	if s == nil {
		return ""
	}
	if route {
		if a := s.ClusterAddr(); a != nil {
			return a.String()
		}
		return ""
	}
	if a := s.Addr(); a != nil {
		return a.String()
	}
	return ""
}

func load(p *atomic.Pointer[string]) string {
	if v := p.Load(); v != nil {
		return *v
	}
	return ""
}
