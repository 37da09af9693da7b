// Command perfcompare measures natsperf against a bare nats.go loop on the same server,
// alternating the two in one run so both see the same machine, and compares the peak memory
// of runs of different lengths. Each side runs as a process of its own, so beside the
// wall-clock rates it compares CPU seconds (user+sys, getrusage) per message, which stay
// steady on a shared machine where rates do not. It is how docs/performance.md's numbers
// are made:
//
//	go build -o /tmp/natsperf ./cmd/natsperf
//	/tmp/natsperf server --port 4333 &
//	go run ./tools/perfcompare -natsperf /tmp/natsperf -s nats://127.0.0.1:4333
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
)

func main() {
	bin := flag.String("natsperf", "natsperf", "natsperf binary")
	url := flag.String("s", "nats://127.0.0.1:4222", "server URL")
	rounds := flag.Int("rounds", 5, "alternations per case")
	msgs := flag.Int("msgs", 5_000_000, "messages per run")
	size := flag.Int("size", 16, "payload size")
	mem := flag.Bool("mem", true, "also compare peak memory of 1M and 10M message runs")
	bare := flag.String("bare", "", "internal: run the bare loop (pub or pubsub) in this process and print its rate")
	flag.Parse()
	if *bare != "" {
		if err := runBare(*bare, *url, *msgs, *size); err != nil {
			fmt.Fprintln(os.Stderr, "perfcompare:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*bin, *url, *rounds, *msgs, *size, *mem); err != nil {
		fmt.Fprintln(os.Stderr, "perfcompare:", err)
		os.Exit(1)
	}
}

// sample is one alternation: each side's rate (msgs/s) and CPU seconds (user+sys).
type sample struct{ bare, np, bareCPU, npCPU float64 }

func run(bin, url string, rounds, msgs, size int, mem bool) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	cases := []struct {
		name string
		bare string
		args []string
		grp  string
	}{
		{"pub-only", "pub", []string{"pub", "perf.pub"}, "pub"},
		{"pub/sub 1:1 (subscriber rate)", "pubsub", []string{"pubsub", "perf.ps", "--pub", "1", "--sub", "1"}, "sub"},
	}
	for _, c := range cases {
		// Each process's fixed cost (start-up, connecting, setup) measured with one message,
		// so the per-message ratio can be given without it too.
		var fixed []sample
		for i := 0; i < rounds; i++ {
			_, bcpu, err := bareProcess(self, c.bare, url, 1, size)
			if err != nil {
				return fmt.Errorf("%s bare: %w", c.name, err)
			}
			args := append(append([]string{}, c.args...), "-s", url, "--msgs", "1", "--size", fmt.Sprint(size), "--json", "--no-progress")
			_, ncpu, _, err := natsperf(bin, c.grp, args...)
			if err != nil {
				return fmt.Errorf("%s natsperf: %w", c.name, err)
			}
			fixed = append(fixed, sample{bareCPU: bcpu, npCPU: ncpu})
		}
		bareFixed := medianOf(fixed, func(s sample) float64 { return s.bareCPU })
		npFixed := medianOf(fixed, func(s sample) float64 { return s.npCPU })
		var ss []sample
		for i := 0; i < rounds; i++ {
			b, bcpu, err := bareProcess(self, c.bare, url, msgs, size)
			if err != nil {
				return fmt.Errorf("%s bare: %w", c.name, err)
			}
			args := append(append([]string{}, c.args...), "-s", url, "--msgs", fmt.Sprint(msgs), "--size", fmt.Sprint(size), "--json", "--no-progress")
			n, ncpu, _, err := natsperf(bin, c.grp, args...)
			if err != nil {
				return fmt.Errorf("%s natsperf: %w", c.name, err)
			}
			ss = append(ss, sample{b, n, bcpu, ncpu})
			fmt.Printf("%-30s round %d: bare %10.0f msgs/s %6.3f CPU s  natsperf %10.0f msgs/s %6.3f CPU s  wall ratio %.3f  CPU/msg ratio %.3f\n",
				c.name, i+1, b, bcpu, n, ncpu, n/b, ncpu/bcpu)
		}
		fmt.Printf("%-30s median natsperf/bare: rate %.3f, CPU per message %.3f (median bare %.0f msgs/s %.3f CPU s, natsperf %.0f msgs/s %.3f CPU s)\n\n",
			c.name, medianOf(ss, func(s sample) float64 { return s.np / s.bare }), medianOf(ss, func(s sample) float64 { return s.npCPU / s.bareCPU }),
			medianOf(ss, func(s sample) float64 { return s.bare }), medianOf(ss, func(s sample) float64 { return s.bareCPU }),
			medianOf(ss, func(s sample) float64 { return s.np }), medianOf(ss, func(s sample) float64 { return s.npCPU }))
		fmt.Printf("%-30s fixed cost (1 message): bare %.3f CPU s, natsperf %.3f CPU s; CPU per message without it: %.3f\n\n",
			c.name, bareFixed, npFixed, medianOf(ss, func(s sample) float64 { return (s.npCPU - npFixed) / (s.bareCPU - bareFixed) }))
	}
	if mem {
		for _, n := range []int{1_000_000, 10_000_000} {
			_, _, rss, err := natsperf(bin, "pub", "pub", "perf.mem", "-s", url, "--msgs", fmt.Sprint(n), "--size", fmt.Sprint(size), "--json", "--no-progress")
			if err != nil {
				return err
			}
			fmt.Printf("peak RSS, pub %10d msgs: %6.1f MiB\n", n, float64(rss)/1024)
		}
	}
	return nil
}

func medianOf(ss []sample, f func(sample) float64) float64 {
	r := make([]float64, len(ss))
	for i, s := range ss {
		r[i] = f(s)
	}
	sort.Float64s(r)
	return r[len(r)/2]
}

// cpuSeconds is a finished process's user+sys CPU time.
func cpuSeconds(ps *os.ProcessState) float64 {
	return (ps.UserTime() + ps.SystemTime()).Seconds()
}

// bareProcess runs the bare loop in a process of its own (this binary with -bare) and
// returns its rate and CPU seconds.
func bareProcess(self, mode, url string, msgs, size int) (float64, float64, error) {
	cmd := exec.Command(self, "-bare", mode, "-s", url, "-msgs", fmt.Sprint(msgs), "-size", fmt.Sprint(size))
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	var rate float64
	if _, err := fmt.Sscan(out.String(), &rate); err != nil {
		return 0, 0, fmt.Errorf("bare output %q: %w", out.String(), err)
	}
	return rate, cpuSeconds(cmd.ProcessState), nil
}

// runBare is the -bare side: one loop, its rate on stdout.
func runBare(mode, url string, msgs, size int) error {
	var rate float64
	var err error
	switch mode {
	case "pub":
		rate, err = barePub(url, msgs, size)
	case "pubsub":
		rate, err = barePubSub(url, msgs, size)
	default:
		return fmt.Errorf("unknown bare mode %q", mode)
	}
	if err != nil {
		return err
	}
	fmt.Println(rate)
	return nil
}

// natsperf runs the binary and returns the named group's aggregate msgs/sec, the process's
// CPU seconds and its peak RSS in KiB.
func natsperf(bin, group string, args ...string) (float64, float64, int64, error) {
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return 0, 0, 0, fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	var res struct {
		Groups []struct {
			Name      string
			Aggregate struct {
				MsgsPerSec float64 `json:"msgs_per_sec"`
			}
		}
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		return 0, 0, 0, err
	}
	var rss int64
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		rss = ru.Maxrss
	}
	for _, g := range res.Groups {
		if g.Name == group {
			return g.Aggregate.MsgsPerSec, cpuSeconds(cmd.ProcessState), rss, nil
		}
	}
	return 0, 0, 0, fmt.Errorf("no group %q", group)
}

// barePub is the baseline: Publish in a loop, then Flush; rate over the whole loop.
func barePub(url string, msgs, size int) (float64, error) {
	nc, err := nats.Connect(url)
	if err != nil {
		return 0, err
	}
	defer nc.Close()
	buf := make([]byte, size)
	start := time.Now()
	for i := 0; i < msgs; i++ {
		if err := nc.Publish("perf.bare", buf); err != nil {
			return 0, err
		}
	}
	if err := nc.Flush(); err != nil {
		return 0, err
	}
	return float64(msgs) / time.Since(start).Seconds(), nil
}

// barePubSub publishes on one connection and counts on another; the rate is the
// subscriber's, from its first to its last message, as natsperf's sub group measures it.
func barePubSub(url string, msgs, size int) (float64, error) {
	sc, err := nats.Connect(url)
	if err != nil {
		return 0, err
	}
	defer sc.Close()
	var n atomic.Int64
	var first, last atomic.Int64
	done := make(chan struct{})
	sub, err := sc.Subscribe("perf.bareps", func(*nats.Msg) {
		// Bare: a count per message, the clock only at the first and the last.
		c := n.Add(1)
		if c == 1 {
			first.Store(time.Now().UnixNano())
		}
		if c == int64(msgs) {
			last.Store(time.Now().UnixNano())
			close(done)
		}
	})
	if err != nil {
		return 0, err
	}
	_ = sub.SetPendingLimits(-1, -1)
	if err := sc.Flush(); err != nil {
		return 0, err
	}
	pc, err := nats.Connect(url)
	if err != nil {
		return 0, err
	}
	defer pc.Close()
	buf := make([]byte, size)
	for i := 0; i < msgs; i++ {
		if err := pc.Publish("perf.bareps", buf); err != nil {
			return 0, err
		}
	}
	if err := pc.Flush(); err != nil {
		return 0, err
	}
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		return 0, fmt.Errorf("subscriber got %d of %d", n.Load(), msgs)
	}
	return float64(msgs-1) / (float64(last.Load()-first.Load()) / 1e9), nil
}
