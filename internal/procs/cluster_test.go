package procs

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
)

// streamMsgs is each node's own count of stream's messages, from its /jsz.
func streamMsgs(ctx context.Context, c *Cluster, stream string) (map[string]uint64, error) {
	type jszStreams struct {
		Accounts []struct {
			Streams []struct {
				Name  string `json:"name"`
				State struct {
					Msgs uint64 `json:"messages"`
				} `json:"state"`
			} `json:"stream_detail"`
		} `json:"account_details"`
	}
	out := map[string]uint64{}
	for i, mon := range c.MonitorURLs() {
		j, err := getJSON[jszStreams](ctx, mon, "/jsz?accounts=true&streams=true")
		if err != nil {
			return nil, err
		}
		for _, a := range j.Accounts {
			for _, s := range a.Streams {
				if s.Name == stream {
					out[c.ServerName(i+1)] = s.State.Msgs
				}
			}
		}
	}
	return out, nil
}

// TestCluster runs one 3-process cluster through what natsperf does with it: an R3 stream
// whose acknowledged count every node stores, a SIGKILLed stream leader replaced and
// restarted on its store, and a pause that is a SIGSTOP.
func TestCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("a 3-process cluster with a failover takes about 12s")
	}
	bin := release(t, "v2.12.15", "v2.15.3", "v2.14.10")
	c := start(t, Options{Binary: bin, Nodes: 3})
	if !strings.HasPrefix(c.Version(), "v2.") || len(c.Nodes()) != 3 {
		t.Fatalf("version %q, nodes %+v", c.Version(), c.Nodes())
	}
	for i, n := range c.Nodes() {
		if n.Pid == 0 || n.Binary != bin || n.Name != fmt.Sprintf("natsperf-n%d", i+1) {
			t.Fatalf("node %d: %+v", i+1, n)
		}
	}
	nc, err := nats.Connect(c.URL(), nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	natstest.CreateStream(t, js, jetstream.StreamConfig{Name: "R3", Subjects: []string{"r3.>"}, Replicas: 3})

	t.Run("R3 counts on every node", func(t *testing.T) {
		const n = 1000
		for i := range n {
			if _, err := js.PublishAsync(fmt.Sprintf("r3.%d", i%7), []byte("x")); err != nil {
				t.Fatal(err)
			}
		}
		select {
		case <-js.PublishAsyncComplete():
		case <-ctx.Done():
			t.Fatal("acks did not come")
		}
		natstest.Eventually(t, 30*time.Second, 50*time.Millisecond, func() error {
			got, err := streamMsgs(ctx, c, "R3")
			if err != nil {
				return err
			}
			for i := 1; i <= 3; i++ {
				if got[c.ServerName(i)] != n {
					return fmt.Errorf("stored per node %v, want %d on each", got, n)
				}
			}
			return nil
		})
	})

	leader := func() string {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		s, err := js.Stream(ctx, "R3")
		if err != nil {
			return ""
		}
		info, err := s.Info(ctx)
		if err != nil || info.Cluster == nil {
			return ""
		}
		return info.Cluster.Leader
	}

	t.Run("SIGKILLed leader replaced", func(t *testing.T) {
		old := leader()
		i, ok := c.NodeByName(old)
		if !ok {
			t.Fatalf("stream leader %q is no node", old)
		}
		pid := c.Pid(i)
		// the successor's leader-elected advisory times the failover; polling stream info
		// would measure its own request timeouts
		elected := make(chan time.Time, 4)
		sub, err := nc.Subscribe("$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.R3", func(*nats.Msg) {
			select {
			case elected <- time.Now():
			default:
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Unsubscribe()
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
		killed := time.Now()
		if err := c.Kill(i); err != nil {
			t.Fatal(err)
		}
		if !gone(pid) {
			t.Fatalf("pid %d still there after Kill", pid)
		}
		var now string
		natstest.WaitFor(t, 60*time.Second, "a new stream leader", func() bool {
			now = leader()
			return now != "" && now != old
		})
		select {
		case at := <-elected:
			t.Logf("new stream leader %s elected %.2fs after SIGKILL of %s (advisory)", now, at.Sub(killed).Seconds(), old)
		default:
			t.Logf("new stream leader %s seen %.2fs after SIGKILL of %s (no advisory)", now, time.Since(killed).Seconds(), old)
		}
		if err := c.Restart(i); err != nil {
			t.Fatal(err)
		}
		if c.Pid(i) == 0 || c.Pid(i) == pid {
			t.Fatalf("restarted node pid %d (was %d)", c.Pid(i), pid)
		}
		natstest.Eventually(t, 30*time.Second, 50*time.Millisecond, func() error {
			got, err := streamMsgs(ctx, c, "R3")
			if err != nil {
				return err
			}
			if got[old] != 1000 {
				return fmt.Errorf("restarted %s stores %d, want 1000 (from its store and catch-up)", old, got[old])
			}
			return nil
		})
	})

	t.Run("pause is SIGSTOP", func(t *testing.T) {
		pid := c.Pid(2)
		paused := time.Now()
		if err := c.Pause(2, 4*time.Second); err != nil {
			t.Fatal(err)
		}
		// the signal is delivered asynchronously; a busy host may take a moment
		natstest.WaitFor(t, 4*time.Second, "process state T (stopped)", func() bool { return procState(pid) == "T" })
		if !c.Paused(2) {
			t.Fatal("Paused(2) false during the pause")
		}
		natstest.WaitFor(t, 30*time.Second, "the process to run again", func() bool {
			st := procState(pid)
			return st != "T" && st != "" && !c.Paused(2)
		})
		if d := time.Since(paused); d < 4*time.Second {
			t.Fatalf("running again after %s, want the 4s pause", d)
		}
	})

	pids := []int{c.Pid(1), c.Pid(2), c.Pid(3)}
	root := c.root
	c.Shutdown()
	for _, pid := range pids {
		if !gone(pid) {
			t.Errorf("pid %d still running after Shutdown", pid)
		}
	}
	if _, err := os.Stat(root); !os.IsNotExist(err) {
		t.Errorf("store %s still there after Shutdown: %v", root, err)
	}
}
