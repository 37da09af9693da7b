package procs

import (
	"fmt"
	"maps"
	"net"
	"time"
)

// ClusterName is the nats-server cluster name shared by all nodes, as the embedded cluster's.
const ClusterName = "natsperf"

const (
	defaultHost         = "127.0.0.1"
	defaultMaxMemory    = int64(1 << 30)  // 1 GiB, as embedded
	defaultMaxStore     = int64(10 << 30) // 10 GiB
	singleReadyTimeout  = 20 * time.Second
	clusterReadyTimeout = 60 * time.Second
)

// Options configures Start. Binary is required; the rest defaults as the embedded server does.
type Options struct {
	// Binary is the nats-server executable to run.
	Binary string
	// Nodes: 0 or 1 is one server; 2 or more a JetStream cluster on loopback.
	Nodes int
	// Host is the client listen host (default 127.0.0.1); cluster and monitoring ports of nodes
	// other than the first stay on 127.0.0.1.
	Host string
	// Port is node 1's client port; 0 picks a free one.
	Port int
	// HTTPPort is node 1's monitoring port; 0 picks a free one (every node has one: readiness
	// reads /healthz and /jsz).
	HTTPPort int
	// StoreDir is the store root; empty: a temporary directory removed by Shutdown.
	StoreDir string
	// JetStreamMaxMemory and JetStreamMaxStore are per-node limits in bytes (0: 1 GiB, 10 GiB).
	JetStreamMaxMemory int64
	JetStreamMaxStore  int64
	// ReadyTimeout bounds Start and Restart (0: 20s for one node, 60s for a cluster).
	ReadyTimeout time.Duration
	// Config holds further top-level config keys for every node (max_payload: 1048576), and
	// JetStream keys of the jetstream block (sync_interval: "2m"). Values are written as
	// JSON, which nats-server's config parser reads. They are echoed as each node's options.
	Config    map[string]any
	JetStream map[string]any
	// PowerFail puts every node's store on its own powerfs mount, so that PowerFail can drop
	// what the nodes had not fsynced. It needs FUSE (powerfs.Check); Start refuses without.
	PowerFail bool
}

func (o Options) withDefaults() (Options, error) {
	if o.Binary == "" {
		return o, fmt.Errorf("procs: no nats-server binary given")
	}
	if o.Nodes < 0 || o.Nodes > 9 {
		return o, fmt.Errorf("procs: nodes must be 1 to 9, got %d", o.Nodes)
	}
	o.Nodes = max(o.Nodes, 1)
	if o.Host == "" {
		o.Host = defaultHost
	}
	if o.Port < 0 || o.Port > 65535 || o.HTTPPort < 0 || o.HTTPPort > 65535 {
		return o, fmt.Errorf("procs: ports must be 0..65535")
	}
	if o.JetStreamMaxMemory == 0 {
		o.JetStreamMaxMemory = defaultMaxMemory
	}
	if o.JetStreamMaxStore == 0 {
		o.JetStreamMaxStore = defaultMaxStore
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = singleReadyTimeout
		if o.Nodes > 1 {
			o.ReadyTimeout = clusterReadyTimeout
		}
	}
	o.Config, o.JetStream = maps.Clone(o.Config), maps.Clone(o.JetStream)
	return o, nil
}

// dialHost is the host clients dial: a wildcard listen host is reachable on loopback.
func (o Options) dialHost() string {
	if ip := net.ParseIP(o.Host); ip != nil && ip.IsUnspecified() {
		return defaultHost
	}
	return o.Host
}
