package coord

import (
	"context"
	"io"
	"time"

	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/telemetry"
	"github.com/natsperf/natsperf/spec"
)

// sampleServers samples the Spec's monitoring endpoints from the start instant at until the
// returned function is called (the coordinator holds the target, so a distributed run has
// one series whatever its number of agents; the agents sample nothing). The baseline
// reading is taken now, after every part is prepared. finish puts the series and its events
// into the merged Result.
func sampleServers(ctx context.Context, s *spec.Spec, at time.Time) (finish func(*result.Result)) {
	src := engine.TelemetrySource(s, nil)
	if src == nil {
		return func(*result.Result) {}
	}
	smp := &telemetry.Sampler{Source: src, Interval: engine.SeriesInterval(s)}
	smp.Baseline(ctx)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		smp.Run(ctx, at)
	}()
	return func(res *result.Result) {
		cancel()
		<-done
		if c, ok := src.(io.Closer); ok {
			c.Close()
		}
		if res == nil {
			return
		}
		res.Telemetry = smp.Telemetry()
		res.Events = append(res.Events, smp.Events()...)
		result.SortEvents(res.Events)
	}
}
