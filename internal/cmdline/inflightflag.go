package cmdline

import (
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/spec"
)

// maxInflightHelp is --max-inflight's help, the same on service request, js pub sync and kv put.
const maxInflightHelp = "with --rate: at most this many operations awaiting answers across the clients; each is sent at its time whether or not earlier ones were answered (the open model; default rate x twice the tightest --slo latency threshold, else rate x 1s, at most 100,000)"

// registerMaxInflight adds --max-inflight to a command whose operations await answers.
func registerMaxInflight(f *pflag.FlagSet, n *int) {
	f.IntVar(n, "max-inflight", 0, maxInflightHelp)
}

// withMaxInflight puts --max-inflight, when given, into s's workload; spec.Validate checks it.
func withMaxInflight(s *spec.Spec, f *pflag.FlagSet, n int) *spec.Spec {
	if f.Changed("max-inflight") {
		s.Workloads[0].Pacing.MaxInflight = n
		if n == 0 {
			s.Workloads[0].Pacing.MaxInflight = -1 // refused: 0 means the default in a Spec
		}
	}
	return s
}
