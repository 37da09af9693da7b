package telemetry

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/natstest"
)

// One Read through the system account answers for all 3 servers, each under its own name,
// and its connz part finds the connection a server holds bytes for: a subscriber that never
// reads, whose pending bytes the test reads from that server itself (stable before and after).
func TestSysReadsEveryServerAndThePendingBytes(t *testing.T) {
	nodes := natstest.SysCluster(t)
	target := nodes[1]
	stuck, err := net.Dial("tcp", target.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer stuck.Close()
	// A small, fixed receive buffer, so the kernel takes few bytes off the server.
	if err := stuck.(*net.TCPConn).SetReadBuffer(4096); err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(stuck, "CONNECT {\"user\":\"app\",\"pass\":\"apppw\",\"verbose\":false}\r\nSUB pend 1\r\nPING\r\n"); err != nil {
		t.Fatal(err)
	}
	pub, err := nats.Connect(target.ClientURL(), nats.UserInfo("app", "apppw"))
	if err != nil {
		t.Fatal(err)
	}
	defer pub.Close()
	pending := func() int64 {
		c, err := target.Connz(&server.ConnzOptions{Sort: server.ByPending, Limit: 1})
		if err != nil || len(c.Conns) == 0 {
			return 0
		}
		return int64(c.Conns[0].Pending)
	}
	payload := bytes.Repeat([]byte("x"), 256<<10)
	natstest.WaitFor(t, 10*time.Second, "the server to hold bytes for the subscriber that never reads", func() bool {
		for range 8 {
			if err := pub.Publish("pend", payload); err != nil {
				t.Fatal(err)
			}
		}
		_ = pub.Flush()
		// More than the kernel's socket buffers take (a few MiB), which would drain it.
		return pending() > 8<<20
	})
	src := &Sys{Dial: func(context.Context) (*nats.Conn, error) {
		return nats.Connect(nodes[0].ClientURL(), nats.UserInfo("sys", "syspw"))
	}}
	defer src.Close()
	natstest.Eventually(t, 8*time.Second, 50*time.Millisecond, func() error {
		before := pending()
		readings, err := src.Read(context.Background())
		after := pending()
		if err != nil {
			return err
		}
		if len(readings) != 3 {
			return fmt.Errorf("%d readings, want 3", len(readings))
		}
		for _, r := range readings {
			if r.Varz == nil || r.Jsz == nil || r.Name != r.Varz.Name {
				return fmt.Errorf("reading %+v", r)
			}
			if r.Name == target.Name() && (r.MaxPending != before || before != after || before == 0) {
				return fmt.Errorf("%s: %d bytes pending through the system account, %d and %d read in-process", r.Name, r.MaxPending, before, after)
			}
			if r.Name != target.Name() && r.MaxPending >= before {
				return fmt.Errorf("%s, no stuck client: %d bytes pending", r.Name, r.MaxPending)
			}
		}
		return nil
	})
}

// TestSysWaitsForEveryServerItKnows: a server that answered a subject before is waited for
// again past the quiet period, on that subject's own count: a busy server (the one the
// benchmark loads) whose VARZ answer comes late must not be left out of a reading, above all
// the final one, whose totals the cross-check line reads. Here a fourth "server" (a
// system-account client answering VARZ pings, as a server does, but not JSZ or CONNZ) answers
// the first reading at once and the second 300 ms late, past a 100 ms quiet period; before,
// the second reading stopped at as many answers as the previous request (CONNZ: 3) had.
func TestSysWaitsForEveryServerItKnows(t *testing.T) {
	nodes := natstest.SysCluster(t)
	dial := func(context.Context) (*nats.Conn, error) {
		return nats.Connect(nodes[0].ClientURL(), nats.UserInfo("sys", "syspw"))
	}
	slow, err := dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	var asked int
	if _, err := slow.Subscribe(sysVarz, func(m *nats.Msg) {
		asked++
		if asked > 1 {
			time.Sleep(300 * time.Millisecond)
		}
		_ = m.Respond([]byte(`{"server":{"name":"slow","id":"SLOW"},"data":{"server_name":"slow","in_msgs":7}}`))
	}); err != nil {
		t.Fatal(err)
	}
	if err := slow.Flush(); err != nil {
		t.Fatal(err)
	}
	src := &Sys{Dial: dial, Quiet: 100 * time.Millisecond}
	defer src.Close()
	names := func() map[string]bool {
		readings, err := src.Read(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		out := map[string]bool{}
		for _, r := range readings {
			out[r.Name] = true
		}
		return out
	}
	first := names()
	if len(first) != 4 || !first["slow"] {
		t.Skipf("the first reading had %v: the host held a reply past the quiet period", first)
	}
	if second := names(); len(second) != 4 || !second["slow"] {
		t.Fatalf("the second reading had %v: the server that answered the first, late this time, was not waited for", second)
	}
}

// TestSysFinalWaitsForEveryServerSeen: a server that once missed the Timeout is not waited
// for by the next readings (a dead one would cost a Timeout each), but the final reading,
// whose totals the cross-check line reads, waits for it again. Here a fourth "server" (a
// system-account client answering pings as a server does) answers the first reading at once
// and every later one 500 ms late, past a 300 ms Timeout: a plain reading cannot have it (its
// deadline is past before the answer), the final one must.
func TestSysFinalWaitsForEveryServerSeen(t *testing.T) {
	nodes := natstest.SysCluster(t)
	dial := func(context.Context) (*nats.Conn, error) {
		return nats.Connect(nodes[0].ClientURL(), nats.UserInfo("sys", "syspw"))
	}
	slow, err := dial(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer slow.Close()
	var asked atomic.Int32
	for _, subj := range []string{sysVarz, sysJsz, sysConnz} {
		if _, err := slow.Subscribe(subj, func(m *nats.Msg) {
			if m.Subject == sysVarz && asked.Add(1) > 1 {
				time.Sleep(500 * time.Millisecond)
			}
			_ = m.Respond([]byte(`{"server":{"name":"slow","id":"SLOW"},"data":{"server_name":"slow","in_msgs":7}}`))
		}); err != nil {
			t.Fatal(err)
		}
	}
	if err := slow.Flush(); err != nil {
		t.Fatal(err)
	}
	src := &Sys{Dial: dial, Quiet: 100 * time.Millisecond, Timeout: 300 * time.Millisecond}
	defer src.Close()
	names := func(read func(context.Context) ([]Reading, error)) map[string]bool {
		ctx, cancel := context.WithTimeout(context.Background(), 8*time.Second)
		defer cancel()
		readings, _ := read(ctx)
		out := map[string]bool{}
		for _, r := range readings {
			out[r.Name] = true
		}
		return out
	}
	if first := names(src.Read); !first["slow"] {
		t.Skipf("the first reading had %v: the host held a reply past the quiet period", first)
	}
	if second := names(src.Read); second["slow"] {
		t.Fatalf("the second reading had %v: an answer 500 ms late came within a 300 ms timeout", second)
	}
	if final := names(src.ReadFinal); !final["slow"] || len(final) != 4 {
		t.Fatalf("the final reading had %v: want the 3 servers and the one that missed a timeout before", final)
	}
}
