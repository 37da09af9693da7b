package cli

import (
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/embedded"
)

func (a *app) serverCmd() *cobra.Command {
	var port, nodes int
	var storeDir string
	var ready time.Duration
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Run the embedded nats-server (JetStream on) in the foreground until Ctrl-C",
		Long: `Run the same embedded nats-server that benchmarks start when no server is given, so that
'natsperf sub' and 'natsperf pub' in two terminals can share it, as with nats bench.`,
		Example: `  natsperf server                      # nats://127.0.0.1:4222
  natsperf server --port 4333 --store-dir /tmp/js
  natsperf server --cluster 3           # a 3-node JetStream cluster on loopback`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if port < 0 || port > 65535 {
				return usagef("--port must be 0..65535, got %d", port)
			}
			if nodes < 1 || nodes > 9 {
				return usagef("--cluster must be 1..9 nodes, got %d", nodes)
			}
			ctx := runCtx(cmd)
			if ready < 0 {
				return usagef("--ready-timeout must not be negative")
			}
			c, err := embedded.Start(ctx, embedded.Options{Nodes: nodes, Port: port, StoreDir: storeDir, ReadyTimeout: ready})
			if err != nil {
				return fmt.Errorf("start embedded server: %w", err)
			}
			defer c.Shutdown()
			fmt.Fprintf(a.streams.Out, "Running %s\n", c.Describe())
			fmt.Fprintf(a.streams.Out, "Connect with: -s %s   (Ctrl-C to stop)\n", c.URL())
			<-ctx.Done()
			fmt.Fprintf(a.streams.Out, "Stopping\n")
			return nil
		},
	}
	cmd.Flags().IntVar(&port, "port", 4222, "client port (of the first node); 0 picks a free one")
	cmd.Flags().StringVar(&storeDir, "store-dir", "", "JetStream store directory (default: a temporary directory removed on exit)")
	cmd.Flags().IntVar(&nodes, "cluster", 1, "number of nodes; more than 1 forms a JetStream cluster on loopback")
	cmd.Flags().DurationVar(&ready, "ready-timeout", 0, "how long the servers may take to accept clients and, for a cluster, to elect a JetStream meta leader every node follows (default 10s, 30s for a cluster)")
	return cmd
}
