package main

// The Rust cases: natsperf-rust against bare async-nats loops (clients/rust/examples), each
// in a process of its own, alternated round by round like the Go cases.
//
//	cd clients/rust && cargo build --release --examples
//	go run ./tools/perfcompare -rust clients/rust/target/release/natsperf-rust -cases rpub,rpubsub -s nats://127.0.0.1:4333
//
// Two bare loops stand beside every natsperf-rust build: "bare" runs the loop on
// #[tokio::main]'s thread (the plain way to write one), "bare spawn" in a spawned task on a
// runtime worker, where natsperf-rust's clients run (and, on this runtime, the cheaper of the
// two). Ratios are given against both.

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// rustSide is one contender of a Rust case: a bare loop or a natsperf-rust build.
type rustSide struct {
	label string
	bare  bool
	path  string // natsperf-rust, or the examples directory for a bare loop
	spawn bool
}

func rustSides(builds []build, examples string) []rustSide {
	sides := []rustSide{{label: "bare", bare: true, path: examples}, {label: "bare spawn", bare: true, path: examples, spawn: true}}
	for _, b := range builds {
		sides = append(sides, rustSide{label: b.label, path: b.path})
	}
	return sides
}

// rustExamples is where cargo puts the bare loops next to a natsperf-rust build.
func rustExamples(builds []build) string {
	return filepath.Join(filepath.Dir(builds[0].path), "examples")
}

// rustCase alternates every side of rpub (publisher rate and CPU) or rpubsub (the
// subscriber's rate and CPU, one publisher of the same side feeding it).
func rustCase(c string, sides []rustSide, url string, rounds, msgs, size int) error {
	rate, cpu := make([][]float64, len(sides)), make([][]float64, len(sides))
	for k := range sides {
		rate[k], cpu[k] = make([]float64, rounds), make([]float64, rounds)
	}
	for i := 0; i < rounds; i++ {
		line := fmt.Sprintf("%-7s round %d:", c, i+1)
		for k, s := range sides {
			var o outcome
			var err error
			if c == "rpub" {
				o, err = rustPub(s, url, msgs, size)
			} else {
				o, err = rustPubSub(s, url, msgs, size)
			}
			if err != nil {
				return fmt.Errorf("%s: %w", s.label, err)
			}
			rate[k][i], cpu[k][i] = o.rate, o.cpu
			line += fmt.Sprintf(" | %s %9.0f msgs/s %6.3f CPU s", s.label, o.rate, o.cpu)
		}
		fmt.Println(line)
	}
	what := map[string]string{"rpub": "publisher", "rpubsub": "subscriber (1:1, fed by its own side's publisher)"}[c]
	fmt.Printf("\n%s, %s, %d x %d B, %d alternated rounds, medians (ratios: median of the rounds' ratios):\n\n", c, what, msgs, size, rounds)
	fmt.Println("| process | msgs/s | CPU s | rate / bare | rate / bare spawn | CPU / bare | CPU / bare spawn | rate / bare spawn per round |")
	fmt.Println("|---|---:|---:|---:|---:|---:|---:|---|")
	for k, s := range sides {
		if s.bare {
			fmt.Printf("| %s async-nats | %.0f | %.3f | | | | | |\n", s.label, median(rate[k]), median(cpu[k]))
			continue
		}
		fmt.Printf("| %s | %.0f | %.3f | %.3f | **%.3f** | %.3f | **%.3f** | %s |\n", s.label, median(rate[k]), median(cpu[k]),
			median(ratios(rate[k], rate[0])), median(ratios(rate[k], rate[1])),
			median(ratios(cpu[k], cpu[0])), median(ratios(cpu[k], cpu[1])), list(ratios(rate[k], rate[1])))
	}
	fmt.Println()
	return nil
}

// rustPub runs one publisher: its rate and CPU seconds.
func rustPub(s rustSide, url string, msgs, size int) (outcome, error) {
	if s.bare {
		return bareRust(exec.Command(filepath.Join(s.path, "bare_pub"), spawnArg(s, url, "perf.rpub", fmt.Sprint(msgs), fmt.Sprint(size))...))
	}
	return natsperf(s.path, "pub", "pub", "perf.rpub", "-s", url, "--msgs", fmt.Sprint(msgs), "--size", fmt.Sprint(size))
}

// rustPubSub starts the side's subscriber, waits until it says it is ready, publishes msgs
// with the side's publisher, and returns the subscriber's rate and CPU seconds. A
// natsperf-rust subscriber that did not get every message is an error, not a rate.
func rustPubSub(s rustSide, url string, msgs, size int) (outcome, error) {
	n, sz := fmt.Sprint(msgs), fmt.Sprint(size)
	var sub *exec.Cmd
	if s.bare {
		sub = exec.Command(filepath.Join(s.path, "bare_sub"), spawnArg(s, url, "perf.rps", n)...)
	} else {
		sub = exec.Command(s.path, "sub", "perf.rps", "-s", url, "--msgs", n, "--idle-timeout", "10s")
	}
	var out bytes.Buffer
	sub.Stdout = &out
	stderr, err := sub.StderrPipe()
	if err != nil {
		return outcome{}, err
	}
	if err := sub.Start(); err != nil {
		return outcome{}, err
	}
	ready := make(chan error, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "ready") {
				ready <- nil
				_, _ = io.Copy(io.Discard, stderr)
				return
			}
		}
		ready <- fmt.Errorf("subscriber ended before it was ready")
	}()
	select {
	case err := <-ready:
		if err != nil {
			_ = sub.Wait()
			return outcome{}, err
		}
	case <-time.After(30 * time.Second):
		_ = sub.Process.Kill()
		_ = sub.Wait()
		return outcome{}, fmt.Errorf("subscriber not ready after 30s")
	}
	var pub *exec.Cmd
	if s.bare {
		pub = exec.Command(filepath.Join(s.path, "bare_pub"), spawnArg(s, url, "perf.rps", n, sz)...)
	} else {
		pub = exec.Command(s.path, "pub", "perf.rps", "-s", url, "--msgs", n, "--size", sz, "-o", "/dev/null")
	}
	if b, err := pub.CombinedOutput(); err != nil {
		_ = sub.Process.Kill()
		_ = sub.Wait()
		return outcome{}, fmt.Errorf("publisher: %v: %s", err, strings.TrimSpace(string(b)))
	}
	if err := sub.Wait(); err != nil {
		return outcome{}, fmt.Errorf("subscriber: %w", err)
	}
	if s.bare {
		r, err := strconv.ParseFloat(strings.TrimSpace(out.String()), 64)
		if err != nil {
			return outcome{}, fmt.Errorf("bare_sub output %q: %w", out.String(), err)
		}
		return outcome{rate: r, cpu: cpuSeconds(sub.ProcessState), msgs: int64(msgs)}, nil
	}
	o, err := natsperfResult(out.Bytes(), "sub", sub.ProcessState)
	if err == nil && o.msgs != int64(msgs) {
		err = fmt.Errorf("subscriber counted %d of %d messages", o.msgs, msgs)
	}
	return o, err
}

// spawnArg is a bare loop's arguments, with "spawn" for the spawned-task variant.
func spawnArg(s rustSide, args ...string) []string {
	if s.spawn {
		return append(args, "spawn")
	}
	return args
}

// bareRust runs a bare async-nats loop, which prints its rate on stdout.
func bareRust(cmd *exec.Cmd) (outcome, error) {
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return outcome{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	r, err := strconv.ParseFloat(strings.TrimSpace(out.String()), 64)
	if err != nil {
		return outcome{}, fmt.Errorf("%s output %q: %w", filepath.Base(cmd.Path), out.String(), err)
	}
	return outcome{rate: r, cpu: cpuSeconds(cmd.ProcessState)}, nil
}
