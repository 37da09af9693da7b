package cli

import (
	"context"
	"errors"
	"fmt"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/coord"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/live"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/spec"
)

// runCellDistributed runs one repetition of a scenario cell across agents (run --agents): the
// cell's own setup (streams recreated, buckets created) once, here, then its Spec split across
// the agents (an instance never spans agents), the merged Result saved as runOnce saves one.
func (a *app) runCellDistributed(ctx context.Context, sc *scenario.Scenario, c scenario.Cell, rep int, dir string,
	s *spec.Spec, conn *connect.Settings, ir scenario.IndexRun, fail func(error) scenario.IndexRun, metrics *live.Metrics,
) scenario.IndexRun {
	name := scenario.RunName(c, rep)
	var warnings []string
	if engine.NeedsSetup(s) {
		if conn == nil || (conn.Servers == "" && conn.Context == "") {
			// The agents load their own -s, which defaults to the control server: so does the
			// setup, made here once.
			control, err := controlSettings(a.conn.s, a.dist.control, a.streams.Env)
			if err != nil {
				return fail(err)
			}
			conn = &control
		}
		t, err := engine.OpenSpecTarget(ctx, s, engine.Options{Env: a.streams.Env, Connection: conn})
		if err != nil {
			return fail(err)
		}
		w, teardown, err := engine.Setup(ctx, t, s)
		defer t.Close()
		defer teardown()
		if err != nil {
			return fail(err)
		}
		warnings, s = w, engine.WithoutSetup(s)
	}
	cfg, err := a.coordConfig(s, false)
	if err != nil {
		return fail(err)
	}
	cfg.Log = nil // the scenario prints one line per run
	// The agents' intervals, live: the series file and --metrics-addr, as a local cell's
	// (each client's series named after its agent: a1/pod1/pub/1).
	sink, err := openCellSeries(c.File, s, dir, name, metrics, &ir)
	if err != nil {
		return fail(err)
	}
	if sink != nil {
		cfg.Series = sink.C()
	}
	startAgentRunMetrics(metrics, c.Name, name, s)
	res, err := coord.Run(ctx, s, cfg)
	if sink != nil {
		if serr := sink.Close(); serr != nil && err == nil {
			err = serr
		}
	}
	if err != nil {
		var in coord.InputError
		if errors.As(err, &in) {
			return fail(err)
		}
		return fail(fmt.Errorf("across agents: %w", err))
	}
	res.Warnings = append(warnings, res.Warnings...)
	withScenarioSettings(res, sc, c, rep)
	return a.recordCell(dir, ir, res, fmt.Sprintf(" (%d agents)", len(res.Distributed.Agents)), " ("+name+")")
}
