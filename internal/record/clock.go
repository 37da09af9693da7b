// Package record is what each benchmark client writes into while it runs: counts, bytes, its
// first and last times, latency histograms, sequence tracking and a per-interval series. One
// Recorder belongs to one client goroutine, so the hot path takes no lock and allocates nothing;
// the runner merges recorders once the clients are done.
package record

import "time"

// Clock gives every client of a run the same time base. Now costs one monotonic clock read,
// cheaper than time.Now, and returns Unix nanoseconds so stamps compare across processes on a
// host (and across hosts whose clocks are synchronised).
type Clock struct {
	start     time.Time
	startWall int64
}

// NewClock starts a clock now.
func NewClock() Clock {
	now := time.Now()
	return Clock{start: now, startWall: now.UnixNano()}
}

// Now returns the current time in Unix nanoseconds.
func (c Clock) Now() int64 { return c.startWall + int64(time.Since(c.start)) }

// Start is when the clock was created, in Unix nanoseconds.
func (c Clock) Start() int64 { return c.startWall }

// Time converts a Clock reading to a time.Time.
func Time(ns int64) time.Time {
	if ns == 0 {
		return time.Time{}
	}
	return time.Unix(0, ns).UTC()
}
