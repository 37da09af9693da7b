package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/natstest"
)

// TestServerAddrAndMonitor: 'server --addr A --http-port M' listens for clients on A only (not
// on 127.0.0.1) and serves /varz there, which counts what a client published.
func TestServerAddrAndMonitor(t *testing.T) {
	const addr = "127.0.0.2" // loopback on Linux, where CI runs
	ln, err := net.Listen("tcp", addr+":0")
	if err != nil {
		t.Skipf("cannot listen on %s here: %v", addr, err)
	}
	httpPort := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"server", "--addr", addr, "--port", "0", "-m", strconv.Itoa(httpPort)}, Streams{Out: &out, Err: &errb, Env: envWithHome(t.TempDir())})
	}()
	urlLine := regexp.MustCompile(`Connect with: -s (nats://\S+)`)
	monLine := regexp.MustCompile(`Monitoring: (http://\S+)/varz`)
	var url, mon string
	natstest.Eventually(t, 30*time.Second, 20*time.Millisecond, func() error {
		m, mm := urlLine.FindStringSubmatch(out.String()), monLine.FindStringSubmatch(out.String())
		if m == nil || mm == nil {
			return fmt.Errorf("no URLs printed: %q %q", out.String(), errb.String())
		}
		url, mon = m[1], mm[1]
		return nil
	})
	if want := fmt.Sprintf("http://%s:%d", addr, httpPort); mon != want {
		t.Fatalf("monitoring at %s, want %s", mon, want)
	}
	host, port, _ := net.SplitHostPort(url[len("nats://"):])
	if host != addr {
		t.Fatalf("clients told to connect to %s, want %s", url, addr)
	}
	if c, err := net.DialTimeout("tcp", "127.0.0.1:"+port, time.Second); err == nil {
		c.Close()
		t.Fatalf("the server listens on 127.0.0.1:%s too; --addr %s should be the only address", port, addr)
	}
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	for range 7 {
		_ = nc.Publish("addr.test", []byte("x"))
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	nc.Close()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get(mon + "/varz")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		InMsgs int64 `json:"in_msgs"`
	}
	err = json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if err != nil || v.InMsgs != 7 {
		t.Fatalf("/varz in_msgs %d (%v), want the 7 published", v.InMsgs, err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop")
	}
}
