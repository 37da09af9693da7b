package cli

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/procs"
	"github.com/natsperf/natsperf/spec"
)

// serverFlags say which servers natsperf starts when no server is given: nats-server processes
// of a binary or a release instead of the in-process server, and how many nodes.
type serverFlags struct {
	bin, version string
	cluster      int
}

func (s *serverFlags) register(f *pflag.FlagSet) {
	f.StringVar(&s.bin, "server-bin", "", "run this nats-server executable as processes (one per node, own config, temp store, free loopback ports) instead of the in-process server")
	f.StringVar(&s.version, "server-version", "", "run this nats-server release as processes (e.g. v2.12.15), built once with go install into ~/.cache/natsperf/nats-server/VERSION ($"+procs.CacheEnv+")")
	f.IntVar(&s.cluster, "cluster", 0, "nodes of the server natsperf starts (in-process or --server-bin/--server-version): 1, or 3 to 9 for a JetStream cluster (default: 1, 3 when --replicas or a fault needs one)")
}

func (s *serverFlags) set() bool { return s.bin != "" || s.version != "" || s.cluster != 0 }

// check refuses what cannot act: the flags configure servers natsperf starts.
func (c *connFlags) checkProcesses() error {
	s := c.servers
	if !s.set() {
		return nil
	}
	if c.s.Servers != "" || c.s.Context != "" {
		return usagef("--server-bin, --server-version and --cluster configure the servers natsperf starts; a server given with -s or --context is used as it is")
	}
	if s.bin != "" && s.version != "" {
		return usagef("--server-bin and --server-version exclude each other")
	}
	if s.version != "" {
		if err := procs.CheckVersion(s.version); err != nil {
			return usagef("--server-version: %v", err)
		}
	}
	if s.cluster < 0 || s.cluster > 9 {
		return usagef("--cluster must be 1..9 nodes, got %d", s.cluster)
	}
	if s.set() && c.jsEncryption != "" && c.jsEncryption != "none" && (s.bin != "" || s.version != "") {
		return usagef("--js-encryption is not yet set on nats-server processes: use the in-process server")
	}
	return nil
}

// withProcesses asks t for the servers the flags name (and t names no server).
func (c *connFlags) withProcesses(t *spec.Target) {
	s := c.servers
	if !s.set() || len(t.Servers) > 0 || t.Context != "" {
		return
	}
	if t.Embedded == nil {
		t.Embedded = &spec.Embedded{}
	}
	t.Embedded.ServerBin, t.Embedded.ServerVersion = s.bin, s.version
	if s.cluster > 0 {
		t.Embedded.Nodes = s.cluster
	}
}

// serveProcs is natsperf server with --server-bin or --server-version: the processes run until
// Ctrl-C.
func (a *app) serveProcs(ctx context.Context, o procs.Options) error {
	if err := a.conn.checkProcesses(); err != nil {
		return err
	}
	o.Binary = a.conn.servers.bin
	if v := a.conn.servers.version; v != "" {
		bin, err := procs.Install(ctx, a.streams.Env.Getenv, v, a.streams.Err)
		if err != nil {
			return fmt.Errorf("nats-server %s: %w", v, err)
		}
		o.Binary = bin
	}
	c, err := procs.Start(ctx, o)
	if err != nil {
		return fmt.Errorf("start nats-server processes: %w", err)
	}
	defer c.Shutdown()
	fmt.Fprintf(a.streams.Out, "Running %s\n", c.Describe())
	fmt.Fprintf(a.streams.Out, "Monitoring: %s/varz\n", c.MonitorURLs()[0])
	fmt.Fprintf(a.streams.Out, "Connect with: -s %s   (Ctrl-C to stop)\n", c.URL())
	<-ctx.Done()
	fmt.Fprintf(a.streams.Out, "Stopping\n")
	return nil
}
