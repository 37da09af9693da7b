package runner

import (
	"io"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/result"
)

// The Result's types, its JSON codec (result.Write, result.Read) and Merge live in package
// result; these are the text renderers, which need natsperf's report code.

// WriteText writes res as natsperf prints it: nats bench's form (the latency command's own
// layout needs the live run; this is the common one), then the stop line.
func WriteText(w io.Writer, res *result.Result) error { return report.Text(w, res) }

// OneLine is res in one line: the measured group's rate and latency, and the stop reason.
func OneLine(res *result.Result) string { return report.OneLine(res) }
