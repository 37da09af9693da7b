package embedded

import (
	"bufio"
	"net"
	"testing"
	"time"
)

func TestRouteSender(t *testing.T) {
	t.Parallel()
	tests := []struct {
		line, want string
	}{
		{`CONNECT {"echo":true,"name":"NBXYZ","cluster":"natsperf"}` + "\r\n", "NBXYZ"},
		{`CONNECT {"name":"A"}`, "A"},
		{`INFO {"name":"A"}` + "\r\n", ""},
		{`CONNECT {broken` + "\r\n", ""},
		{"", ""},
	}
	for _, tt := range tests {
		if got := routeSender([]byte(tt.line)); got != tt.want {
			t.Errorf("routeSender(%q) = %q, want %q", tt.line, got, tt.want)
		}
	}
}

func TestGate(t *testing.T) {
	t.Parallel()
	t.Run("reopens after the pause", func(t *testing.T) {
		t.Parallel()
		g := newGate()
		g.pause(50 * time.Millisecond)
		if !g.paused() {
			t.Fatal("not paused")
		}
		begin := time.Now()
		if !g.wait(nil) || time.Since(begin) < 40*time.Millisecond {
			t.Fatalf("wait returned after %s", time.Since(begin))
		}
	})
	t.Run("an old timer does not end a later pause", func(t *testing.T) {
		t.Parallel()
		g := newGate()
		g.pause(20 * time.Millisecond)
		g.resume()
		g.pause(time.Minute)
		time.Sleep(60 * time.Millisecond)
		if !g.paused() {
			t.Fatal("first pause's timer reopened the gate")
		}
		g.resume()
		if g.paused() {
			t.Fatal("still paused after resume")
		}
	})
	t.Run("wait gives up when done closes", func(t *testing.T) {
		t.Parallel()
		g := newGate()
		g.pause(time.Minute)
		done := make(chan struct{})
		close(done)
		if g.wait(done) {
			t.Fatal("wait reported an open gate")
		}
	})
}

// TestProxyStallsBothEnds checks the route proxy of node "own": a pipe
// whose CONNECT names node "peer" stalls when either node is paused.
func TestProxyStallsBothEnds(t *testing.T) {
	t.Parallel()
	backLn, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer backLn.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		if c, err := backLn.Accept(); err == nil {
			accepted <- c
		}
	}()

	own, peer := newGate(), newGate()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := newProxy(ln, own, func() string { return backLn.Addr().String() }, func(id string) *gate {
		if id == "PEER" {
			return peer
		}
		return nil
	})
	defer p.stop()

	front, err := net.Dial("tcp", p.addr)
	if err != nil {
		t.Fatal(err)
	}
	defer front.Close()
	back := <-accepted
	defer back.Close()
	frontR, backR := lines(front), lines(back)

	send(t, front, "CONNECT {\"name\":\"PEER\"}\r\n")
	expect(t, backR, "CONNECT {\"name\":\"PEER\"}\r\n")

	for _, tt := range []struct {
		name string
		g    *gate
	}{{"connecting node paused", peer}, {"accepting node paused", own}} {
		tt.g.pause(time.Minute)
		send(t, front, "PUB\r\n")
		send(t, back, "MSG\r\n")
		silent(t, backR, tt.name)
		silent(t, frontR, tt.name)
		tt.g.resume()
		expect(t, backR, "PUB\r\n")
		expect(t, frontR, "MSG\r\n")
	}

	// Killing the paused peer must not leave its pipe hanging at the gate.
	peer.pause(time.Minute)
	p.dropOrigin(peer)
	front.SetReadDeadline(time.Now().Add(2 * time.Second))
	if _, err := front.Read(make([]byte, 1)); err == nil || isTimeout(err) {
		t.Fatalf("pipe of a dropped origin still open: %v", err)
	}

	p.stop()
	if c, err := net.DialTimeout("tcp", p.addr, time.Second); err == nil {
		c.Close()
		t.Fatal("stopped proxy still accepts connections")
	}
}

func lines(c net.Conn) <-chan string {
	ch := make(chan string, 16)
	go func() {
		r := bufio.NewReader(c)
		for {
			s, err := r.ReadString('\n')
			if err != nil {
				close(ch)
				return
			}
			ch <- s
		}
	}()
	return ch
}

func send(t *testing.T, c net.Conn, s string) {
	t.Helper()
	if _, err := c.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
}

func expect(t *testing.T, ch <-chan string, want string) {
	t.Helper()
	select {
	case got := <-ch:
		if got != want {
			t.Fatalf("got %q, want %q", got, want)
		}
	case <-time.After(2 * time.Second):
		t.Fatalf("no %q within 2s", want)
	}
}

// silent asserts that nothing arrives for a while; there is no event to
// wait for when the point is that nothing happens.
func silent(t *testing.T, ch <-chan string, why string) {
	t.Helper()
	select {
	case got := <-ch:
		t.Fatalf("%s: %q got through", why, got)
	case <-time.After(100 * time.Millisecond):
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}
