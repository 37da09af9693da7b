package report

import (
	"fmt"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/result"
)

// checkResult refuses a Result a report cannot be true to: no groups (unless it failed), a negative count or
// rate, or a latency histogram that does not decode (its percentiles and .hgrm would be empty
// or made up). natsperf never writes such a file; a hand-edited or truncated one does.
func checkResult(path string, res *result.Result) error {
	if len(res.Groups) == 0 {
		if res.Stop.Reason == result.StopFailed {
			return nil // failed before its clients started (setup): listed as failed, in no aggregate
		}
		return fmt.Errorf("%s: the Result has no groups (\"groups\" is missing, null or empty)", path)
	}
	for _, g := range res.Groups {
		where := fmt.Sprintf("%s: group %q", path, g.Name)
		if g.Expected < 0 {
			return fmt.Errorf("%s: negative expected %d", where, g.Expected)
		}
		if err := checkCounts(where, g.Aggregate.Msgs, g.Aggregate.Bytes, g.Aggregate.MsgsPerSec, g.Aggregate.BytesPerSec, g.Aggregate.Latency, g.Aggregate.Correctness, g.Aggregate.Events); err != nil {
			return err
		}
		for _, c := range g.Clients {
			cw := fmt.Sprintf("%s client %d", where, c.ID)
			if c.Expected < 0 {
				return fmt.Errorf("%s: negative expected %d", cw, c.Expected)
			}
			if err := checkCounts(cw, c.Msgs, c.Bytes, c.MsgsPerSec, c.BytesPerSec, c.Latency, c.Correctness, c.Events); err != nil {
				return err
			}
		}
	}
	return nil
}

func checkCounts(where string, msgs, bytes int64, msgRate, byteRate float64, l *result.Latency, c *result.Correctness, e result.Events) error {
	negative := func(name string, v float64) error {
		if v < 0 {
			return fmt.Errorf("%s: negative %s %v", where, name, v)
		}
		return nil
	}
	checks := []struct {
		name string
		v    float64
	}{
		{"msgs", float64(msgs)}, {"bytes", float64(bytes)}, {"msgs_per_sec", msgRate}, {"bytes_per_sec", byteRate},
		{"errors", float64(e.Errors)}, {"timeouts", float64(e.Timeouts)}, {"disconnects", float64(e.Disconnects)},
		{"reconnects", float64(e.Reconnects)}, {"slow_consumers", float64(e.SlowConsumers)}, {"dropped", float64(e.Dropped)},
	}
	if c != nil {
		checks = append(checks, []struct {
			name string
			v    float64
		}{{"received", float64(c.Received)}, {"unstamped", float64(c.Unstamped)}, {"publishers", float64(c.Publishers)},
			{"lost", float64(c.Lost)}, {"duplicated", float64(c.Duplicated)}, {"out_of_order", float64(c.OutOfOrder)}}...)
	}
	for ; l != nil; l = l.Uncorrected {
		checks = append(checks, []struct {
			name string
			v    float64
		}{{"latency count", float64(l.Count)}, {"latency min", float64(l.Min)}, {"latency max", float64(l.Max)}}...)
		if l.Histogram != "" {
			if _, err := histo.Decode(l.Histogram); err != nil {
				return fmt.Errorf("%s: the latency histogram is corrupt: %w", where, err)
			}
		}
	}
	for _, ch := range checks {
		if err := negative(ch.name, ch.v); err != nil {
			return err
		}
	}
	return nil
}
