// Package runopts holds what natsperf's own command line gives runner.Run beyond the public
// runner.Options (the run itself, its connection included, is the Spec): the connection flags
// that reach the agents' control server, where notices
// and start lines go, progress bars, the --hist echo, a scenario cell's labels, and a hook
// told when the run is prepared (its text layout, for the command line's render).
package runopts

import (
	"io"
	"time"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/result"
)

// CLI are the command line's settings of one run; the zero value is runner.Options' own.
type CLI struct {
	// Env is where NATS_URL and nats contexts are read from.
	Env connect.Env
	// Warn receives one-line notices (embedded server started, retries, the coordinator's
	// steps); nil: discarded.
	Warn io.Writer
	// Logf prints the start lines; nil prints nothing.
	Logf func(format string, args ...any)
	// Progress shows live progress (bars per client, or per agent); nil shows nothing.
	Progress harness.Progress
	// Flags are the command line's connection flags: the agents' control server is reached
	// with them, its server replaced by runner.Options.Control.
	Flags *connect.Settings
	// Hist is echoed in the Result's settings (--hist).
	Hist string
	// Title and Settings label a run of several workloads (a scenario cell): Title replaces
	// "natsperf run NAME" (local runs), Settings' entries join the Result's settings.
	Title    string
	Settings map[string]any
	// Starting, when set, is told once the run is about to start.
	Starting func(Starting)
}

// Starting is what the command line learns of a run about to start.
type Starting struct {
	// Interval is the width the series is sliced at.
	Interval time.Duration
	// Text is the kind's own text layout (latency's), nil for nats bench's form.
	Text func(w io.Writer, res *result.Result) error
	// Embedded says the run's clients load an embedded server started for this run (only
	// for runs in this process); Command is the kind run.
	Embedded bool
	Command  string
}
