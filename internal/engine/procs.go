package engine

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/fault"
	"github.com/natsperf/natsperf/internal/procs"
	"github.com/natsperf/natsperf/result"
)

// startProcs runs the target's nats-server processes, sized as the embedded server would be:
// the binary given, or the release named, built into natsperf's cache first when missing.
func startProcs(ctx context.Context, o TargetOptions, warn io.Writer) (*procs.Cluster, error) {
	bin := o.Processes.ServerBin
	if v := o.Processes.ServerVersion; v != "" {
		var err error
		if bin, err = procs.Install(ctx, o.Env.Getenv, v, warn); err != nil {
			if ctx.Err() != nil {
				return nil, fmt.Errorf("interrupted before the run started: %w", ctx.Err())
			}
			return nil, fmt.Errorf("nats-server %s: %w", v, err)
		}
	}
	e := o.Embedded
	sync, err := embedded.ParseSync(e.Sync)
	if err != nil {
		return nil, InputError{err}
	}
	var js map[string]any
	if sync != "" { // nats-server's own default otherwise, as in-process
		js = map[string]any{"sync_interval": sync}
	}
	c, err := procs.Start(ctx, procs.Options{
		Binary: bin, Nodes: e.Nodes, Host: e.Host, Port: e.Port, StoreDir: e.StoreDir,
		JetStreamMaxMemory: e.JetStreamMaxMemory, JetStreamMaxStore: e.JetStreamMaxStore, ReadyTimeout: e.ReadyTimeout,
		JetStream: js, PowerFail: e.PowerFail,
	})
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("interrupted before the run started: %w", ctx.Err())
		}
		return nil, fmt.Errorf("start nats-server processes: %w", err)
	}
	return c, nil
}

// describeProcs marks the Result's servers as natsperf's processes and adds the nodes no
// client met, so that the Result lists every node natsperf started with its version.
func describeProcs(c *procs.Cluster, res *result.Result) {
	for _, n := range c.Nodes() {
		n.Version = strings.TrimPrefix(n.Version, "v") // as the servers' INFO says it
		i := slices.IndexFunc(res.Servers, func(s result.Server) bool { return s.Name == n.Name })
		if i < 0 {
			res.Servers = append(res.Servers, result.Server{Name: n.Name, URL: n.URL, Version: n.Version, JetStream: true, Cluster: clusterOf(c)})
			i = len(res.Servers) - 1
		}
		s := &res.Servers[i]
		s.Embedded, s.Process, s.Binary, s.Options = true, true, n.Binary, n.Options
		s.Encryption = "none"
		s.SyncInterval = embedded.DefaultSyncInterval.String()
		if v, ok := n.Options["jetstream.sync_interval"].(string); ok {
			s.SyncInterval = v
		}
	}
}

func clusterOf(c *procs.Cluster) string {
	if c.Size() > 1 {
		return procs.ClusterName
	}
	return ""
}

// cluster is the target's nodes faults act on: the embedded servers or the processes (nil:
// the user's servers).
func (t *Target) cluster() fault.Cluster {
	switch {
	case t.Embedded != nil:
		return t.Embedded
	case t.Procs != nil:
		return t.Procs
	}
	return nil
}

// own reports whether natsperf started the target's servers (in-process or processes).
func (t *Target) own() bool { return t.Embedded != nil || t.Procs != nil }

// nodes is the number of nodes natsperf started (0: the user's servers).
func (t *Target) nodes() int {
	switch {
	case t.Embedded != nil:
		return t.Embedded.Size()
	case t.Procs != nil:
		return t.Procs.Size()
	}
	return 0
}

// Power failures and corruption act on processes as on the in-process cluster.
var _ fault.PowerCluster = (*procs.Cluster)(nil)
