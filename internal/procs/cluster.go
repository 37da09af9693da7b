package procs

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/nodes"
	"github.com/natsperf/natsperf/internal/powerfs"
)

var (
	// ErrNotReady is wrapped when the servers did not become ready within ReadyTimeout.
	ErrNotReady = nodes.ErrNotReady
	// ErrNodeDown is returned when an operation needs a running node.
	ErrNodeDown = nodes.ErrNodeDown
	// ErrShutdown is returned after Shutdown.
	ErrShutdown = nodes.ErrShutdown
	// ErrNoNode is returned for a node index outside 1..Size.
	ErrNoNode = nodes.ErrNoNode
)

// Cluster is a set of nats-server processes started by Start. Its methods are safe for
// concurrent use.
type Cluster struct {
	opts    Options
	root    string
	tempDir bool
	nodes   nodes.List[*node]
	version string // of the binary, from node 1's /varz

	opMu     sync.Mutex // serializes Start, Kill, Restart, Pause and Shutdown
	mu       sync.Mutex // guards the nodes' process fields
	closing  chan struct{}
	stopOnce sync.Once
	shut     bool // guarded by opMu
}

// node is one server slot: name, ports, config and store stay; the process changes.
type node struct {
	nodes.Slot
	host                              string
	clientPort, clusterPort, httpPort int
	confPath, logPath                 string
	proc                              *process // guarded by Cluster.mu; nil while down
	pauseTimer                        *time.Timer
}

// process is one run of a node's server.
type process struct {
	cmd    *exec.Cmd
	done   chan struct{} // closed when the process has been reaped
	err    error         // its exit, once done
	paused bool
}

// Start runs the servers and returns once each accepts connections and, for a cluster, the
// JetStream meta group has a leader that every node follows and is current with (as the
// embedded cluster waits). On failure nothing is left behind: no process, no temporary store.
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
	Sweep("")
	for attempt := 1; ; attempt++ {
		c := &Cluster{opts: opts, closing: make(chan struct{})}
		err := c.start(ctx)
		if err == nil {
			return c, nil
		}
		c.Shutdown()
		// A free port picked for a node can be taken by another process between its
		// reservation and the server's bind: pick again.
		if attempt < 3 && errors.Is(err, errPortTaken) && opts.Port == 0 && opts.HTTPPort == 0 && ctx.Err() == nil {
			continue
		}
		return nil, fmt.Errorf("procs: start %s: %w", c.kind(), err)
	}
}

// errPortTaken marks a server that exited because a port it was given was taken.
var errPortTaken = errors.New("port taken")

func (c *Cluster) start(ctx context.Context) error {
	c.opMu.Lock()
	defer c.opMu.Unlock()
	ctx, cancel := c.waiter().WithTimeout(ctx)
	defer cancel()
	if err := c.makeStore(); err != nil {
		return err
	}
	if err := c.makePorts(); err != nil {
		return err
	}
	if err := nodes.StartInOrder(ctx, ops{c}); err != nil {
		return err
	}
	v, err := getJSON[varz](ctx, c.monitor(c.nodes[0]), "/varz")
	if err != nil {
		return fmt.Errorf("read version: %w", err)
	}
	c.version = "v" + strings.TrimPrefix(v.Version, "v")
	return nil
}

func (c *Cluster) makeStore() error {
	c.root = c.opts.StoreDir
	if c.root == "" {
		dir, err := os.MkdirTemp("", embedded.StorePrefix)
		if err != nil {
			return fmt.Errorf("create store dir: %w", err)
		}
		c.root, c.tempDir = dir, true
		if err := embedded.MarkStore(dir); err != nil {
			return fmt.Errorf("create store dir: %w", err)
		}
	}
	for i := 1; i <= c.opts.Nodes; i++ {
		n := &node{
			Slot: nodes.NewSlot(c.root, i), host: c.opts.Host,
			confPath: filepath.Join(c.root, fmt.Sprintf("n%d.conf", i)),
			logPath:  filepath.Join(c.root, fmt.Sprintf("n%d.log", i)),
		}
		c.nodes = append(c.nodes, n) // before its mount: Shutdown unmounts it
		if err := n.MakeStore(c.root, c.opts.PowerFail); err != nil {
			return err
		}
	}
	return nil
}

// makePorts picks every port before any server starts: routes name all cluster ports, and
// Restart reuses them. The reserving listeners stay open until the last port is picked, so
// none is handed out twice; they close just before the servers start.
func (c *Cluster) makePorts() error {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	pick := func(host string, fixed int) (int, error) {
		if fixed != 0 {
			l, err := net.Listen("tcp", hostPort(host, fixed))
			if err != nil {
				return 0, fmt.Errorf("port %d unavailable: %w", fixed, err)
			}
			ls = append(ls, l)
			return fixed, nil
		}
		l, err := net.Listen("tcp", hostPort(host, 0))
		if err != nil {
			return 0, fmt.Errorf("reserve port on %s: %w", host, err)
		}
		ls = append(ls, l)
		return l.Addr().(*net.TCPAddr).Port, nil
	}
	var err error
	for _, n := range c.nodes {
		fixedClient, fixedHTTP := 0, 0
		if n.Index == 1 {
			fixedClient, fixedHTTP = c.opts.Port, c.opts.HTTPPort
		}
		if n.clientPort, err = pick(n.host, fixedClient); err != nil {
			return fmt.Errorf("client %w", err)
		}
		if n.httpPort, err = pick(n.host, fixedHTTP); err != nil {
			return fmt.Errorf("monitoring %w", err)
		}
		if len(c.nodes) > 1 {
			if n.clusterPort, err = pick(defaultHost, 0); err != nil {
				return fmt.Errorf("cluster %w", err)
			}
		}
	}
	for _, n := range c.nodes {
		if err := os.WriteFile(n.confPath, []byte(c.config(n)), 0o600); err != nil {
			return fmt.Errorf("write config: %w", err)
		}
	}
	return nil
}

// startNode runs node n's server; it must be down. A store on powerfs that lost power is
// mounted again first: the server starts on what survived.
func (c *Cluster) startNode(n *node) error {
	if n.Disk != nil {
		if err := n.Disk.Remount(); err != nil {
			return fmt.Errorf("%s: %w", n.Name, err)
		}
	}
	logf, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("%s: open log: %w", n.Name, err)
	}
	cmd := exec.Command(c.opts.Binary, "-c", n.confPath)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		logf.Close()
		return fmt.Errorf("%s: start %s: %w", n.Name, c.opts.Binary, err)
	}
	p := &process{cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		logf.Close()
		close(p.done)
	}()
	c.mu.Lock()
	n.proc = p
	c.mu.Unlock()
	c.writePids()
	return nil
}

// stopNode ends node n's process: SIGKILL when kill, else SIGTERM (nats-server shuts down
// cleanly) with SIGKILL after a bound. It returns once the process is reaped.
func (c *Cluster) stopNode(n *node, kill bool) {
	c.mu.Lock()
	p := n.proc
	n.proc = nil
	if n.pauseTimer != nil {
		n.pauseTimer.Stop()
		n.pauseTimer = nil
	}
	c.mu.Unlock()
	if p == nil {
		return
	}
	pid := p.cmd.Process.Pid
	if kill {
		_ = sigKill(pid)
	} else {
		_ = sigTerm(pid)
		_ = sigCont(pid) // a stopped process must run to exit
		select {
		case <-p.done:
		case <-time.After(10 * time.Second):
			_ = sigKill(pid)
		}
	}
	<-p.done
	c.writePids()
}

// Shutdown stops every node, waits for them and removes a temporary store. Idempotent.
func (c *Cluster) Shutdown() {
	c.stopOnce.Do(func() { close(c.closing) })
	c.opMu.Lock()
	defer c.opMu.Unlock()
	if c.shut {
		return
	}
	c.shut = true
	var wg sync.WaitGroup
	for _, n := range c.nodes {
		wg.Go(func() { c.stopNode(n, c.tempDir) }) // a store that goes needs no clean stop
	}
	wg.Wait()
	c.nodes.Unmount() // the processes are gone: they held files open
	if c.tempDir && c.root != "" {
		os.RemoveAll(c.root)
	}
}

// writePids records the running processes' pids in the store root, for Sweep.
func (c *Cluster) writePids() {
	c.mu.Lock()
	var b strings.Builder
	for _, n := range c.nodes {
		if n.proc != nil {
			fmt.Fprintf(&b, "%d\n", n.proc.cmd.Process.Pid)
		}
	}
	c.mu.Unlock()
	_ = os.WriteFile(filepath.Join(c.root, pidsFile), []byte(b.String()), 0o600)
}

func (c *Cluster) node(i int) (*node, error) { return nodes.At(ops{c}, i) }

func (c *Cluster) kind() string {
	if c.opts.Nodes == 1 {
		return "1 node"
	}
	return fmt.Sprintf("%d-node cluster", c.opts.Nodes)
}
