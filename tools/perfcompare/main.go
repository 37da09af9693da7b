// Command perfcompare measures natsperf's own cost against bare nats.go loops on the same
// server, alternating every side round by round so all see the same machine. Each side runs
// as a process of its own, so beside the wall-clock rates it compares CPU seconds (user+sys,
// getrusage) per process, which stay far steadier than rates on a shared machine. Several
// natsperf builds can be given (before and after a change) and are alternated with the bare
// loops in the same session. It is how docs/performance.md's numbers are made:
//
//	go build -o /tmp/natsperf ./cmd/natsperf
//	/tmp/natsperf server --port 4333 &
//	go run ./tools/perfcompare -natsperf /tmp/natsperf -s nats://127.0.0.1:4333
//	go run ./tools/perfcompare -natsperf before=/tmp/np-old,after=/tmp/natsperf -cases paced -s nats://127.0.0.1:4333
//	go run ./tools/perfcompare -rust clients/rust/target/release/natsperf-rust -cases rpub,rpubsub -s nats://127.0.0.1:4333
//
// Cases: pub (unpaced publish, 1 client), pubsub (1 publisher, 1 subscriber, the subscriber's
// rate), and the paced ones: paced1k, paced10k, paced100k (1 client at that rate), paced50
// (50 clients x 200/s), paced1000 (1,000 clients x 10/s) and p50 (corrected minus uncorrected
// P50 at 1,000/s); "paced" is all of the paced ones. A paced case runs for -duration and is
// compared with the floor: a bare nats.go process publishing the same messages at their times
// from one goroutine (-bare paced); both write extended stamps, from which perfcompare's own
// subscriber measures each one's send lateness (actual minus intended send time).
// rpub and rpubsub are pub and pubsub for natsperf-rust against bare async-nats loops (rust.go).
// nb runs natsperf beside nats bench on every workload both have (natsbench.go); nb-NAME one of
// them (nb-pub, nb-sub, nb-service-request, nb-service-request-50-clients, nb-js-pub-sync,
// nb-js-pub-async, nb-js-pub-atomic, nb-js-pub-fast, nb-js-ordered, nb-js-consume, nb-js-fetch,
// nb-js-get-sync, nb-js-get-batch, nb-kv-put, nb-kv-get).
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/stamp"
)

func main() {
	bins := flag.String("natsperf", "natsperf", "natsperf binaries, comma-separated, each PATH or LABEL=PATH, either followed by flags for each of its runs (LABEL=PATH --pace-precision 250us)")
	url := flag.String("s", "nats://127.0.0.1:4222", "server URL")
	rounds := flag.Int("rounds", 5, "alternations per case")
	cases := flag.String("cases", "pub,pubsub", "cases to run, comma-separated (pub, pubsub, paced1k, paced10k, paced100k, paced50, paced1000, paced2, paced8, p50, paced; with -rust: rpub, rpubsub; beside nats bench: nb, or one of nb-pub, nb-sub, nb-service-request, nb-service-request-50-clients, nb-js-pub-sync, nb-js-pub-async, nb-js-pub-atomic, nb-js-pub-fast, nb-js-ordered, nb-js-consume, nb-js-fetch, nb-js-get-sync, nb-js-get-batch, nb-kv-put, nb-kv-get)")
	natsBench := flag.String("natsbench", "nats", "the nats CLI, for the nb cases (natsperf beside nats bench)")
	nbScale := flag.Float64("nbscale", 1, "nb cases: scale every workload's message count by this")
	rust := flag.String("rust", "", "natsperf-rust binaries for the rpub and rpubsub cases, comma-separated, each PATH or LABEL=PATH; the bare async-nats loops are the examples cargo built beside the first")
	msgs := flag.Int("msgs", 5_000_000, "messages per unpaced run")
	size := flag.Int("size", 16, "payload size")
	d := flag.Duration("duration", 5*time.Second, "length of a paced run")
	mem := flag.Bool("mem", false, "also compare peak memory of 1M and 10M message runs (first binary)")
	bare := flag.String("bare", "", "internal: run a bare loop (pub, pubsub or paced) in this process and print its rate")
	clients := flag.Int("clients", 1, "internal: connections of -bare paced")
	rate := flag.Float64("rate", 1000, "internal: messages per second of -bare paced, all connections together")
	flag.Parse()
	var err error
	if *bare != "" {
		err = runBare(*bare, *url, *msgs, *size, *clients, *rate, *d)
	} else {
		var rustBuilds []build
		if *rust != "" {
			rustBuilds = parseBins(*rust)
		}
		names := strings.Split(*cases, ",")
		if nb := nbNames(names); len(nb) > 0 {
			err = natsBenchCases(nb, parseBins(*bins), *natsBench, *url, *rounds, *nbScale)
			names = slices.DeleteFunc(names, func(n string) bool { return slices.Contains(nb, n) })
		}
		if err == nil && len(names) > 0 {
			err = run(parseBins(*bins), rustBuilds, *url, names, *rounds, *msgs, *size, *d, *mem)
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "perfcompare:", err)
		os.Exit(1)
	}
}

// build is one natsperf binary under comparison, with flags of its own for every run
// ("p500=/tmp/natsperf --pace-precision 500us": the same binary as another side, one setting
// apart).
type build struct {
	label, path string
	args        []string
}

func parseBins(s string) []build {
	var out []build
	for _, b := range strings.Split(s, ",") {
		label, cmd, ok := strings.Cut(b, "=")
		fields := strings.Fields(cmd)
		if !ok {
			fields = strings.Fields(b)
			label = filepath.Base(fields[0])
		}
		out = append(out, build{label: label, path: fields[0], args: fields[1:]})
	}
	return out
}

// with is args then the build's own flags.
func (b build) with(args ...string) []string { return append(args, b.args...) }

// paced is a fixed-rate case: clients publishing rate msgs/s in total.
type paced struct {
	clients int
	rate    float64
}

var pacedCases = map[string]paced{
	"paced1k": {1, 1000}, "paced10k": {1, 10_000}, "paced100k": {1, 100_000},
	"paced50": {50, 10_000}, "paced1000": {1000, 10_000},
	"paced2": {2, 2000}, "paced8": {8, 8000}, // a few paced publishers per process (issue 32)
}

func run(bins, rust []build, url string, cases []string, rounds, msgs, size int, d time.Duration, mem bool) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var expanded []string
	for _, c := range cases {
		if c == "paced" {
			expanded = append(expanded, "paced1k", "paced10k", "paced100k", "paced50", "paced1000", "p50")
			continue
		}
		expanded = append(expanded, c)
	}
	for _, c := range expanded {
		var err error
		switch {
		case c == "pub" || c == "pubsub":
			err = unpacedCase(self, bins, url, c, rounds, msgs, size)
		case c == "p50":
			err = p50Case(bins, url, rounds, d)
		case c == "rpub" || c == "rpubsub":
			if len(rust) == 0 {
				return fmt.Errorf("%s needs -rust PATH (a natsperf-rust binary)", c)
			}
			err = rustCase(c, rustSides(rust, rustExamples(rust)), url, rounds, msgs, size)
		default:
			p, ok := pacedCases[c]
			if !ok {
				return fmt.Errorf("unknown case %q", c)
			}
			err = pacedCase(self, bins, url, c, p, rounds, size, d)
		}
		if err != nil {
			return fmt.Errorf("%s: %w", c, err)
		}
	}
	if mem {
		for _, n := range []int{1_000_000, 10_000_000} {
			r, err := natsperf(bins[0].path, "pub", "pub", "perf.mem", "-s", url, "--msgs", fmt.Sprint(n), "--size", fmt.Sprint(size), "--json", "--no-progress")
			if err != nil {
				return err
			}
			fmt.Printf("peak RSS, pub %10d msgs: %6.1f MiB\n", n, float64(r.rss)/1024)
		}
	}
	return nil
}

// unpacedCase alternates the bare loop and every build, msgs messages as fast as possible.
func unpacedCase(self string, bins []build, url, c string, rounds, msgs, size int) error {
	args := map[string][]string{"pub": {"pub", "perf.pub"}, "pubsub": {"pubsub", "perf.ps", "--pub", "1", "--sub", "1"}}[c]
	group := map[string]string{"pub": "pub", "pubsub": "sub"}[c]
	bareRate, bareCPU := make([]float64, rounds), make([]float64, rounds)
	rate, cpu := newTable(bins, rounds), newTable(bins, rounds)
	for i := 0; i < rounds; i++ {
		b, err := bareProcess(self, c, url, msgs, size, 1, 0, 0)
		if err != nil {
			return fmt.Errorf("bare: %w", err)
		}
		bareRate[i], bareCPU[i] = b.rate, b.cpu
		line := fmt.Sprintf("%-7s round %d: bare %9.0f msgs/s %6.3f CPU s", c, i+1, b.rate, b.cpu)
		for k, bin := range bins {
			a := append(append([]string{}, args...), "-s", url, "--msgs", fmt.Sprint(msgs), "--size", fmt.Sprint(size), "--json", "--no-progress")
			r, err := natsperf(bin.path, group, bin.with(a...)...)
			if err != nil {
				return fmt.Errorf("%s: %w", bin.label, err)
			}
			rate[k][i], cpu[k][i] = r.rate, r.cpu
			line += fmt.Sprintf(" | %s %9.0f msgs/s %6.3f CPU s (x%.3f CPU)", bin.label, r.rate, r.cpu, r.cpu/b.cpu)
		}
		fmt.Println(line)
	}
	fmt.Printf("\n%s, %d x %d B, %d alternated rounds, medians:\n\n", c, msgs, size, rounds)
	fmt.Println("| process | msgs/s | CPU s | CPU / bare (median of rounds) | rate / bare | CPU/bare per round |")
	fmt.Println("|---|---:|---:|---:|---:|---|")
	fmt.Printf("| bare nats.go | %.0f | %.3f | 1 | 1 | |\n", median(bareRate), median(bareCPU))
	for k, bin := range bins {
		fmt.Printf("| %s | %.0f | %.3f | **%.3f** | %.3f | %s |\n", bin.label, median(rate[k]), median(cpu[k]),
			median(ratios(cpu[k], bareCPU)), median(ratios(rate[k], bareRate)), list(ratios(cpu[k], bareCPU)))
	}
	fmt.Println()
	return nil
}

// pacedCase alternates the floor and every build's paced run. Both send extended stamps
// (the payload is at least stamp.ExtSize), from which a subscriber here measures each one's
// send lateness.
func pacedCase(self string, bins []build, url, c string, p paced, rounds, size int, d time.Duration) error {
	size = max(size, stamp.ExtSize)
	total := int64(p.rate * d.Seconds())
	nc, err := nats.Connect(url)
	if err != nil {
		return err
	}
	defer nc.Close()
	floor, floorP50, floorP99 := make([]float64, rounds), make([]float64, rounds), make([]float64, rounds)
	pacedCPU, accuracy, ratio := newTable(bins, rounds), newTable(bins, rounds), newTable(bins, rounds)
	p50, p99 := newTable(bins, rounds), newTable(bins, rounds)
	clients := fmt.Sprint(p.clients)
	pacedSubject := fmt.Sprintf("perf.paced.%d", os.Getpid()) // two sessions on one server stay apart
	for i := 0; i < rounds; i++ {
		l, err := watchLateness(nc, floorSubject(os.Getpid()), total)
		if err != nil {
			return err
		}
		b, err := bareProcess(self, "paced", url, 0, size, p.clients, p.rate, d)
		if err != nil {
			return fmt.Errorf("floor: %w", err)
		}
		floor[i] = b.cpu
		floorP50[i], floorP99[i], _ = l.done()
		line := fmt.Sprintf("%-9s round %d: floor %6.3f CPU s, late P50 %4.0f P99 %5.0f us", c, i+1, b.cpu, floorP50[i], floorP99[i])
		for k, bin := range bins {
			l, err := watchLateness(nc, pacedSubject, total)
			if err != nil {
				return err
			}
			r, err := natsperf(bin.path, "pub", bin.with("pub", pacedSubject, "-s", url, "--clients", clients, "--rate", fmt.Sprint(p.rate),
				"--duration", d.String(), "--size", fmt.Sprint(size), "--json", "--no-progress")...)
			if err != nil {
				return fmt.Errorf("%s paced: %w", bin.label, err)
			}
			var stamped int64
			p50[k][i], p99[k][i], stamped = l.done()
			pacedCPU[k][i], accuracy[k][i], ratio[k][i] = r.cpu, r.rate/p.rate*100, r.cpu/b.cpu
			line += fmt.Sprintf(" | %s %6.3f CPU s (x%.2f), %.4f%% of the rate, %d msgs (%d stamped seen), late P50 %4.0f P99 %5.0f us",
				bin.label, r.cpu, r.cpu/b.cpu, r.rate/p.rate*100, r.msgs, stamped, p50[k][i], p99[k][i])
		}
		fmt.Printf("%s | load %.1f\n", line, loadAverage())
	}
	fmt.Printf("\n%s: %d client(s), %.0f msgs/s in total, %v (%d msgs of %d B), %d alternated rounds, medians:\n\n", c, p.clients, p.rate, d, total, size, rounds)
	fmt.Println("| process | CPU s | CPU / floor (median of rounds) | per round | rate, % of target | send lateness P50 | P99 |")
	fmt.Println("|---|---:|---:|---|---:|---:|---:|")
	fmt.Printf("| floor (bare nats.go) | %.3f | 1 | | | %.0f µs | %.0f µs |\n", median(floor), median(floorP50), median(floorP99))
	for k, bin := range bins {
		fmt.Printf("| %s | %.3f | **%.2f** | %s | %.4f | %.0f µs | %.0f µs |\n", bin.label, median(pacedCPU[k]), median(ratio[k]), list(ratio[k]),
			median(accuracy[k]), median(p50[k]), median(p99[k]))
	}
	fmt.Println()
	return nil
}

// p50Case is the corrected minus the uncorrected P50 of pubsub at 1,000 msgs/s with an
// extended stamp: how late the pacer sends, as the receiver sees it.
func p50Case(bins []build, url string, rounds int, d time.Duration) error {
	diff := newTable(bins, rounds)
	for i := 0; i < rounds; i++ {
		line := fmt.Sprintf("p50 round %d:", i+1)
		for k, bin := range bins {
			r, err := natsperf(bin.path, "sub", bin.with("pubsub", "perf.p50", "-s", url, "--rate", "1000", "--size", "24", "--duration", d.String(), "--json", "--no-progress")...)
			if err != nil {
				return fmt.Errorf("%s: %w", bin.label, err)
			}
			diff[k][i] = float64(r.p50-r.p50Uncorrected) / 1e3
			line += fmt.Sprintf(" | %s corrected P50 %.1f us, uncorrected %.1f us", bin.label, float64(r.p50)/1e3, float64(r.p50Uncorrected)/1e3)
		}
		fmt.Println(line)
	}
	fmt.Printf("\npubsub --rate 1000 --size 24 --duration %v, %d alternated rounds: corrected minus uncorrected P50\n\n", d, rounds)
	fmt.Println("| process | median | per round |")
	fmt.Println("|---|---:|---|")
	for k, bin := range bins {
		fmt.Printf("| %s | %.1f us | %s |\n", bin.label, median(diff[k]), list(diff[k]))
	}
	fmt.Println()
	return nil
}

func newTable(bins []build, rounds int) [][]float64 {
	t := make([][]float64, len(bins))
	for i := range t {
		t[i] = make([]float64, rounds)
	}
	return t
}

func ratios(a, b []float64) []float64 {
	r := make([]float64, len(a))
	for i := range a {
		r[i] = a[i] / b[i]
	}
	return r
}

func median(v []float64) float64 {
	s := append([]float64{}, v...)
	sort.Float64s(s)
	if len(s)%2 == 0 {
		return (s[len(s)/2-1] + s[len(s)/2]) / 2
	}
	return s[len(s)/2]
}

func list(v []float64) string {
	parts := make([]string, len(v))
	for i, x := range v {
		parts[i] = fmt.Sprintf("%.2f", x)
	}
	return strings.Join(parts, " ")
}

// cpuSeconds is a finished process's user+sys CPU time.
func cpuSeconds(ps *os.ProcessState) float64 {
	return (ps.UserTime() + ps.SystemTime()).Seconds()
}

// outcome is what one process did.
type outcome struct {
	rate, cpu           float64
	msgs                int64
	rss                 int64 // peak, KiB
	p50, p50Uncorrected int64 // ns
}

// bareProcess runs a bare loop in a process of its own (this binary with -bare) and returns
// its rate and CPU seconds.
func bareProcess(self, mode, url string, msgs, size, clients int, rate float64, d time.Duration) (outcome, error) {
	cmd := exec.Command(self, "-bare", mode, "-s", url, "-msgs", fmt.Sprint(msgs), "-size", fmt.Sprint(size),
		"-clients", fmt.Sprint(clients), "-rate", fmt.Sprint(rate), "-duration", d.String())
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return outcome{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	var o outcome
	if _, err := fmt.Sscan(out.String(), &o.rate); err != nil {
		return o, fmt.Errorf("bare output %q: %w", out.String(), err)
	}
	o.cpu = cpuSeconds(cmd.ProcessState)
	return o, nil
}

// runBare is the -bare side: one loop, its rate on stdout.
func runBare(mode, url string, msgs, size, clients int, rate float64, d time.Duration) error {
	var r float64
	var err error
	switch mode {
	case "pub":
		r, err = barePub(url, msgs, size)
	case "pubsub":
		r, err = barePubSub(url, msgs, size)
	case "paced":
		r, err = barePaced(url, clients, rate, d, size)
	default:
		return fmt.Errorf("unknown bare mode %q", mode)
	}
	if err != nil {
		return err
	}
	fmt.Println(r)
	return nil
}

// natsperf runs the binary and returns the named group's aggregate figures, the process's
// CPU seconds and its peak RSS.
func natsperf(bin, group string, args ...string) (outcome, error) {
	cmd := exec.Command(bin, args...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return outcome{}, fmt.Errorf("%v: %s", err, strings.TrimSpace(errb.String()))
	}
	return natsperfResult(out.Bytes(), group, cmd.ProcessState)
}

// natsperfResult reads a Result (natsperf's or natsperf-rust's JSON) of a finished process.
func natsperfResult(out []byte, group string, ps *os.ProcessState) (outcome, error) {
	type latency struct {
		Percentiles []struct {
			P  float64
			Ns int64
		}
	}
	var res struct {
		Groups []struct {
			Name      string
			Aggregate struct {
				Msgs       int64
				MsgsPerSec float64 `json:"msgs_per_sec"`
				Latency    *struct {
					latency
					Uncorrected *latency
				}
			}
		}
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return outcome{}, err
	}
	p50 := func(l *latency) int64 {
		for _, p := range l.Percentiles {
			if p.P == 50 {
				return p.Ns
			}
		}
		return 0
	}
	o := outcome{cpu: cpuSeconds(ps)}
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		o.rss = ru.Maxrss
	}
	for _, g := range res.Groups {
		if g.Name == group {
			o.rate, o.msgs = g.Aggregate.MsgsPerSec, g.Aggregate.Msgs
			if l := g.Aggregate.Latency; l != nil {
				o.p50 = p50(&l.latency)
				if l.Uncorrected != nil {
					o.p50Uncorrected = p50(l.Uncorrected)
				}
			}
			return o, nil
		}
	}
	return o, fmt.Errorf("no group %q", group)
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

// floorSubject is where the floor started by perfcompare process pid publishes.
func floorSubject(pid int) string { return fmt.Sprintf("perf.floor.%d", pid) }

// barePaced is the floor of paced publishing with nats.go: one goroutine publishes every
// connection's messages at their times (the rate spread over the connections, as natsperf's
// schedule does), sleeping on a Go timer between them (which wakes within about a
// millisecond on Linux: coarser than natsperf's pacer, so fewer wake-ups), and nats.go's
// flushers write them. Its rate is the messages over the time they took.
func barePaced(url string, clients int, rate float64, d time.Duration, size int) (float64, error) {
	conns := make([]*nats.Conn, clients)
	for i := range conns {
		nc, err := nats.Connect(url)
		if err != nil {
			return 0, err
		}
		defer nc.Close()
		conns[i] = nc
	}
	payload := make([]byte, size)
	subject := floorSubject(os.Getppid()) // where the perfcompare that started it listens
	total := int64(rate * d.Seconds())
	start := time.Now()
	startNs := start.UnixNano()
	for sent := int64(0); sent < total; {
		due := min(int64(time.Since(start).Seconds()*rate)+1, total)
		for ; sent < due; sent++ {
			if size >= stamp.ExtSize { // the stamp natsperf writes: perfcompare reads both alike
				intended := startNs + int64(float64(sent)/rate*1e9)
				stamp.PutExt(payload, 1, uint64(sent+1), intended, time.Now().UnixNano())
			}
			if err := conns[sent%int64(clients)].Publish(subject, payload); err != nil {
				return 0, err
			}
		}
		next := start.Add(time.Duration(float64(sent) / rate * float64(time.Second)))
		time.Sleep(max(time.Until(next), 250*time.Microsecond)) // natsperf's least gap between wake-ups
	}
	for _, nc := range conns {
		if err := nc.Flush(); err != nil {
			return 0, err
		}
	}
	return float64(total) / time.Since(start).Seconds(), nil
}
