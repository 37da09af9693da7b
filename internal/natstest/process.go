package natstest

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Releases are the nats-server releases natsperf supports: the latest patch of each minor.
// .ci/run builds them (go install github.com/nats-io/nats-server/v2@VERSION).
var Releases = []string{"v2.10.27", "v2.11.17", "v2.12.15", "v2.14.10", "v2.15.3"}

// ServerBinaries is the directory holding VERSION/nats-server: $NATSPERF_SERVER_BINARIES,
// else ~/.cache/natsperf/nats-server.
func ServerBinaries() string {
	if d := os.Getenv("NATSPERF_SERVER_BINARIES"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return filepath.Join(os.TempDir(), "natsperf", "nats-server")
	}
	return filepath.Join(home, ".cache", "natsperf", "nats-server")
}

// ServerBinary is version's nats-server binary. A missing one skips the test, or fails it
// when CI is set (CI builds every release first, so missing means the build step broke).
func ServerBinary(t testing.TB, version string) string {
	t.Helper()
	bin := filepath.Join(ServerBinaries(), version, "nats-server")
	if _, err := os.Stat(bin); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("nats-server %s: %v (CI builds it in .ci/run; NATSPERF_SERVER_BINARIES=%q)", version, err, os.Getenv("NATSPERF_SERVER_BINARIES"))
		}
		t.Skipf("nats-server %s not found at %s (build it: GOBIN=%s go install github.com/nats-io/nats-server/v2@%s)",
			version, bin, filepath.Dir(bin), version)
	}
	return bin
}

// Process is a nats-server release running as its own process for one test.
type Process struct {
	Version    string // as asked: v2.12.15
	URL        string // nats://127.0.0.1:PORT
	MonitorURL string // http://127.0.0.1:PORT
	Log        string // its log file
}

// ServerProcess starts version's nats-server binary (see ServerBinary) with JetStream, small
// limits and its own store, on free loopback ports it reports in a ports file, and stops it at
// the test's end. It dies with the test process too (parent-death signal).
func ServerProcess(t testing.TB, version string) *Process {
	t.Helper()
	bin := ServerBinary(t, version)
	dir := t.TempDir()
	conf := filepath.Join(dir, "nats-server.conf")
	cfg := fmt.Sprintf(`host: 127.0.0.1
port: -1
http: "127.0.0.1:-1"
ports_file_dir: %q
jetstream {
  store_dir: %q
  max_memory_store: 64MB
  max_file_store: 100GB # reserved, not written: streams natsperf creates reserve 1 GiB each
}
`, dir, filepath.Join(dir, "js"))
	if err := os.WriteFile(conf, []byte(cfg), 0o600); err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(dir, "nats-server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", conf)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		logf.Close()
		t.Fatalf("start nats-server %s: %v", version, err)
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); logf.Close(); close(exited) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-exited
		}
	})
	p := &Process{Version: version, Log: logPath}
	portsFile := filepath.Join(dir, fmt.Sprintf("%s_%d.ports", filepath.Base(bin), cmd.Process.Pid))
	deadline := time.Now().Add(30 * time.Second) // generous: a busy 2-core machine
	for {
		if ports, err := readPorts(portsFile); err == nil {
			p.URL, p.MonitorURL = ports.Nats[0], ports.Monitoring[0]
			return p
		}
		select {
		case <-exited:
			t.Fatalf("nats-server %s exited before it was ready; its log:\n%s", version, tail(logPath))
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("nats-server %s wrote no ports file in 30s; its log:\n%s", version, tail(logPath))
		}
	}
}

// ports is a nats-server ports file (written once the server listens).
type ports struct {
	Nats       []string `json:"nats"`
	Monitoring []string `json:"monitoring"`
}

func readPorts(path string) (ports, error) {
	var p ports
	b, err := os.ReadFile(path)
	if err != nil {
		return p, err
	}
	if err := json.Unmarshal(b, &p); err != nil { // written but not yet complete
		return p, err
	}
	if len(p.Nats) == 0 || len(p.Monitoring) == 0 {
		return p, fmt.Errorf("ports file %s lists no client or monitoring port", path)
	}
	return p, nil
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	return strings.Join(lines[max(0, len(lines)-20):], "\n")
}
