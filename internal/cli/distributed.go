package cli

import (
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/agent"
	"github.com/natsperf/natsperf/internal/agentproto"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/version"
	"github.com/natsperf/natsperf/runner"
)

// distFlags are a distributed run's flags (--agents ...), on every command that runs a Spec.
type distFlags struct {
	agents  string
	control string
	wait    time.Duration
	onLoss  string
	fs      flagSets
}

func (d *distFlags) add(f *pflag.FlagSet) {
	f.StringVar(&d.agents, "agents", "", "run across natsperf agents: a number (--agents 3) or a label selector (--agents zone=a,tier=x); see 'natsperf agent'")
	f.StringVar(&d.control, "control", "", "the NATS server the agents listen on (default: the -s server)")
	f.DurationVar(&d.wait, "agents-wait", 30*time.Second, "how long to wait for the agents asked for")
	f.StringVar(&d.onLoss, "on-agent-loss", runner.OnLossStop, "when an agent stops answering: stop the run, or continue with the others (the Result is partial either way)")
	d.fs = append(d.fs, f)
}

func (d *distFlags) changed(name string) bool { return d.fs.changed(name) }

// registerAgentsFlags puts the distributed run's flags on every command that builds a Spec,
// and on run.
func (a *app) registerAgentsFlags(root *cobra.Command) {
	eachCommand(root, func(c *cobra.Command) {
		if _, ok := c.Annotations[specAnnotation]; ok || (c.Name() == "run" && c.Parent() == root) {
			a.dist.add(c.Flags())
		}
	})
}

// distributedCheck refuses the distributed flags without --agents, and bad values.
func (a *app) distributedCheck() error {
	d := &a.dist
	if d.agents == "" {
		for _, n := range []string{"control", "agents-wait", "on-agent-loss"} {
			if d.changed(n) {
				return usagef("--%s is for runs across agents: add --agents N", n)
			}
		}
		return nil
	}
	if d.onLoss != runner.OnLossStop && d.onLoss != runner.OnLossContinue {
		return usagef("--on-agent-loss must be stop or continue, got %q", d.onLoss)
	}
	if d.wait <= 0 {
		return usagef("--agents-wait must be positive, got %v", d.wait)
	}
	if err := runner.CheckAgents(d.agents); err != nil {
		return usageError{err}
	}
	return nil
}

func (a *app) agentCmd() *cobra.Command {
	var name, fakeVersion string
	var labels []string
	var allowExec bool
	cmd := &cobra.Command{
		Use:   "agent",
		Short: "Run as an agent: a worker that runs parts of distributed benchmarks (--agents) until Ctrl-C",
		Long: `Run as a natsperf agent: register on the control server (a NATS micro service named
natsperf-agent, with this host, its cores and --label values in its metadata) and run the
parts of benchmarks that a coordinator ('natsperf CMD ... --agents N --control URL') hands
it, one run at a time, until Ctrl-C. The clients load the server the run's Spec names, else
this agent's own -s (and connection flags); --control defaults to that server, and -s to
--control.

An agent runs Specs only: a Spec with --fault-exec commands is refused unless the agent was
started with --allow-exec. The protocol is docs/agent-protocol.md.`,
		Example: `  natsperf agent -s nats://127.0.0.1:4222 --name a1 &                  # control = the loaded server
  natsperf agent -s nats://127.0.0.1:4222 --control nats://127.0.0.1:4222 --name a2 --label zone=b &
  natsperf pub foo --clients 4 --agents 2 --control nats://127.0.0.1:4222   # the coordinator
  natsperf pub foo --agents zone=b --control nats://127.0.0.1:4222 --msgs 1000`,
		Args: exactArgs(0, "no arguments"),
		RunE: func(cmd *cobra.Command, args []string) error {
			lbl, err := agentproto.ParseLabels(labels)
			if err != nil {
				return usageError{err}
			}
			target, specified, err := connect.Resolve(a.conn.s, a.streams.Env)
			if err != nil {
				return usageError{err}
			}
			control, err := connect.Control(a.conn.s, controlFlag(cmd), a.streams.Env)
			if err != nil {
				return usageError{err}
			}
			if !specified { // an agent never loads a private embedded server
				target = control
			}
			v := version.String()
			if fakeVersion != "" {
				v = fakeVersion
			}
			return agent.Serve(runCtx(cmd), agent.Config{
				Control: control, Target: target, Env: a.streams.Env, Name: name, Labels: lbl,
				AllowExec: allowExec, Version: v, Log: a.streams.Err,
			})
		},
	}
	f := cmd.Flags()
	f.String("control", "", "the NATS server coordinators reach this agent on (default: the -s server)")
	f.StringArrayVar(&labels, "label", nil, "a label k=v coordinators select agents by (--agents k=v); repeat for more")
	f.StringVar(&name, "name", "", "the agent's name in results (default HOST-PID)")
	f.BoolVar(&allowExec, "allow-exec", false, "let runs execute --fault-exec shell commands on this machine")
	f.StringVar(&fakeVersion, "fake-version", "", "announce this natsperf version instead (tests of the version check)")
	_ = f.MarkHidden("fake-version")
	return cmd
}

func controlFlag(cmd *cobra.Command) string {
	v, _ := cmd.Flags().GetString("control")
	return v
}
