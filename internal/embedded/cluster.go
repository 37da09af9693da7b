package embedded

import (
	"context"
	"fmt"
	"net"
	"os"
	"strings"
	"sync"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/nodes"
	"github.com/natsperf/natsperf/internal/powerfs"
)

// Cluster is a set of embedded servers started by Start: a single server
// or a JetStream cluster. Its methods are safe for concurrent use.
type Cluster struct {
	opts    Options
	root    string // store root
	tempDir bool   // root was created by Start and is removed by Shutdown
	nodes   nodes.List[*node]
	links   *links // nil unless Options.Network
	leaves  []*leaf

	opMu     sync.Mutex    // serializes Start, Kill, Restart, Pause and Shutdown
	mu       sync.RWMutex  // guards node.srv and node.log for readers
	closing  chan struct{} // closed when Shutdown begins; aborts waits
	stopOnce sync.Once
	shut     bool // guarded by opMu
}

// Start starts the server(s) and returns once they accept connections and,
// for a cluster, once the JetStream meta group has a leader, every node
// follows it and is current. It gives up after Options.ReadyTimeout or when
// ctx ends, and then leaves no server, proxy or temporary directory behind.
//
// A fresh 3-node cluster is typically ready in 0.2-0.8s. About one start in
// 25 the bootstrap meta election of nats-server splits its vote and the
// cluster waits out a 4-9s election timeout; nats-server offers no public
// way to shorten that.
func Start(ctx context.Context, opts Options) (*Cluster, error) {
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if opts.PowerFail {
		if err := powerfs.Check(); err != nil {
			return nil, err
		}
	}
	c := &Cluster{opts: opts, closing: make(chan struct{})}
	if err := c.start(ctx); err != nil {
		c.Shutdown()
		return nil, fmt.Errorf("embedded: start %s: %w", c.kind(), err)
	}
	return c, nil
}

func (c *Cluster) start(ctx context.Context) error {
	c.opMu.Lock()
	defer c.opMu.Unlock()
	ctx, cancel := c.withReadyTimeout(ctx) // for the leaves too
	defer cancel()
	if err := c.makeStore(); err != nil {
		return err
	}
	release, err := c.makeLeafPorts()
	releaseGW := func() {}
	if err == nil {
		releaseGW, err = c.makeGatewayPorts()
	}
	if err == nil {
		err = c.makePorts()
	}
	releaseGW()
	release()
	if err != nil {
		return err
	}
	// One node at a time: nats-server 2.15 can lose the pinned $SYS route between two servers
	// that solicit each other at the same instant, and with it the bootstrap meta vote.
	if err := nodes.StartInOrder(ctx, ops{c}); err != nil {
		return err
	}
	return c.startLeaves(ctx)
}

// makeStore creates the store root and one directory per node; JetStream
// must never get an empty StoreDir.
func (c *Cluster) makeStore() error {
	c.root = c.opts.StoreDir
	if c.root == "" {
		SweepStaleStores("")
		dir, err := os.MkdirTemp("", storePrefix)
		if err != nil {
			return fmt.Errorf("create store dir: %w", err)
		}
		c.root, c.tempDir = dir, true
		if err := markStore(dir); err != nil {
			os.RemoveAll(dir)
			return fmt.Errorf("create store dir: %w", err)
		}
	}
	for i := 1; i <= c.opts.size(); i++ {
		n := newNode(c.root, i)
		c.nodes = append(c.nodes, n) // before its mount: Shutdown unmounts it
		if err := n.MakeStore(c.root, c.opts.PowerFail); err != nil {
			return err
		}
	}
	return nil
}

// makePorts fixes every node's public ports before any server starts:
// routes must name all cluster ports, and Restart reuses the same ports.
func (c *Cluster) makePorts() error {
	if c.opts.Pausable {
		if err := c.makeProxies(); err != nil {
			return err
		}
		return c.openLinks()
	}
	first := c.nodes[0]
	clientLinks := c.opts.Network != nil && !c.opts.Network.Client.Zero()
	if c.opts.Port != 0 && !clientLinks { // a client link takes Port instead
		if err := checkPortFree(c.opts.Host, c.opts.Port); err != nil {
			return fmt.Errorf("client %w", err)
		}
		first.clientPort = c.opts.Port
	} else if !c.opts.clustered() && !clientLinks {
		first.clientPort = server.RANDOM_PORT // no route needs it up front
	}
	if !c.opts.clustered() && !clientLinks {
		return c.openLinks() // leaf links only: nothing to reserve
	}
	// Reserve client and cluster ports together so none is handed out twice.
	var hosts []string
	for _, n := range c.nodes {
		if n.clientPort == 0 {
			hosts = append(hosts, c.opts.Host)
		}
		if c.opts.clustered() {
			hosts = append(hosts, defaultHost)
		}
	}
	ports, release, err := holdPorts(hosts...)
	defer release() // after the links have their ports
	if err != nil {
		return err
	}
	for _, n := range c.nodes {
		if n.clientPort == 0 {
			n.clientPort, ports = ports[0], ports[1:]
		}
		if c.opts.clustered() {
			n.clusterPort, ports = ports[0], ports[1:]
		}
	}
	return c.openLinks()
}

// makeProxies opens the public ports of a pausable cluster as proxy
// listeners; the servers themselves listen on random internal ports.
func (c *Cluster) makeProxies() error {
	for _, n := range c.nodes {
		port := 0
		if n.Index == 1 && (c.opts.Network == nil || c.opts.Network.Client.Zero()) {
			port = c.opts.Port // else node 1's client link takes it
		}
		ln, err := net.Listen("tcp", hostPort(c.opts.Host, port))
		if err != nil {
			return fmt.Errorf("client port %d unavailable: %w", port, err)
		}
		n.clientPort = ln.Addr().(*net.TCPAddr).Port
		n.clientProxy = newProxy(ln, n.gate, func() string { return c.backend(n, false) }, nil)
		if !c.opts.clustered() {
			continue
		}
		if ln, err = net.Listen("tcp", hostPort(defaultHost, 0)); err != nil {
			return fmt.Errorf("cluster port: %w", err)
		}
		n.clusterPort = ln.Addr().(*net.TCPAddr).Port
		n.routeProxy = newProxy(ln, n.gate, func() string { return c.backend(n, true) }, c.gateOfServer)
	}
	return nil
}

// gateOfServer maps a route's sender (server ID) to that node's gate.
func (c *Cluster) gateOfServer(id string) *gate {
	if id == "" {
		return nil
	}
	for _, n := range c.nodes {
		if load(&n.id) == id {
			return n.gate
		}
	}
	return nil
}

// Shutdown stops all nodes, waits for them, closes the proxies and removes
// the store if Start created it. It is idempotent.
func (c *Cluster) Shutdown() {
	c.stopOnce.Do(func() { close(c.closing) })
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if c.shut {
		return
	}
	c.shut = true
	c.stopLeaves()
	var wg sync.WaitGroup
	for _, n := range c.nodes {
		n.gate.resume() // a stalled node would shut down slowly
		wg.Go(func() { c.stopNode(n) })
	}
	wg.Wait()
	c.nodes.Unmount()
	for _, n := range c.nodes {
		for _, p := range []*proxy{n.clientProxy, n.routeProxy} {
			if p != nil {
				p.stop()
			}
		}
	}
	c.closeLinks()
	if c.tempDir {
		os.RemoveAll(c.root)
	}
}

// ClientURLs returns one URL per running node, in node order; with leaf nodes, the leaves';
// in a supercluster, the first cluster's nodes'.
func (c *Cluster) ClientURLs() []string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	if len(c.leaves) > 0 {
		return c.leafURLs()
	}
	var urls []string
	for _, n := range c.nodes {
		if n.srv != nil && c.clusterOf(n.Index) == 1 {
			urls = append(urls, "nats://"+hostPort(c.opts.dialHost(), c.publicClientPort(n)))
		}
	}
	return urls
}

// MonitorURL is node 1's monitoring base URL (http://host:port; /varz and the others below
// it), "" without Options.HTTPPort or while node 1 is down.
func (c *Cluster) MonitorURL() string {
	c.mu.RLock()
	defer c.mu.RUnlock()
	n := c.nodes[0]
	if c.opts.HTTPPort == 0 || n.srv == nil {
		return ""
	}
	a := n.srv.MonitorAddr()
	if a == nil {
		return ""
	}
	return "http://" + hostPort(c.opts.dialHost(), a.Port)
}

// URL returns the running nodes' URLs comma-joined, as nats.Connect takes.
func (c *Cluster) URL() string { return strings.Join(c.ClientURLs(), ",") }

// Size is the number of node slots, running or not.
func (c *Cluster) Size() int { return len(c.nodes) }

// Node returns the server of node i (1-based), or nil when i is out of
// range or the node is killed. Its own Addr/ClientURL are internal ports
// when the cluster is pausable; use ClientURLs to connect.
func (c *Cluster) Node(i int) *server.Server {
	n, err := c.node(i)
	if err != nil {
		return nil
	}
	c.mu.RLock()
	defer c.mu.RUnlock()
	return n.srv
}

// ServerName returns the stable server name of node i ("natsperf-n1"...),
// or "" when i is out of range.
func (c *Cluster) ServerName(i int) string { return c.nodes.ServerName(i) }

// NodeByName returns the 1-based index of the node with the server name.
func (c *Cluster) NodeByName(name string) (int, bool) { return c.nodes.ByName(name) }

// ErrNoNode is returned for a node index outside 1..Size.
var ErrNoNode = nodes.ErrNoNode

func (c *Cluster) node(i int) (*node, error) { return nodes.At(ops{c}, i) }

func (c *Cluster) kind() string {
	if c.opts.Gateways > 0 {
		return fmt.Sprintf("supercluster of %d clusters of %d", c.opts.Gateways, c.opts.Nodes)
	}
	if c.opts.Nodes == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d-node cluster", c.opts.Nodes)
}
