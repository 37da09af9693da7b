package cli

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/js"
)

func (a *app) cleanCmd() *cobra.Command {
	var dryRun bool
	cmd := &cobra.Command{
		Use:   "clean",
		Short: "Remove the streams, KV buckets and consumers natsperf created, and nothing else",
		Long: `Delete every stream, KV bucket and consumer that carries natsperf's mark (metadata
created-by=natsperf). Anything else is left alone. Each removal is listed; --dry-run only lists.`,
		Example: `  natsperf clean -s nats://127.0.0.1:4222 --dry-run
  natsperf clean -s nats://127.0.0.1:4222`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx, cancel := context.WithTimeout(runCtx(cmd), time.Minute)
			defer cancel()
			settings, specified, err := connect.Resolve(a.conn.Settings, a.streams.Env)
			if err != nil {
				return usageError{Err: err}
			}
			if !specified {
				fmt.Fprintln(a.streams.Out, "No server given (--server, NATS_URL or --context): an embedded server starts empty each run, so there is nothing to clean.")
				return nil
			}
			nc, err := connect.Connect(ctx, settings, "natsperf-clean")
			if err != nil {
				return fmt.Errorf("connect: %w", err)
			}
			defer nc.Close()
			jsc, err := settings.JS.New(nc)
			if err != nil {
				return fmt.Errorf("jetstream: %w", err)
			}
			verb := "Removing"
			if dryRun {
				verb = "Would remove"
			}
			done, err := js.Clean(ctx, jsc, dryRun, func(r js.Removal) {
				fmt.Fprintf(a.streams.Out, "%s %s\n", verb, r)
			})
			if err != nil {
				return err
			}
			switch {
			case len(done) == 0:
				fmt.Fprintln(a.streams.Out, "Nothing natsperf created was found.")
			case dryRun:
				fmt.Fprintf(a.streams.Out, "%d item(s) would be removed (--dry-run: nothing changed).\n", len(done))
			default:
				fmt.Fprintf(a.streams.Out, "Removed %d item(s).\n", len(done))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&dryRun, "dry-run", false, "only list what would be removed")
	return cmd
}
