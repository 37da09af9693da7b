package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/spec"
)

// Targets keeps one target open while consecutive runs ask for the same one (a scenario's
// cells, a search's probes): the same servers and connection, or an embedded server of the
// same size, which then keeps its streams and state between runs. A run with faults gets a
// target of its own, closed after it: a killed or paused node must not carry over. Close it
// when done. A Targets is used by one run at a time.
type Targets struct {
	// Log, when set, is told on one line ("Target: ...") when an embedded server is started.
	Log io.Writer

	key string
	t   *engine.Target
}

// get is s's target: the open one when s asks for the same, else a new one.
func (ts *Targets) get(ctx context.Context, s *spec.Spec, env connect.Env) (*engine.Target, func(), error) {
	b, _ := json.Marshal(struct {
		T spec.Target
		C connect.Settings // its secrets too, which the target writes redacted
		R int              // an embedded target is sized for the setup's replicas
	}{s.Target, engine.Settings(s.Target), engine.SetupReplicas(s)})
	key, faults := string(b), len(s.Faults.Inject) > 0
	if ts.t != nil && key == ts.key && !faults {
		return ts.t, func() {}, nil
	}
	ts.Close()
	var warn bytes.Buffer // Log says "Target:" instead
	t, err := engine.OpenSpecTarget(ctx, s, engine.Options{Env: env, Warn: &warn})
	if err != nil {
		return nil, nil, err
	}
	if t.Embedded != nil && ts.Log != nil {
		fmt.Fprintf(ts.Log, "Target: %s\n", t.Embedded.Describe())
	}
	t.Shared = true
	if faults {
		return t, func() { t.Shared = false; t.Close() }, nil
	}
	ts.t, ts.key = t, key
	return t, func() {}, nil
}

// Close stops the embedded server it keeps, if any.
func (ts *Targets) Close() {
	if ts.t != nil && ts.t.Embedded != nil {
		ts.t.Embedded.Shutdown()
	}
	ts.t = nil
}
