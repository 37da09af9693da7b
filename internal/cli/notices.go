package cli

import (
	"fmt"

	"github.com/natsperf/natsperf/internal/cmdline"
)

// notices writes the command line's notices (flags accepted for nats bench's command lines
// that change nothing here) to stderr, one line each, before anything runs.
func (a *app) notices(l *cmdline.Line) {
	for _, n := range l.Notices {
		fmt.Fprintf(a.streams.Err, "natsperf: %s\n", n)
	}
}
