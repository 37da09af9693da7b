package link

import (
	"bufio"
	"io"
	"net"
	"slices"
	"testing"
	"time"
)

// echo serves an upstream that writes back every line it reads.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); _, _ = io.Copy(c, c) }()
		}
	}()
	return ln.Addr().String()
}

func open(t *testing.T, c Conditions) (*Link, net.Conn) {
	t.Helper()
	l, err := Open(t.Name(), "127.0.0.1:0", echo(t), c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(l.Close)
	conn, err := net.DialTimeout("tcp", l.Addr(), 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return l, conn
}

// pingPong times n round trips of one line through conn.
func pingPong(t *testing.T, conn net.Conn, n int) []time.Duration {
	t.Helper()
	r := bufio.NewReader(conn)
	rtts := make([]time.Duration, 0, n)
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	for range n {
		start := time.Now()
		if _, err := conn.Write([]byte("ping\n")); err != nil {
			t.Fatal(err)
		}
		if _, err := r.ReadString('\n'); err != nil {
			t.Fatal(err)
		}
		rtts = append(rtts, time.Since(start))
	}
	slices.Sort(rtts)
	return rtts
}

// TestDelayPingPong measures a link's delay with its own ping-pong: a round trip crosses the
// link twice, so it takes at least twice the one-way delay (physics); the fastest of 20 is
// within 10% of that (plus what a busy host may add to all of them).
func TestDelayPingPong(t *testing.T) {
	const delay = 10 * time.Millisecond
	l, conn := open(t, Conditions{Delay: delay})
	rtts := pingPong(t, conn, 20)
	median := rtts[len(rtts)/2]
	t.Logf("round trips through a %s link: min %s median %s max %s", delay, rtts[0], median, rtts[len(rtts)-1])
	if rtts[0] < 2*delay {
		t.Fatalf("fastest round trip %s is shorter than two crossings of a %s link", rtts[0], delay)
	}
	// The fastest round trip is the link's own measure (a busy host only adds to it): within
	// 10% of two crossings, plus a margin for a host that delayed every one of them.
	if rtts[0] > 2*delay*11/10+10*time.Millisecond {
		t.Fatalf("fastest round trip %s is far above 2 x %s", rtts[0], delay)
	}

	// Set changes the delay of an open connection.
	if err := l.Set(Conditions{}); err != nil {
		t.Fatal(err)
	}
	if fast := pingPong(t, conn, 5); fast[0] >= 2*delay {
		t.Fatalf("after Set(no delay) the fastest round trip is still %s", fast[0])
	}
}

// TestCutHeal holds bytes during a cut and delivers them, in order, after the heal.
func TestCutHeal(t *testing.T) {
	l, conn := open(t, Conditions{})
	pingPong(t, conn, 1) // connected end to end
	if err := l.Cut(); err != nil {
		t.Fatal(err)
	}
	if _, err := conn.Write([]byte("a\nb\n")); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
	buf := make([]byte, 16)
	if n, err := conn.Read(buf); err == nil {
		t.Fatalf("read %q through a cut link", buf[:n])
	}
	if !l.IsCut() {
		t.Fatal("IsCut is false after Cut")
	}
	if err := l.Heal(); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(io.LimitReader(conn, 4))
	if err != nil || string(got) != "a\nb\n" {
		t.Fatalf("after heal read %q, %v; want the held bytes in order", got, err)
	}
}

// TestBandwidth caps a direction: 3,000 bytes at 2,000 bytes/s take at least a second.
func TestBandwidth(t *testing.T) {
	_, conn := open(t, Conditions{Bandwidth: 2000})
	start := time.Now()
	if _, err := conn.Write(make([]byte, 3000)); err != nil {
		t.Fatal(err)
	}
	_ = conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	if _, err := io.ReadFull(conn, make([]byte, 3000)); err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took < time.Second {
		t.Fatalf("3000 bytes through a 2000 B/s link took %s", took)
	}
}

func TestCheck(t *testing.T) {
	for _, c := range []Conditions{{Delay: -1}, {Delay: time.Millisecond, Jitter: 2 * time.Millisecond}, {Bandwidth: 10}} {
		if c.Check() == nil {
			t.Errorf("%+v accepted", c)
		}
	}
	if err := (Conditions{Delay: time.Millisecond, Jitter: time.Millisecond, Bandwidth: 1000}).Check(); err != nil {
		t.Error(err)
	}
}
