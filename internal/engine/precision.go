package engine

import (
	"time"

	"github.com/natsperf/natsperf/internal/loop"
	"github.com/natsperf/natsperf/spec"
)

// pacePrecision is the pacing precision a run of s paces at: its pace_precision, or
// natsperf's default. It reaches the senders as a value (harness.Runner.PacePrecision, each
// client's loop.Waiter), so concurrent runs in one process each pace at their own.
func pacePrecision(s *spec.Spec) time.Duration {
	if d := s.PacePrecision.D(); d > 0 {
		return d
	}
	return loop.DefaultPrecision
}
