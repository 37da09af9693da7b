// Package loop holds what every workload's send loop shares: a stop flag cheap enough to poll
// per message, interruptible sleeps, precise waits towards a fixed-rate schedule, and the
// subject list of multi-subject publishers.
package loop

import (
	"context"
	"math/rand/v2"
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

// SubjectAt is the subject of message i: the next one of subjects in turn, or with random a
// random one (nats bench --multisubjectrandomize), drawn without a lock or an allocation.
// With no subjects it is subject.
func SubjectAt(subject string, subjects []string, i int64, random bool) string {
	switch {
	case subjects == nil:
		return subject
	case random:
		return subjects[rand.IntN(len(subjects))]
	}
	return subjects[i%int64(len(subjects))]
}

// SubjectCount is how many subjects a multi-subject publisher with share messages needs: max,
// or fewer when it sends fewer messages in turn.
func SubjectCount(most int, share int64, random bool) int {
	n := max(most, 1)
	if !random && share > 0 && share < int64(n) {
		n = int(share)
	}
	return n
}

// Wildcard is what a multi-subject receiver subscribes to.
func Wildcard(subject string) string {
	if strings.HasSuffix(subject, ">") {
		return subject
	}
	return subject + ".>"
}
