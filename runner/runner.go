// Package runner runs natsperf benchmarks from Go: hand it a spec.Spec, get the Result that
// the command line would print and save. With no server in the Spec's target (and no
// NATS_URL), it starts an embedded nats-server, as the command line does.
//
// Run does everything at once; Prepare, then Start and Wait, split the run in two phases:
// every client is connected and set up before Start releases them all at one instant.
//
// Every workload kind of spec.Kinds runs here (engine.Kinds): pub, sub, pubsub (with js too),
// service serve and request, js pub, the js consumers and direct gets, kv put and get, latency.
package runner

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/spec"
)

// Result is a run's document, as `natsperf --json` prints it and docs/result-format.md
// describes it (schema/result.schema.json).
type Result = result.Result

// Options say where a run writes its notices and start lines; the zero value writes nothing.
type Options struct {
	// Log receives the start lines and one-line notices (embedded server started, retries).
	Log io.Writer
}

// Run prepares s, starts it at once and returns its Result. An error means the run could not
// start; a run that started and failed returns its Result with Stop saying why.
func Run(ctx context.Context, s *spec.Spec, o Options) (*Result, error) {
	r, err := Prepare(ctx, s, o)
	if err != nil {
		return nil, err
	}
	r.Start(time.Time{})
	return r.Wait(), nil
}

// Prepared is a run whose clients are connected and set up, held until Start.
type Prepared struct{ r *engine.Run }

// Prepare validates s, opens its target and sets up every client. It must be followed by
// Start and Wait, or by Close.
func Prepare(ctx context.Context, s *spec.Spec, o Options) (*Prepared, error) {
	eo := engine.Options{Env: connect.OSEnv()}
	if o.Log != nil {
		eo.Warn = o.Log
		eo.Logf = func(format string, args ...any) {
			_, _ = io.WriteString(o.Log, time.Now().Format("15:04:05 ")+fmt.Sprintf(format, args...)+"\n")
		}
	}
	r, err := engine.Prepare(ctx, s, eo)
	if err != nil {
		return nil, err
	}
	return &Prepared{r: r}, nil
}

// Start releases every client at at (at once when at is zero or past) and returns at once.
func (p *Prepared) Start(at time.Time) { p.r.Start(at) }

// Wait waits for the run to end and returns its Result.
func (p *Prepared) Wait() *Result { return p.r.Wait() }

// Close releases a prepared run that will not be started.
func (p *Prepared) Close() { p.r.Close() }
