// Package cli is natsperf's command line: the cobra commands, their help, and the rendering
// of what they return. internal/cmdline owns the flags and turns a command line into its Spec,
// which the commands hand to runner.Run. Only main exits; everything here returns exit codes.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/cmdline"
	"github.com/natsperf/natsperf/internal/connect"
)

// Streams are where a command reads and writes; tests pass buffers.
type Streams struct {
	Out, Err io.Writer
	// IsTerminal reports whether Err is a terminal (progress bars are drawn only then).
	IsTerminal bool
	// Env is the environment NATS_URL and context files are read from.
	Env connect.Env
}

// Main executes natsperf with args (without the program name) and returns the exit code.
func Main(ctx context.Context, args []string, s Streams) int {
	root := newRoot(&s)
	root.SetArgs(args)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	err := root.ExecuteContext(ctx)
	pprof.StopCPUProfile() // --cpuprofile: cobra skips the post-run hook when a run fails
	if err == nil {
		return exitOK
	}
	var code exitCode
	if errors.As(err, &code) {
		return int(code)
	}
	fmt.Fprintf(s.Err, "natsperf: %s\n", oneLine(err.Error()))
	if isUsage(err) {
		return exitUsage
	}
	return exitFailed
}

// exitCode lets a command that already reported its outcome choose the exit code.
type exitCode int

func (e exitCode) Error() string { return fmt.Sprintf("exit %d", int(e)) }

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

func newRoot(s *Streams) *cobra.Command {
	root, _ := newApp(s)
	return root
}

// newApp builds the command tree and the app its commands share.
func newApp(s *Streams) (*cobra.Command, *app) {
	root := &cobra.Command{
		Use:   "natsperf",
		Short: "Measure how fast and how correct a NATS / JetStream deployment is",
		Long: `natsperf runs the nats bench workloads with real per-message latency and delivery
checks. With no server given (no --server, NATS_URL or --context) it starts an embedded
nats-server with JetStream, so every command works on a fresh machine.

Exit codes: 0 done, 1 the run failed (or a file could not be read), 2 bad input, 3 data loss
found (--verify found acknowledged messages missing, or receivers saw sequence gaps; "not
received" and "not consumed" are not loss), 4 compare --fail-on-regression found a regression,
5 a --verify or --fault run that lost nothing but had not recovered by its end, 6 a threshold
(--slo) failed, or capacity found none that holds, 130 interrupted.`,
		Example: `  natsperf pub foo --size 16 --msgs 100000           # on an embedded server, nothing to install
  natsperf pubsub foo --pub 1 --sub 5 --size 16
  # Two processes need a server both reach: 'natsperf server' (an embedded one on :4222)
  natsperf server &
  natsperf sub foo -s nats://127.0.0.1:4222 --clients 4 --msgs 100000 &
  natsperf pub foo -s nats://127.0.0.1:4222 --clients 4 --msgs 100000
  natsperf service serve foo -s nats://127.0.0.1:4222 --clients 2 &
  natsperf service request foo -s nats://127.0.0.1:4222 --clients 50 --msgs 10000
  natsperf bench foo --pub 1 --sub 5 --size 16        # the older nats bench syntax`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetFlagErrorFunc(flagError)
	g := cmdline.NewGlobals()
	root.PersistentFlags().AddFlagSet(g.Flags())
	conn, out := &g.Conn, &g.Out
	registerProfile(root, out)
	profile := root.PersistentPreRunE
	started := new(time.Time)
	root.PersistentPreRunE = func(cmd *cobra.Command, args []string) error {
		*started = time.Now()
		if err := conn.Parsed(s.Env); err != nil {
			return err
		}
		return profile(cmd, args)
	}
	app := &app{streams: s, g: g, conn: conn, out: out, builders: map[*cobra.Command]*cmdline.Command{}, started: started}
	app.dist = &app.runDist
	root.AddCommand(
		app.pubCmd(), app.subCmd(), app.pubsubCmd(), app.serviceCmd(), app.latencyCmd(),
		app.jsCmd(), app.kvCmd(), app.cleanCmd(),
		app.serverCmd(), versionCmd(s),
		app.runCmd(), app.reportCmd(), app.compareCmd(), app.specCmd(), app.capacityCmd(),
		app.benchCmd(), app.agentCmd(),
	)
	// Cobra's own completion command, with its help pointing at the shells it supports.
	root.CompletionOptions.DisableDefaultCmd = false
	root.SetOut(s.Out) // the completion command captures its writer when it is created
	root.SetErr(s.Err)
	root.InitDefaultCompletionCmd()                    // now, so guardGroups covers 'completion' too
	root.SetGlobalNormalizationFunc(cmdline.Normalize) // nats bench's flag spellings
	guardGroups(root)
	guardHelp(root)
	return root, app
}

// app holds what every command shares.
type app struct {
	streams *Streams
	g       *cmdline.Globals
	conn    *cmdline.Conn
	out     *cmdline.Output
	// builders are the benchmark commands' flags and Spec builders (cmdline): natsperf spec
	// and capacity build a command line's Spec without running it.
	builders map[*cobra.Command]*cmdline.Command
	// dist are the running command's --agents flags: a benchmark command's, or run's (runDist).
	dist      *cmdline.Agents
	runDist   cmdline.Agents
	clientBin string     // --client-bin of the benchmark command that runs
	started   *time.Time // when the command started (latency's "1st Sent Wall Time" counts from it)
}

// args checks positional arguments with a usage error.
func exactArgs(n int, what string) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if len(args) != n {
			return usagef("%s takes %s (got %d arguments); see --help", cmd.CommandPath(), what, len(args))
		}
		return nil
	}
}
