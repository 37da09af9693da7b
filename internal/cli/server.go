package cli

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/procs"
)

func (a *app) serverCmd() *cobra.Command {
	var port, nodes, httpPort int
	var storeDir, addr string
	var ready time.Duration
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the embedded nats-server (JetStream on) in the foreground until Ctrl-C",
		Long: `Run the same embedded nats-server that benchmarks start when no server is given, so that
'natsperf sub' and 'natsperf pub' in two terminals can share it, as with nats bench.`,
		Example: `  natsperf server                      # nats://127.0.0.1:4222
  natsperf server --port 4333 --store-dir /tmp/js
  natsperf server --addr 127.0.0.2 --http-port 8333   # listen on 127.0.0.2, /varz at http://127.0.0.2:8333/varz
  natsperf server --cluster 3           # a 3-node JetStream cluster on loopback
  natsperf server --cluster 3 --zones 3 --zone-delay 1ms   # its nodes in 3 zones, 1 ms apart one way
  natsperf server --port 0 --leafnodes 2 --link-delay 2ms  # a hub and 2 leaf nodes 2 ms away; connect to the leaves, --js-domain hub
  natsperf server --port 0 --gateways 2 --cluster 3 --gateway-delay 5ms   # a supercluster: 2 clusters of 3 nodes, 5 ms apart one way; clients on the first
  natsperf server --js-encryption aes   # the store encrypted at rest (key: $NATSPERF_JS_KEY, else generated)
  natsperf server --server-version v2.12.15 --cluster 3 --port 0   # three nats-server 2.12.15 processes (built once with go install)
  natsperf server --server-version v2.15.3 --port 0 --http-port 0   # one 2.15.3 process (--server-bin PATH: any nats-server)`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if port < 0 || port > 65535 {
				return usagef("--port must be 0..65535, got %d", port)
			}
			if httpPort < 0 || httpPort > 65535 {
				return usagef("--http-port must be 0..65535, got %d", httpPort)
			}
			if net.ParseIP(addr) == nil {
				return usagef("--addr must be an IP address to listen on (127.0.0.1, 0.0.0.0, ::1, ...), got %q", addr)
			}
			if nodes < 1 || nodes > 9 {
				return usagef("--cluster must be 1..9 nodes, got %d", nodes)
			}
			nw, nerr := a.conn.Links.Network(nodes)
			if nerr != nil {
				return nerr
			}
			ctx := runCtx(cmd)
			if ready < 0 {
				return usagef("--ready-timeout must not be negative")
			}
			if sf := a.conn.Servers; sf.Bin != "" || sf.Version != "" {
				if nw != nil || a.conn.Links.Leafnodes > 0 || a.conn.Links.Gateways > 0 {
					return usagef("links, zones, leaf nodes and gateways are not yet on nats-server processes (--server-bin, --server-version): use the in-process server")
				}
				si, err := embedded.ParseSync(a.conn.SyncInterval)
				if err != nil {
					return usagef("--sync-interval: %v", err)
				}
				var js map[string]any
				if si != "" {
					js = map[string]any{"sync_interval": si}
				}
				return a.serveProcs(ctx, procs.Options{Nodes: nodes, Host: addr, Port: port, HTTPPort: httpPort, StoreDir: storeDir, ReadyTimeout: ready, JetStream: js})
			}
			enc, err := embedded.ParseEncryption(a.conn.JSEncryption)
			if err != nil {
				return usagef("--js-encryption: %v", err)
			}
			if _, err := embedded.ParseSync(a.conn.SyncInterval); err != nil {
				return usagef("--sync-interval: %v", err)
			}
			key := embedded.KeyFromEnv(a.streams.Env.Getenv, enc)
			if enc != "" && key == "" && storeDir != "" {
				fmt.Fprintf(a.streams.Err, "natsperf: the JetStream key is generated for this run and not kept: a later server cannot read %s; set $%s to keep one\n", storeDir, embedded.KeyEnv)
			}
			c, err := embedded.Start(ctx, embedded.Options{Nodes: nodes, Host: addr, Port: port, HTTPPort: httpPort, StoreDir: storeDir, ReadyTimeout: ready,
				Encryption: enc, EncryptionKey: key, Network: nw, Leafnodes: a.conn.Links.Leafnodes, Gateways: a.conn.Links.Gateways, Sync: a.conn.SyncInterval})
			if err != nil {
				return fmt.Errorf("start embedded server: %w", err)
			}
			defer c.Shutdown()
			fmt.Fprintf(a.streams.Out, "Running %s\n", c.Describe())
			if mon := c.MonitorURL(); mon != "" {
				fmt.Fprintf(a.streams.Out, "Monitoring: %s/varz\n", mon)
			}
			domain := ""
			if d := c.JetStreamDomain(); d != "" {
				domain = " --js-domain " + d
			}
			for k := 2; k <= c.Gateways(); k++ {
				fmt.Fprintf(a.streams.Out, "Cluster %s: -s %s\n", embedded.GatewayClusterName(k), strings.Join(c.ClusterURLs(k), ","))
			}
			fmt.Fprintf(a.streams.Out, "Connect with: -s %s%s   (Ctrl-C to stop)\n", c.URL(), domain)
			<-ctx.Done()
			fmt.Fprintf(a.streams.Out, "Stopping\n")
			return nil
		},
	}
	cmd.Flags().StringVarP(&addr, "addr", "a", "127.0.0.1", "IP address to listen on, clients and monitoring (nats-server's -a); 0.0.0.0: every interface, for agents on other machines")
	cmd.Flags().IntVarP(&httpPort, "http-port", "m", 0, "serve the monitoring endpoints (/varz, /connz, ...) of the first node at this port (nats-server's -m); 0: none")
	cmd.Flags().IntVar(&port, "port", 4222, "client port (of the first node); 0 picks a free one")
	cmd.Flags().StringVar(&storeDir, "store-dir", "", "JetStream store directory (default: a temporary directory removed on exit)")
	cmd.Flags().IntVar(&nodes, "cluster", 1, "number of nodes; more than 1 forms a JetStream cluster on loopback; with --gateways M, the nodes of each of the M clusters")
	cmd.Flags().DurationVar(&ready, "ready-timeout", 0, "how long the servers may take to accept clients and, for a cluster, to elect a JetStream meta leader every node follows (default 10s, 30s for a cluster)")
	return cmd
}

// serveProcs is natsperf server with --server-bin or --server-version: the processes run until
// Ctrl-C.
func (a *app) serveProcs(ctx context.Context, o procs.Options) error {
	if err := a.conn.CheckProcesses(); err != nil {
		return err
	}
	o.Binary = a.conn.Servers.Bin
	if v := a.conn.Servers.Version; v != "" {
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
