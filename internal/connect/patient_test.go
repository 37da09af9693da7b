package connect

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// TestConnectPatientlyWaitsForALateServer: the server starts 1.5s after the first attempt;
// the connect succeeds, and the refusal is reported once.
func TestConnectPatientlyWaitsForALateServer(t *testing.T) {
	addr := refusedAddr(t)
	host, portText, _ := net.SplitHostPort(addr)
	port, _ := strconv.Atoi(portText)
	srv, err := server.NewServer(&server.Options{Host: host, Port: port, NoSigs: true, NoLog: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(srv.Shutdown)
	time.AfterFunc(1500*time.Millisecond, srv.Start)
	var notes atomic.Int32
	start := time.Now()
	nc, err := ConnectPatiently(context.Background(), Settings{Servers: "nats://" + addr, ConnectTimeout: 20 * time.Second}, "late",
		func(err error) {
			if !errors.Is(err, syscall.ECONNREFUSED) {
				t.Errorf("notified of %v, want a refusal", err)
			}
			notes.Add(1)
		})
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer nc.Close()
	if took := time.Since(start); took < time.Second {
		t.Fatalf("connected after %v, before the server started", took)
	}
	if n := notes.Load(); n != 1 {
		t.Fatalf("notified %d times, want once", n)
	}
}

// TestConnectPatientlyGivesUp: nothing ever listens; the connect fails within the timeout
// (plus slack) with one line naming the refusal and the time spent.
func TestConnectPatientlyGivesUp(t *testing.T) {
	addr := refusedAddr(t)
	start := time.Now()
	_, err := ConnectPatiently(context.Background(), Settings{Servers: "nats://" + addr, ConnectTimeout: 700 * time.Millisecond}, "never", nil)
	took := time.Since(start)
	if err == nil || !errors.Is(err, syscall.ECONNREFUSED) || !strings.Contains(err.Error(), "refused") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err %v", err)
	}
	if !strings.Contains(err.Error(), "retried for") {
		t.Fatalf("err %q does not say it retried", err)
	}
	if took < 600*time.Millisecond || took > 700*time.Millisecond+3*time.Second {
		t.Fatalf("gave up after %v with a 700ms connect timeout", took)
	}
}

// TestConnectPatientlyDoesNotRetryAuth: a permanent failure is not retried.
func TestConnectPatientlyDoesNotRetryAuth(t *testing.T) {
	srv := startServer(t, &server.Options{Authorization: "tok-Secret-9"})
	start := time.Now()
	_, err := ConnectPatiently(context.Background(), Settings{Servers: srv.ClientURL(), ConnectTimeout: 10 * time.Second}, "auth", func(error) { t.Error("notified of a retry") })
	if err == nil || time.Since(start) > 5*time.Second {
		t.Fatalf("err %v after %v", err, time.Since(start))
	}
}
