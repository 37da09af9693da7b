package cli

import (
	"github.com/spf13/cobra"

	"github.com/natsperf/natsperf/internal/agent"
	"github.com/natsperf/natsperf/internal/agentproto"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/version"
	"github.com/natsperf/natsperf/runner"
)

// distributedCheck refuses the distributed flags without --agents, and bad values.
func (a *app) distributedCheck() error {
	d := a.dist
	if d.Agents == "" {
		for _, n := range []string{"control", "agents-wait", "on-agent-loss"} {
			if d.Changed(n) {
				return usagef("--%s is for runs across agents: add --agents N", n)
			}
		}
		return nil
	}
	if d.OnLoss != runner.OnLossStop && d.OnLoss != runner.OnLossContinue {
		return usagef("--on-agent-loss must be stop or continue, got %q", d.OnLoss)
	}
	if d.Wait <= 0 {
		return usagef("--agents-wait must be positive, got %v", d.Wait)
	}
	if err := runner.CheckAgents(d.Agents); err != nil {
		return usageError{Err: err}
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
				return usageError{Err: err}
			}
			target, specified, err := connect.Resolve(a.conn.Settings, a.streams.Env)
			if err != nil {
				return usageError{Err: err}
			}
			control, err := connect.Control(a.conn.Settings, controlFlag(cmd), a.streams.Env)
			if err != nil {
				return usageError{Err: err}
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
