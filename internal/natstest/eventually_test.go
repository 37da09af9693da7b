package natstest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
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

func TestWaitForNamesWhatItWaitedFor(t *testing.T) {
	calls := 0
	WaitFor(t, 10*time.Second, "the third call", func() bool { calls++; return calls == 3 })
	if calls != 3 {
		t.Fatalf("ok called %d times, want 3", calls)
	}
	ft := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		WaitFor(ft, 50*time.Millisecond, "the never-true", func() bool { return false })
	}()
	<-done
	if !strings.Contains(ft.msg, "waiting for the never-true") {
		t.Fatalf("failure %q does not name what it waited for", ft.msg)
	}
}

// fatalRecorder records Fatalf instead of failing the real test.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Helper() {}
func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}
