package failover_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/proctest"
)

// The test binary is also the fault command natsperf's --fault-exec runs: with helperEnv set
// to kill it SIGKILLs the stream's leader (its pid from the cluster directory), with restart
// it starts the node it killed again.
const (
	helperEnv = "NATSPERF_FAILOVER_HELPER"
	dirEnv    = "NATSPERF_FAILOVER_DIR"
	urlEnv    = "NATSPERF_FAILOVER_URL"
	streamEnv = "NATSPERF_FAILOVER_STREAM"
	// binEnv, when set, is the natsperf binary to test instead of this tree's.
	binEnv = "NATSPERF_FAILOVER_NATSPERF"
)

var natsperfBin, serverBin string

func TestMain(m *testing.M) {
	if h := os.Getenv(helperEnv); h != "" {
		if err := helper(h); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	if bin := os.Getenv(binEnv); bin != "" {
		natsperfBin = bin // another build, e.g. an older one to show what these tests catch
		serverDir, err := os.MkdirTemp("", "natsperf-failover-")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		serverBin = filepath.Join(serverDir, "nats-server")
		code := 1
		if out, err := exec.Command("go", "build", "-o", serverBin, "github.com/nats-io/nats-server/v2").CombinedOutput(); err != nil {
			fmt.Fprintf(os.Stderr, "build nats-server: %v\n%s", err, out)
		} else {
			code = m.Run()
		}
		os.RemoveAll(serverDir)
		os.Exit(code)
	}
	os.Exit(proctest.RunWithNatsperf(m, "natsperf-failover-", &natsperfBin))
}

// cluster is a 3-node JetStream cluster of nats-server processes on loopback, each with its
// own store; node i's config is dir/n<i>.conf and its pid in dir/n<i>.pid.
type cluster struct {
	dir  string
	urls []string
}

// startCluster builds nats-server from the module (once) and starts three routed nodes.
func startCluster(t *testing.T) *cluster {
	t.Helper()
	if serverBin == "" {
		bin := filepath.Join(filepath.Dir(natsperfBin), "nats-server")
		build := exec.Command("go", "build", "-o", bin, "github.com/nats-io/nats-server/v2")
		if out, err := build.CombinedOutput(); err != nil {
			t.Fatalf("build nats-server: %v\n%s", err, out)
		}
		serverBin = bin
	}
	c := &cluster{dir: t.TempDir()}
	ports := freePorts(t, 6)
	var routes []string
	for i := range 3 {
		routes = append(routes, fmt.Sprintf("nats-route://127.0.0.1:%d", ports[3+i]))
	}
	for i := range 3 {
		name := fmt.Sprintf("n%d", i+1)
		conf := fmt.Sprintf(`server_name: %s
listen: 127.0.0.1:%d
jetstream { store_dir: %q, max_memory_store: 64MB, max_file_store: 256MB }
cluster { name: standalone, listen: 127.0.0.1:%d, routes: [%s] }
`, name, ports[i], filepath.Join(c.dir, name), ports[3+i], strings.Join(routes, ", "))
		if err := os.WriteFile(filepath.Join(c.dir, name+".conf"), []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := startNode(c.dir, name); err != nil {
			t.Fatal(err)
		}
		c.urls = append(c.urls, fmt.Sprintf("nats://127.0.0.1:%d", ports[i]))
	}
	t.Cleanup(func() {
		for i := range 3 {
			if pid, err := readPid(c.dir, fmt.Sprintf("n%d", i+1)); err == nil {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
		}
	})
	// Ready: every node answers JetStream (a meta leader is elected and followed).
	for _, u := range c.urls {
		natstest.Eventually(t, time.Minute, 200*time.Millisecond, func() error {
			nc, err := nats.Connect(u)
			if err != nil {
				return err
			}
			defer nc.Close()
			js, _ := jetstream.New(nc)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			_, err = js.AccountInfo(ctx)
			return err
		})
	}
	return c
}

// freePorts reserves n loopback ports and releases them for the servers.
func freePorts(t *testing.T, n int) []int {
	var ls []net.Listener
	var ports []int
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	for _, l := range ls {
		_ = l.Close()
	}
	return ports
}

// startNode starts node name in a session of its own (so a fault command's clean-up of its
// process group leaves it running) and records its pid.
func startNode(dir, name string) error {
	log, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return err
	}
	defer log.Close()
	cmd := exec.Command(serverBinPath(dir), "-c", filepath.Join(dir, name+".conf"))
	cmd.Stdout, cmd.Stderr = log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	if err := cmd.Start(); err != nil {
		return err
	}
	go func() { _ = cmd.Wait() }() // reaped by whoever started it
	return os.WriteFile(filepath.Join(dir, name+".pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o600)
}

// serverBinPath is the nats-server binary: the test's, or the one the helper is told.
func serverBinPath(dir string) string {
	if serverBin != "" {
		return serverBin
	}
	b, _ := os.ReadFile(filepath.Join(dir, "server-bin"))
	return string(b)
}

// killRest SIGKILLs n2 and n3: n1 alone has no quorum.
func killRest(dir string) {
	for _, name := range []string{"n2", "n3"} {
		if pid, err := readPid(dir, name); err == nil {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func readPid(dir, name string) (int, error) {
	b, err := os.ReadFile(filepath.Join(dir, name+".pid"))
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(string(b))
}

// faultEnv is the environment natsperf passes on to its --fault-exec commands: the helper's
// cluster, server and stream.
func (c *cluster) faultEnv(t *testing.T, stream string) []string {
	if err := os.WriteFile(filepath.Join(c.dir, "server-bin"), []byte(serverBin), 0o600); err != nil {
		t.Fatal(err)
	}
	return append(os.Environ(), dirEnv+"="+c.dir, urlEnv+"="+strings.Join(c.urls, ","), streamEnv+"="+stream)
}

// faultCmd is the --fault-exec command that runs this binary as the helper.
func faultCmd(t *testing.T, what string) string {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprintf("%s=%s %q", helperEnv, what, exe)
}

// helper is the fault command: kill (SIGKILL the stream leader), restart (the node killed),
// or kill-rest (SIGKILL n2 and n3: n1 alone has no quorum).
func helper(what string) error {
	dir := os.Getenv(dirEnv)
	switch what {
	case "kill-rest":
		killRest(dir)
		fmt.Println("killed n2 and n3 with SIGKILL")
		return nil
	case "kill":
		nc, err := nats.Connect(os.Getenv(urlEnv), nats.Timeout(2*time.Second))
		if err != nil {
			return err
		}
		defer nc.Close()
		js, _ := jetstream.New(nc)
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s, err := js.Stream(ctx, os.Getenv(streamEnv))
		if err != nil {
			return err
		}
		ci := s.CachedInfo().Cluster
		if ci == nil || ci.Leader == "" {
			return errors.New("the stream has no leader")
		}
		pid, err := readPid(dir, ci.Leader)
		if err != nil {
			return err
		}
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			return err
		}
		fmt.Printf("killed %s (pid %d) with SIGKILL\n", ci.Leader, pid)
		return os.WriteFile(filepath.Join(dir, "killed"), []byte(ci.Leader), 0o600)
	case "restart":
		name, err := os.ReadFile(filepath.Join(dir, "killed"))
		if err != nil {
			return err
		}
		fmt.Printf("restarted %s\n", name)
		return startNode(dir, string(name))
	}
	return fmt.Errorf("unknown helper %q", what)
}

// ackTimes subscribes to every reply inbox of the cluster through node url and records when
// each publish acknowledgement of stream passes ({"stream":...,"seq":...}): the wire's view.
type ackTimes struct {
	nc    *nats.Conn
	times chan time.Time
}

func watchAcks(t *testing.T, url, stream string) *ackTimes {
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	a := &ackTimes{nc: nc, times: make(chan time.Time, 1<<20)}
	prefix := []byte(`{"stream":"` + stream + `"`)
	if _, err := nc.Subscribe("_INBOX.>", func(m *nats.Msg) {
		if len(m.Data) > len(prefix) && string(m.Data[:len(prefix)]) == string(prefix) {
			var ack struct {
				Error *json.RawMessage `json:"error"`
			}
			if json.Unmarshal(m.Data, &ack) == nil && ack.Error == nil {
				a.times <- time.Now()
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	return a
}

// longestWithout is the longest time without an ack between from and to, the last stretch
// (from the last ack to `to`) included: an outage still open at the end counts.
func (a *ackTimes) longestWithout(from, to time.Time) (time.Duration, bool) {
	var ts []time.Time
	for done := false; !done; {
		select {
		case ts1 := <-a.times:
			ts = append(ts, ts1)
		default:
			done = true
		}
	}
	prev, worst, open := from, time.Duration(0), false
	for _, ts1 := range ts {
		if ts1.Before(from) || ts1.After(to) {
			continue
		}
		if d := ts1.Sub(prev); d > worst {
			worst, open = d, false
		}
		prev = ts1
	}
	if d := to.Sub(prev); d > worst {
		worst, open = d, true
	}
	return worst, open
}
