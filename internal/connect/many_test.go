package connect

import (
	"context"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slowRelay forwards 127.0.0.1 connections to a real server, holding back the server's first
// bytes (its INFO) for delay, so every handshake takes at least delay. It reports the most
// connections that were waiting for their INFO at once.
func slowRelay(t *testing.T, target string, delay time.Duration) (addr string, most func() int64) {
	t.Helper()
	var waiting, peak atomic.Int64
	addr = listener(t, func(c net.Conn) {
		defer c.Close()
		s, err := net.Dial("tcp", target)
		if err != nil {
			return
		}
		defer s.Close()
		n := waiting.Add(1)
		for p := peak.Load(); n > p && !peak.CompareAndSwap(p, n); p = peak.Load() {
		}
		time.Sleep(delay) // the server answering slowly, as one flooded with connects does
		waiting.Add(-1)
		go func() { _, _ = io.Copy(s, c); s.Close() }()
		_, _ = io.Copy(c, s)
	})
	return addr, peak.Load
}

// TestManyConnectsAreBounded: a process opening far more connections at once than a server
// answers promptly opens them a bounded number at a time, each within its own timeout, and all
// succeed (10,000 at once used to fail with "no NATS handshake within 5s").
func TestManyConnectsAreBounded(t *testing.T) {
	srv := startServer(t, nil)
	addr, most := slowRelay(t, hostPort(srv), 200*time.Millisecond)
	const n = 8 * handshakeSlots
	// Each attempt alone takes ~200ms, the last ones wait ~1.4s for a slot: the timeout is
	// each attempt's own, not the queue's.
	s := Settings{Servers: "nats://" + addr, ConnectTimeout: time.Second}
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, err := Connect(context.Background(), s, "many")
			if err == nil {
				nc.Close()
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("connects failed: %v", strings.SplitN(err.Error(), "\n", 2)[0])
	}
	if got := most(); got > handshakeSlots || got < 1 {
		t.Fatalf("%d handshakes in progress at once, want 1..%d", got, handshakeSlots)
	}
}

// TestManyConnectsFailingSayWhy: when connects fail while more of the process's connects wait
// for a slot, the error says so and suggests fewer clients or a longer timeout, instead of
// only "not a NATS server" or a handshake timeout.
func TestManyConnectsFailingSayWhy(t *testing.T) {
	silent := listener(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }) // accepts, never answers
	s := Settings{Servers: "nats://" + silent, ConnectTimeout: 200 * time.Millisecond}
	const n = 2 * handshakeSlots
	var wg sync.WaitGroup
	var hinted, failed atomic.Int64
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			nc, err := Connect(context.Background(), s, "many")
			if err == nil {
				nc.Close()
				return
			}
			failed.Add(1)
			if strings.Contains(err.Error(), "were waiting to connect") && strings.Contains(err.Error(), "--connect-timeout") {
				hinted.Add(1)
			}
		}()
	}
	wg.Wait()
	if failed.Load() != n || hinted.Load() == 0 {
		t.Fatalf("%d of %d failed, %d of them naming the connects waiting behind", failed.Load(), n, hinted.Load())
	}
}
