package embedded

import (
	"fmt"
	"net"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ClusterName is the nats-server cluster name shared by all nodes.
const ClusterName = "natsperf"

const (
	defaultHost               = "127.0.0.1"
	defaultMaxMemory    int64 = 1 << 30  // 1 GiB
	defaultMaxStore     int64 = 10 << 30 // 10 GiB
	singleReadyTimeout        = 10 * time.Second
	clusterReadyTimeout       = 30 * time.Second
)

// Options configures Start. The zero value is a single server with
// JetStream on a free loopback port and a temporary store.
type Options struct {
	// Nodes is the number of servers: 0 or 1 is a single, non-clustered
	// server; 2 or more form a JetStream cluster on loopback.
	Nodes int
	// Host is the client listen host (default 127.0.0.1). Cluster traffic
	// always stays on 127.0.0.1.
	Host string
	// Port is the client port of node 1; 0 picks a free port. Other nodes
	// always use free ports.
	Port int
	// HTTPPort, when not 0, serves node 1's monitoring endpoints (/varz, /connz, ...) on Host
	// at this port (nats-server's -m); -1 picks a free one. MonitorURL says where.
	HTTPPort int
	// StoreDir is the JetStream store root. Empty means a fresh temporary
	// directory that Shutdown removes; a given directory is kept. Each node
	// uses its own subdirectory n1, n2, ...
	StoreDir string
	// JetStreamMaxMemory and JetStreamMaxStore are per-node limits in
	// bytes; 0 means 1 GiB and 10 GiB.
	JetStreamMaxMemory int64
	JetStreamMaxStore  int64
	// ReadyTimeout bounds Start and Restart; 0 means 10s for a single
	// server and 30s for a cluster.
	ReadyTimeout time.Duration
	// Logger receives the servers' logs (prefixed with the node name in a
	// cluster); nil keeps them silent. Fatalf is reported as an error and
	// never exits the process.
	Logger server.Logger
	// Pausable puts a TCP proxy in front of every client and cluster port
	// so that Pause can stall a node. Off by default: the proxies add a
	// hop that would distort benchmark numbers.
	Pausable bool
}

// withDefaults validates o and fills in the defaults.
func (o Options) withDefaults() (Options, error) {
	if o.Nodes < 0 {
		return o, fmt.Errorf("embedded: Nodes must be >= 0, got %d", o.Nodes)
	}
	if o.Nodes == 0 {
		o.Nodes = 1
	}
	if o.Host == "" {
		o.Host = defaultHost
	}
	if o.Port < 0 || o.Port > 65535 {
		return o, fmt.Errorf("embedded: Port must be 0..65535, got %d", o.Port)
	}
	if o.HTTPPort < -1 || o.HTTPPort > 65535 {
		return o, fmt.Errorf("embedded: HTTPPort must be -1..65535, got %d", o.HTTPPort)
	}
	if o.JetStreamMaxMemory < 0 || o.JetStreamMaxStore < 0 {
		return o, fmt.Errorf("embedded: JetStream limits must be >= 0")
	}
	if o.JetStreamMaxMemory == 0 {
		o.JetStreamMaxMemory = defaultMaxMemory
	}
	if o.JetStreamMaxStore == 0 {
		o.JetStreamMaxStore = defaultMaxStore
	}
	if o.ReadyTimeout < 0 {
		return o, fmt.Errorf("embedded: ReadyTimeout must be >= 0, got %s", o.ReadyTimeout)
	}
	if o.ReadyTimeout == 0 {
		o.ReadyTimeout = singleReadyTimeout
		if o.clustered() {
			o.ReadyTimeout = clusterReadyTimeout
		}
	}
	return o, nil
}

func (o Options) clustered() bool { return o.Nodes > 1 }

// dialHost is the host clients should dial: a wildcard listen host is
// reachable on loopback.
func (o Options) dialHost() string {
	if ip := net.ParseIP(o.Host); ip != nil && ip.IsUnspecified() {
		return defaultHost
	}
	return o.Host
}
