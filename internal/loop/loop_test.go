package loop

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/record"
)

func TestUntilLandsOnTimeNotEarly(t *testing.T) {
	clk := record.NewClock()
	timer := NewTimer()
	for _, ahead := range []time.Duration{0, 30 * time.Microsecond, 500 * time.Microsecond, 5 * time.Millisecond} {
		at := clk.Now() + int64(ahead)
		now, err := Until(context.Background(), timer, clk, at)
		if err != nil || now < at {
			t.Fatalf("Until(+%v) ended at %d, %dns early (err %v)", ahead, now, at-now, err)
		}
		if late := time.Duration(now - at); late > 20*time.Millisecond {
			t.Errorf("Until(+%v) overshot by %v", ahead, late)
		}
	}
}

func TestSleepEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	err := Sleep(ctx, NewTimer(), time.Hour)
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("Sleep returned %v after %v", err, time.Since(start))
	}
	stopped, release := StopFlag(ctx)
	defer release()
	deadline := time.Now().Add(5 * time.Second) // the flag is set by a goroutine of its own
	for !stopped.Load() && time.Now().Before(deadline) {
		time.Sleep(time.Millisecond)
	}
	if !stopped.Load() {
		t.Fatal("stop flag not set for a cancelled context")
	}
}

func TestSubjects(t *testing.T) {
	if got := Subjects("foo", 3); !slices.Equal(got, []string{"foo.0", "foo.1", "foo.2"}) {
		t.Errorf("Subjects = %v", got)
	}
	for in, want := range map[string]string{"foo": "foo.>", "foo.>": "foo.>"} {
		if got := Wildcard(in); got != want {
			t.Errorf("Wildcard(%q) = %q, want %q", in, got, want)
		}
	}
}
