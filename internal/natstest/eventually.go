package natstest

import (
	"errors"
	"testing"
	"time"
)

// Eventually calls f every interval until it returns nil and fails the test with f's last
// error if timeout passes first: nats-server's checkFor. It is the one way natsperf's tests
// wait for a condition, so a loaded machine only makes them slower, never wrong.
func Eventually(t testing.TB, timeout, interval time.Duration, f func() error) {
	t.Helper()
	deadline := time.Now().Add(timeout)
	for {
		err := f()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("still failing after %s: %v", timeout, err)
		}
		time.Sleep(interval)
	}
}

// WaitFor is Eventually for a condition that is true or not: it polls ok every 20 ms and
// fails the test, naming what it waited for, if ok is still false after timeout.
func WaitFor(t testing.TB, timeout time.Duration, what string, ok func() bool) {
	t.Helper()
	Eventually(t, timeout, 20*time.Millisecond, func() error {
		if ok() {
			return nil
		}
		return errors.New("waiting for " + what)
	})
}
