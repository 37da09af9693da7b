package latency

import (
	"encoding/json"
	"io"
	"time"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/result"
)

// settings are the figures the report needs from a Result's settings: natsperf-rust writes
// them at the top level, natsperf's engine under workload; both with the server round trips
// (a Result without them prints n/a).
type settings struct {
	Size     int64         `json:"size"`
	Rate     float64       `json:"rate"`
	Duration time.Duration `json:"duration"`
	PubRTT   *int64        `json:"pub_rtt_ns"`
	SubRTT   *int64        `json:"sub_rtt_ns"`
	// LastSent is when the publisher sent its last message (natsperf's engine writes it;
	// without it the report takes the last slot's start).
	LastSent int64     `json:"last_sent_unix_ns"`
	Workload *settings `json:"workload"`
}

// WriteResult writes a latency Result in latency-tests' blocks and the run's tail, for a local
// run and for one brought back by agents alike. The first send's wall time counts from started
// (the command's start; zero or later than the run's start means the run's start). offered is
// the rate the schedule offered on average (a shaped run's differs from its settings' rate);
// 0 takes the settings' rate.
func WriteResult(w io.Writer, res *result.Result, started time.Time, offered float64) error {
	var s settings
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
	if offered <= 0 {
		offered = s.Rate
	}
	var lastSent time.Time
	if s.LastSent > 0 {
		lastSent = time.Unix(0, s.LastSent)
	}
	rep := FromResult(res, started, lastSent, rtt(s.PubRTT), rtt(s.SubRTT), s.Size, s.Duration, offered)
	if err := rep.Write(w); err != nil {
		return err
	}
	return report.Tail(w, res)
}
