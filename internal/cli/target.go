package cli

import "github.com/natsperf/natsperf/internal/engine"

// target is where a run's clients connect (internal/engine resolves it).
type target = engine.Target
