package natstest

import (
	"errors"
	"runtime"
	"testing"
	"time"
)

func TestEventuallySucceedsOnceTheConditionHolds(t *testing.T) {
	calls := 0
	Eventually(t, 10*time.Second, time.Millisecond, func() error {
		if calls++; calls < 3 {
			return errors.New("not yet")
		}
		return nil
	})
	if calls != 3 {
		t.Fatalf("%d calls, want 3: it must stop at the first success", calls)
	}
}

func TestEventuallyFailsAfterTheTimeout(t *testing.T) {
	ft := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() { // Fatalf ends the goroutine, as it ends a test
		defer close(done)
		Eventually(ft, 50*time.Millisecond, 5*time.Millisecond, func() error { return errors.New("never") })
	}()
	<-done
	if ft.msg == "" {
		t.Fatal("a condition that never holds did not fail the test")
	}
}

// fatalRecorder records Fatalf instead of failing the real test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}
func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = format
	runtime.Goexit()
}
