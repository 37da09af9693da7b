package cmdline

import (
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/procs"
	"github.com/natsperf/natsperf/spec"
)

// ServerFlags say which servers natsperf starts when no server is given: nats-server processes
// of a binary or a release instead of the in-process server, and how many nodes.
type ServerFlags struct {
	Bin, Version string // --server-bin, --server-version
	Cluster      int    // --cluster
}

func (s *ServerFlags) register(f *pflag.FlagSet) {
	f.StringVar(&s.Bin, "server-bin", "", "run this nats-server executable as processes (one per node, own config, temp store, free loopback ports) instead of the in-process server")
	f.StringVar(&s.Version, "server-version", "", "run this nats-server release as processes (e.g. v2.12.15), built once with go install into ~/.cache/natsperf/nats-server/VERSION ($"+procs.CacheEnv+")")
	f.IntVar(&s.Cluster, "cluster", 0, "nodes of the server natsperf starts (in-process or --server-bin/--server-version): 1, or 3 to 9 for a JetStream cluster (default: 1, 3 when --replicas or a fault needs one)")
}

func (s *ServerFlags) set() bool { return s.Bin != "" || s.Version != "" || s.Cluster != 0 }

// check refuses what cannot act: the flags configure servers natsperf starts.
func (c *Conn) CheckProcesses() error {
	s := c.Servers
	if !s.set() {
		return nil
	}
	if c.Settings.Servers != "" || c.Settings.Context != "" {
		return usagef("--server-bin, --server-version and --cluster configure the servers natsperf starts; a server given with -s or --context is used as it is")
	}
	if s.Bin != "" && s.Version != "" {
		return usagef("--server-bin and --server-version exclude each other")
	}
	if s.Version != "" {
		if err := procs.CheckVersion(s.Version); err != nil {
			return usagef("--server-version: %v", err)
		}
	}
	if s.Cluster < 0 || s.Cluster > 9 {
		return usagef("--cluster must be 1..9 nodes, got %d", s.Cluster)
	}
	if s.set() && c.JSEncryption != "" && c.JSEncryption != "none" && (s.Bin != "" || s.Version != "") {
		return usagef("--js-encryption is not yet set on nats-server processes: use the in-process server")
	}
	return nil
}

// WithProcesses asks t for the servers the flags name (and t names no server).
func (c *Conn) WithProcesses(t *spec.Target) {
	s := c.Servers
	if !s.set() || len(t.Servers) > 0 || t.Context != "" {
		return
	}
	if t.Embedded == nil {
		t.Embedded = &spec.Embedded{}
	}
	t.Embedded.ServerBin, t.Embedded.ServerVersion = s.Bin, s.Version
	if s.Cluster > 0 {
		t.Embedded.Nodes = s.Cluster
	}
}
