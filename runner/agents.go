package runner

import (
	"context"
	"fmt"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/coord"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/version"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// CheckAgents checks an Options.Agents value: a number of agents, or labels k=v[,k=v].
func CheckAgents(v string) error {
	_, _, err := coord.Parse(v)
	return err
}

// runAgents runs s across the agents o asks for: the Spec's setup made here once, then the
// coordinator (discovery, version check, clock offsets, the two-phase start, loss
// detection) and the merged Result.
func runAgents(ctx context.Context, s *spec.Spec, o Options) (*result.Result, error) {
	count, selector, err := coord.Parse(o.Agents)
	if err != nil {
		return nil, InputError{err}
	}
	if o.OnAgentLoss != "" && o.OnAgentLoss != OnLossStop && o.OnAgentLoss != OnLossContinue {
		return nil, InputError{fmt.Errorf("on agent loss: want %s or %s, got %q", OnLossStop, OnLossContinue, o.OnAgentLoss)}
	}
	if o.AgentsWait < 0 {
		return nil, InputError{fmt.Errorf("agents wait must be positive, got %v", o.AgentsWait)}
	}
	if err := s.Validate(); err != nil {
		return nil, InputError{err}
	}
	env := envOf(o)
	control, err := controlSettings(s, o, env)
	if err != nil {
		return nil, err
	}
	var warnings []string
	if engine.NeedsSetup(s) {
		// The agents connect to the Spec's target, or, when it leaves the target to them, to
		// their own -s, which defaults to the control server: so does the setup, made here
		// once.
		at := s
		if len(s.Target.Servers) == 0 && s.Target.Context == "" {
			cp := *s
			cp.Target = connect.WithSettings(s.Target, control)
			at = &cp
		}
		t, err := engine.OpenSpecTarget(ctx, at, engine.Options{Env: env})
		if err != nil {
			return nil, inputError(err)
		}
		defer t.Close()
		if err := engine.CheckServerVersion(ctx, t, s); err != nil { // before the setup creates anything
			return nil, inputError(err)
		}
		w, teardown, ws, err := setupOnce(ctx, t, s)
		defer teardown()
		if err != nil {
			return nil, err
		}
		warnings, s = w, ws
	}
	cfg := coord.Config{
		Control: control, Count: count, Selector: selector, Wait: o.AgentsWait, OnLoss: o.OnAgentLoss,
		Version: version.String(), Log: o.Log, Progress: progressOf(o.Progress), Series: o.Series,
		Client: "go", // a Go Spec to natsperf agents, a client rust one to natsperf-rust agents
	}
	if UsesRust(s) {
		cfg.Client = "rust"
	}
	prepared(o, s)
	res, err := coord.Coordinate(ctx, s, cfg)
	if err != nil {
		return nil, inputError(err)
	}
	return finish(res, warnings, o), nil
}

// controlSettings is the connection to the agents' control server: o.ControlTarget (else
// the Spec's target), with o.Control as the server.
func controlSettings(s *spec.Spec, o Options, env connect.Env) (connect.Settings, error) {
	t := s.Target
	if o.ControlTarget != nil {
		t = *o.ControlTarget
	}
	control, err := connect.Control(connect.FromSpec(t), o.Control, env)
	if err != nil {
		return connect.Settings{}, InputError{err}
	}
	return control, nil
}

// setupOnce makes s's own setup on t, once, for the parts that run elsewhere: they get s
// without it (engine.WithoutSetup). teardown is never nil.
func setupOnce(ctx context.Context, t *engine.Target, s *spec.Spec) (warnings []string, teardown func(), without *spec.Spec, err error) {
	if !engine.NeedsSetup(s) {
		return nil, func() {}, s, nil
	}
	w, td, err := engine.Setup(ctx, t, s)
	if td == nil {
		td = func() {}
	}
	if err != nil {
		return nil, td, s, err
	}
	return w, td, engine.WithoutSetup(s), nil
}

// prepared tells o.OnStart a coordinated run is about to start.
func prepared(o Options, s *spec.Spec) {
	if o.OnStart != nil {
		o.OnStart(Starting{Interval: engine.SeriesInterval(s)})
	}
}

// finish adds what the coordinating side knows to a coordinated Result: its setup's
// warnings, and the settings a caller labels the run with (o.Settings).
func finish(res *result.Result, warnings []string, o Options) *result.Result {
	res.Warnings = append(warnings, res.Warnings...)
	res.Settings = engine.Label(res.Settings, o.Settings)
	return res
}
