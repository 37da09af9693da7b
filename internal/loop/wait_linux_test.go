package loop

import (
	"runtime"
	"sync/atomic"
	"testing"
	"time"
)

// TestFineTimerWakesAndReArms: the pacer's timerfd ends a sleep at its time (its Go timer
// backstop at most monitorLead before), a Reset from another goroutine ends a longer sleep
// early (a kick), and a kick that came before the arming ends it at once.
func TestFineTimerWakesAndReArms(t *testing.T) {
	var kick atomic.Bool
	ft, err := newFineTimer(func() bool { return kick.Swap(false) })
	if err != nil {
		t.Fatal(err)
	}
	defer ft.Close()
	for range 3 { // the timer re-arms: a sleep after a sleep keeps its own time
		start := time.Now()
		if err := ft.Sleep(3 * time.Millisecond); err != nil {
			t.Fatal(err)
		}
		if d := time.Since(start); d < 3*time.Millisecond-monitorLead || d > 5*time.Second {
			t.Fatalf("a 3ms sleep took %v", d)
		}
	}
	start := time.Now()
	go func() { time.Sleep(5 * time.Millisecond); ft.Reset(0) }()
	if err := ft.Sleep(time.Hour); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 5*time.Millisecond || d > 30*time.Second {
		t.Fatalf("a kicked sleep ended after %v", d)
	}
	kick.Store(true)
	start = time.Now()
	if err := ft.Sleep(time.Hour); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 30*time.Second {
		t.Fatalf("a sleep kicked before its arming ended after %v", d)
	}
	// A busy Go processor polls the network seldom: the Go timer backing the sleep ends it too.
	start = time.Now()
	if err := ft.sleep(time.Hour, start.Add(5*time.Millisecond)); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 5*time.Millisecond || d > 30*time.Second {
		t.Fatalf("a sleep backed by a 5ms Go timer ended after %v", d)
	}
	runtime.KeepAlive(ft)
}

// TestFineTimerSleepAllocatesNothing: the pacer sleeps once per wake-up, so its sleep is on
// the hot path (no allocation per message or wake-up).
func TestFineTimerSleepAllocatesNothing(t *testing.T) {
	ft, err := newFineTimer(func() bool { return false })
	if err != nil {
		t.Fatal(err)
	}
	defer ft.Close()
	if n := testing.AllocsPerRun(50, func() {
		if err := ft.Sleep(300 * time.Microsecond); err != nil {
			t.Fatal(err)
		}
	}); n != 0 {
		t.Fatalf("a sleep allocates %.1f times", n)
	}
}
