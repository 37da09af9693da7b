// Command idlesubs measures the memory of idle subscriber connections: the resident memory
// (VmRSS) of `natsperf sub --clients N` once every client is subscribed, against a bare
// nats.go process holding N connections with one subscription each, both at N and at 1, so
// the slope is the cost of one more connection. docs/performance.md gives its figures:
//
//	go build -o /tmp/natsperf ./cmd/natsperf
//	/tmp/natsperf server --port 4333 &
//	go run ./tools/idlesubs -natsperf /tmp/natsperf -s nats://127.0.0.1:4333 -n 10000
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
)

func main() {
	bin := flag.String("natsperf", "natsperf", "natsperf binary")
	url := flag.String("s", "nats://127.0.0.1:4222", "server URL")
	n := flag.Int("n", 10000, "subscriber connections")
	bare := flag.Bool("bare", false, "internal: hold n bare connections, print ready, wait for stdin to close")
	flag.Parse()
	if *bare {
		if err := holdBare(*url, *n); err != nil {
			fmt.Fprintln(os.Stderr, "idlesubs:", err)
			os.Exit(1)
		}
		return
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, "idlesubs:", err)
		os.Exit(1)
	}
	for _, side := range []struct {
		name  string
		start func(n int) *exec.Cmd
		ready string
	}{
		{"bare nats.go", func(n int) *exec.Cmd {
			return exec.Command(self, "-bare", "-s", *url, "-n", strconv.Itoa(n))
		}, "ready"},
		{"natsperf sub", func(n int) *exec.Cmd {
			return exec.Command(*bin, "sub", "idlesubs", "--clients", strconv.Itoa(n), "--idle-timeout", "1h", "--no-progress", "-s", *url)
		}, fmt.Sprintf("[%d] Starting", 0)},
	} {
		var rss [2]int64
		for i, count := range []int{1, *n} {
			ready := side.ready
			if strings.HasPrefix(ready, "[") {
				ready = fmt.Sprintf("[%d] Starting", count)
			}
			kib, err := measure(side.start(count), ready)
			if err != nil {
				fmt.Fprintf(os.Stderr, "idlesubs: %s with %d: %v\n", side.name, count, err)
				os.Exit(1)
			}
			rss[i] = kib
		}
		per := float64(rss[1]-rss[0]) / float64(*n-1)
		fmt.Printf("%-14s RSS with 1: %7.1f MiB, with %d: %7.1f MiB, per extra connection: %.1f KiB\n",
			side.name, float64(rss[0])/1024, *n, float64(rss[1])/1024, per)
	}
}

// measure starts cmd, waits for a stdout line containing ready, lets it settle, reads its
// VmRSS in KiB, and interrupts it.
func measure(cmd *exec.Cmd, ready string) (int64, error) {
	out, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	in, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		_ = in.Close()
		_ = cmd.Process.Signal(syscall.SIGINT)
		go func() { _, _ = io.Copy(io.Discard, out) }()
		_ = cmd.Wait()
	}()
	sc := bufio.NewScanner(out)
	found := make(chan bool, 1)
	go func() {
		for sc.Scan() {
			if strings.Contains(sc.Text(), ready) {
				found <- true
				return
			}
		}
		found <- false
	}()
	select {
	case ok := <-found:
		if !ok {
			return 0, fmt.Errorf("ended before %q", ready)
		}
	case <-time.After(10 * time.Minute):
		return 0, fmt.Errorf("no %q after 10 minutes", ready)
	}
	time.Sleep(3 * time.Second) // settle: buffers allocated, GC run
	return vmRSS(cmd.Process.Pid)
}

func vmRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			return strconv.ParseInt(f[1], 10, 64)
		}
	}
	return 0, fmt.Errorf("no VmRSS for %d", pid)
}

// holdBare is the baseline: n connections, one subscription each, idle.
func holdBare(url string, n int) error {
	conns := make([]*nats.Conn, 0, n)
	for i := 0; i < n; i++ {
		nc, err := nats.Connect(url)
		if err != nil {
			return err
		}
		if _, err := nc.Subscribe("idlesubs", func(*nats.Msg) {}); err != nil {
			return err
		}
		if err := nc.Flush(); err != nil {
			return err
		}
		conns = append(conns, nc)
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	for _, nc := range conns {
		nc.Close()
	}
	return nil
}
