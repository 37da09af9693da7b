package cli

import (
	"io"
	"time"

	"github.com/natsperf/natsperf/internal/latency"
	"github.com/natsperf/natsperf/result"
)

// coordinatedText is how a Result brought back by agents prints: a latency run in
// latency-tests' blocks, as `natsperf latency` prints a local run, anything else in nats
// bench's form (nil).
func coordinatedText(res *result.Result, started time.Time) func(io.Writer, *result.Result) error {
	if res == nil || res.Command != "latency" {
		return nil
	}
	return func(w io.Writer, res *result.Result) error { return latency.WriteResult(w, res, started, 0) }
}
