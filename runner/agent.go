package runner

import (
	"context"
	"io"

	"github.com/natsperf/natsperf/internal/agent"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/version"
	"github.com/natsperf/natsperf/spec"
)

// AgentOptions start a natsperf agent in this process, as `natsperf agent` runs one: a worker
// that a run with Options.Agents finds on the control server and hands its part of the Spec.
type AgentOptions struct {
	// Control is the NATS server the agent registers on (the run's Options.Control), in a
	// Spec target's shape: servers, credentials, TLS.
	Control spec.Target
	// Target is what the agent's clients connect to when a Spec names no server.
	Target spec.Target
	// Name is the agent's name in the Result (default HOST-PID); Labels are what
	// Options.Agents selectors match ("zone=a").
	Name   string
	Labels map[string]string
	// AllowExec lets Specs run --fault-exec commands on this agent.
	AllowExec bool
	// Log receives one line per event (registered, prepared, started, ended).
	Log io.Writer
}

// LocalAgent is a natsperf agent running in this process.
type LocalAgent struct{ a *agent.Agent }

// StartAgent registers an agent on o.Control and serves runs until ctx ends or Close.
func StartAgent(ctx context.Context, o AgentOptions) (*LocalAgent, error) {
	a, err := agent.Start(ctx, agent.Config{
		Control: connect.FromSpec(o.Control), Target: connect.FromSpec(o.Target), Env: connect.OSEnv(),
		Name: o.Name, Labels: o.Labels, AllowExec: o.AllowExec, Log: o.Log, Version: version.String(),
	})
	if err != nil {
		return nil, err
	}
	return &LocalAgent{a: a}, nil
}

// ID is the agent's id on the control server.
func (l *LocalAgent) ID() string { return l.a.ID() }

// Close ends the agent's run, if any (its part's Result still goes out), and unregisters it.
func (l *LocalAgent) Close() { l.a.Close() }
