package cli

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/result"
)

// trickle publishes stamped messages on subject, a few hundred a second, until the returned
// stop is called or the server goes away: messages are flowing whenever the test kills it.
func trickle(t *testing.T, url, subject string) (stop func()) {
	t.Helper()
	nc, err := nats.Connect(url, nats.MaxReconnects(0))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		buf := stamp.Payload(32)
		tick := time.NewTicker(2 * time.Millisecond)
		defer tick.Stop()
		for seq := uint64(1); ; seq++ {
			select {
			case <-done:
				return
			case <-tick.C:
			}
			stamp.Put(buf, 77, seq, time.Now().UnixNano())
			if nc.Publish(subject, buf) != nil {
				return
			}
		}
	}()
	var once sync.Once
	stop = func() { once.Do(func() { close(done); wg.Wait(); nc.Close() }) }
	t.Cleanup(stop)
	return stop
}

// TestServerKilledDuringSubFails: with the default idle timeout (3s), shorter than the default
// connect timeout (5s), a subscriber whose server is killed used to end as "idle", exit 0.
// A lost connection is a failure whatever the idle timeout.
func TestServerKilledDuringSubFails(t *testing.T) {
	s := startServer(t, nil)
	file := filepath.Join(t.TempDir(), "r.json")
	done := make(chan cliRun, 1)
	go func() {
		done <- run(context.Background(), t, nil, "sub", "killed", "-s", s.ClientURL(), "--msgs", "1000000", "--size", "32", "-o", file)
	}()
	waitForSubs(t, s, "killed", 1)
	trickle(t, s.ClientURL(), "killed")
	natstest.Eventually(t, 20*time.Second, 10*time.Millisecond, func() error {
		if v, err := s.Varz(nil); err != nil || v.OutMsgs <= 100 {
			return fmt.Errorf("waiting for messages to flow (varz %v)", err)
		}
		return nil
	})
	s.Shutdown()
	_, took := failsAfterKill(t, done, 30*time.Second, "subscriber")
	res, err := result.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop.Reason != result.StopFailed || !strings.Contains(res.Stop.Error, "connection") || res.Groups[0].Aggregate.Msgs == 0 {
		t.Fatalf("stop %+v, msgs %d", res.Stop, res.Groups[0].Aggregate.Msgs)
	}
	// It fails once the connection is given up: the connect timeout (5s), not much later.
	if took > 5*time.Second+5*time.Second {
		t.Fatalf("took %v after the server died", took)
	}
}

// TestServerKilledDuringJSConsume: a consumer whose server is killed fails (not idle) within
// the connect timeout, and the stream state read after the run does not wait 10s on the dead
// connection.
func TestServerKilledDuringJSConsume(t *testing.T) {
	s := startServer(t, nil)
	js := natstest.JetStream(t, s.ClientURL())
	userStream(t, js, "ORDERS", "orders", 0)
	file := filepath.Join(t.TempDir(), "r.json")
	done := make(chan cliRun, 1)
	go func() {
		done <- run(context.Background(), t, nil, at(s, "js", "consume", "--stream", "ORDERS", "--deliver", "new", "--msgs", "1000000", "--connect-timeout", "2s", "-o", file)...)
	}()
	trickle(t, s.ClientURL(), "orders")
	natstest.Eventually(t, 30*time.Second, 10*time.Millisecond, func() error {
		st, err := js.Stream(context.Background(), "ORDERS")
		if err != nil {
			return err
		}
		for ci := range st.ListConsumers(context.Background()).Info() {
			if ci.Delivered.Stream > 100 {
				return nil
			}
		}
		return errors.New("waiting for the consumer to receive")
	})
	s.Shutdown()
	_, took := failsAfterKill(t, done, 40*time.Second, "consumer")
	if took > 2*time.Second+6*time.Second { // 12s before: 10s more on the dead connection
		t.Fatalf("took %v after the server died, with --connect-timeout 2s", took)
	}
	res, err := result.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop.Reason != result.StopFailed || res.Groups[0].Aggregate.Msgs == 0 {
		t.Fatalf("stop %+v, msgs %d", res.Stop, res.Groups[0].Aggregate.Msgs)
	}
}

// TestServerStartsLate: a server that comes up 2s after natsperf started is waited for (the
// first connect is retried until --connect-timeout), and the wait is said once on stderr.
func TestServerStartsLate(t *testing.T) {
	addr := freePort(t)
	var port int
	if _, err := fmt.Sscanf(addr[strings.LastIndex(addr, ":")+1:], "%d", &port); err != nil {
		t.Fatal(err)
	}
	srv, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: port, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	time.AfterFunc(2*time.Second, srv.Start) // the scenario: the server starts after natsperf
	start := time.Now()
	r := run(context.Background(), t, nil, "pub", "late", "--msgs", "1000", "--size", "32", "-s", "nats://"+addr, "--connect-timeout", "20s")
	if r.code != 0 || !strings.Contains(r.out, "publisher stats") {
		t.Fatalf("exit %d\nout %s\nerr %s", r.code, r.out, r.err)
	}
	if n := strings.Count(r.err, "retrying"); n != 1 {
		t.Fatalf("stderr says %d times that it retries, want once:\n%s", n, r.err)
	}
	if took := time.Since(start); took < 2*time.Second {
		t.Fatalf("ran in %v, before the server was up", took)
	}
}

// failsAfterKill waits (at most bound) for a run whose server was just shut down, checks that
// it failed (exit 1) and returns it with how long after the kill it ended.
func failsAfterKill(t *testing.T, done <-chan cliRun, bound time.Duration, what string) (cliRun, time.Duration) {
	t.Helper()
	killed := time.Now()
	var r cliRun
	select {
	case r = <-done:
	case <-time.After(bound):
		t.Fatalf("%s still running %v after its server died", what, bound)
	}
	if r.code != exitFailed {
		t.Fatalf("exit %d, want %d (failed)\nout %s\nerr %s", r.code, exitFailed, r.out, r.err)
	}
	return r, time.Since(killed)
}
