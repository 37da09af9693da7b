package report

import (
	"fmt"
	"io"

	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/result"
)

// CPU writes the process's CPU summary (--cpu) when summary is set, and always a warning when
// the process used more than 90% of its cores: the client, not the server, may then have
// limited the run.
func CPU(w io.Writer, r *result.Result, summary bool) error {
	c := r.CPU
	if c == nil {
		return nil
	}
	who, its, server := "natsperf", "its", ""
	if d := r.Distributed; d != nil {
		// The agents' own processes: an embedded server (--client rust without -s) stays in
		// natsperf's, outside their CPU.
		who, its = "the agents", "their"
		if len(d.Agents) == 1 && d.Agents[0].Client == "rust" {
			who, its = "natsperf-rust", "its"
		}
	} else {
		for _, s := range r.Servers {
			if s.Embedded {
				server = " (with the embedded server's)"
				break
			}
		}
	}
	if summary {
		if _, err := fmt.Fprintf(w, "CPU: %.2fs (user %.2fs, sys %.2fs)%s in %.2fs · %.0f%% of %d cores · %s msgs per CPU-second (%s sent + received)\n",
			c.Seconds, c.UserSeconds, c.SysSeconds, server, c.WallSeconds, 100*c.CoreShare, c.Cores,
			units.Comma(int64(c.MsgsPerCPUSecond)), units.Comma(c.Msgs)); err != nil {
			return err
		}
	}
	if c.Saturated {
		_, err := fmt.Fprintf(w, "Warning: %s used %.0f%% of %s %d cores%s: the client, not the server, may have limited this run\n",
			who, 100*c.CoreShare, its, c.Cores, server)
		return err
	}
	return nil
}
