package cli

import (
	"encoding/json"
	"io"
	"time"

	"github.com/natsperf/natsperf/internal/latency"
	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/result"
)

// coordinatedText is how a Result brought back by agents prints: a latency run in
// latency-tests' blocks, as `natsperf latency` prints a local run, anything else in nats
// bench's form (nil).
func coordinatedText(res *result.Result, started time.Time) func(io.Writer, *result.Result) error {
	if res == nil || res.Command != "latency" {
		return nil
	}
	return func(w io.Writer, res *result.Result) error { return latencyResultText(w, res, started) }
}

// latencySettings are the figures the latency report needs from a Result's settings:
// natsperf-rust writes them at the top level, natsperf's engine under workload; both with the
// server round trips (a Result without them prints n/a).
type latencySettings struct {
	Size     int64            `json:"size"`
	Rate     float64          `json:"rate"`
	Duration time.Duration    `json:"duration"`
	PubRTT   *int64           `json:"pub_rtt_ns"`
	SubRTT   *int64           `json:"sub_rtt_ns"`
	Workload *latencySettings `json:"workload"`
}

// latencyResultText writes a latency Result as latency.Report does for a local run; the first
// send's wall time counts from started, the command's start (else the run's start instant).
func latencyResultText(w io.Writer, res *result.Result, started time.Time) error {
	var s latencySettings
	_ = json.Unmarshal(res.Settings, &s) // a Result that was read back is valid; missing figures print as 0 or n/a
	if s.Workload != nil {
		s = *s.Workload
	}
	rtt := func(ns *int64) time.Duration {
		if ns == nil {
			return -1
		}
		return time.Duration(*ns)
	}
	if started.IsZero() || started.After(res.Start) {
		started = res.Start
	}
	rep := latency.FromResult(res, started, rtt(s.PubRTT), rtt(s.SubRTT), s.Size, s.Duration, s.Rate)
	if err := rep.Write(w); err != nil {
		return err
	}
	return report.Tail(w, res)
}
