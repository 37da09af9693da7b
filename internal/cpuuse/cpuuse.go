// Package cpuuse measures the CPU time the natsperf process spends, from getrusage: user
// plus system seconds are steady on a shared machine where wall-clock rates are not, and
// they show when the client, not the server, is the bottleneck.
package cpuuse

import (
	"runtime"
	"time"

	"github.com/natsperf/natsperf/result"
)

// Saturation is the share of all its cores above which the process is said to have been
// the bottleneck.
const Saturation = 0.9

// Sample is the process's CPU time so far and when it was read.
type Sample struct {
	User, Sys time.Duration
	At        time.Time
}

// Now reads the process's CPU time.
func Now() Sample {
	u, s := usage()
	return Sample{User: u, Sys: s, At: time.Now()}
}

// Since is what the process spent from s to now, with msgs, the messages its clients
// handled (sent plus received) meanwhile.
func Since(s Sample, msgs int64) *result.CPU {
	now := Now()
	user, sys, wall := now.User-s.User, now.Sys-s.Sys, now.At.Sub(s.At)
	c := &result.CPU{
		UserSeconds: user.Seconds(),
		SysSeconds:  sys.Seconds(),
		Seconds:     (user + sys).Seconds(),
		WallSeconds: wall.Seconds(),
		Cores:       runtime.GOMAXPROCS(0),
		Msgs:        msgs,
	}
	if wall > 0 {
		c.CoreShare = c.Seconds / wall.Seconds() / float64(c.Cores)
	}
	if c.Seconds > 0 {
		c.MsgsPerCPUSecond = float64(msgs) / c.Seconds
	}
	c.Saturated = c.CoreShare > Saturation
	return c
}
