// Package loop holds what every workload's send loop shares: a stop flag cheap enough to poll
// per message, interruptible sleeps, precise waits towards a fixed-rate schedule, and the
// subject list of multi-subject publishers.
package loop

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// StopFlag turns a context into a flag a hot loop polls for the price of a load. Call the
// returned function to release the context hook.
func StopFlag(ctx context.Context) (*atomic.Bool, func() bool) {
	var stopped atomic.Bool
	release := context.AfterFunc(ctx, func() { stopped.Store(true) })
	return &stopped, release
}

// Sleep sleeps d unless ctx ends first, reusing t (made by NewTimer).
func Sleep(ctx context.Context, t *time.Timer, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t.Reset(d)
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		if !t.Stop() {
			<-t.C
		}
		return ctx.Err()
	}
}

// NewTimer returns a stopped timer for Sleep and Toward.
func NewTimer() *time.Timer {
	t := time.NewTimer(time.Hour)
	t.Stop()
	return t
}

// Subjects is what a multi-subject publisher cycles through: SUBJECT.0 ... SUBJECT.(n-1),
// built once so the hot loop formats nothing.
func Subjects(subject string, n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = subject + "." + strconv.Itoa(i)
	}
	return out
}

// Wildcard is what a multi-subject receiver subscribes to.
func Wildcard(subject string) string {
	if strings.HasSuffix(subject, ">") {
		return subject
	}
	return subject + ".>"
}
