package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The nb cases put natsperf beside nats bench (natscli) on every workload both have, each
// tool running its own commands (its own responders, publishers and stream fills) against
// one server, alternated round by round. Both print nats bench's stats line, so one parser
// reads both: the first "stats: N msgs/sec" line, the aggregate with several clients. The
// measured process's CPU seconds (user+sys, getrusage) give the CPU per message.
//
//	go build -o /tmp/natsperf ./cmd/natsperf
//	/tmp/natsperf server --port 4333 &
//	go run ./tools/perfcompare -natsperf /tmp/natsperf -natsbench ~/go/bin/nats -cases nb -s nats://127.0.0.1:4333

// nbCase is one workload: the measured command's arguments for each tool (after the tool's
// prefix: "bench" for nats), what runs beside it, and what fills its stream first.
type nbCase struct {
	name string
	msgs int
	// args, beside and fill return one tool's arguments; nb tells which tool.
	args   func(nb bool, msgs int) []string
	beside func(nb bool, msgs int) []string // a process started first and stopped (or awaited) after
	fill   func(nb bool, msgs int) []string // run once before the rounds
	// prep runs before each measured run, not measured; nil args for a tool that needs none.
	prep func(nb bool) []string
	// besideMeasured: the process beside is the one measured (sub: its publisher only feeds it).
	besideMeasured bool
}

// nbCases are the workloads in the order they run. Stream and bucket names differ per tool
// so neither reads what the other wrote; natsperf's subjects sit under its streams' names.
var nbCases = []nbCase{
	{name: "pub", msgs: 2_000_000, args: func(nb bool, n int) []string { return with(nb, []string{"pub", "cmp.pub"}, n) }},
	{name: "sub", msgs: 1_000_000, besideMeasured: true,
		args:   func(nb bool, n int) []string { return with(nb, []string{"pub", "cmp.sub"}, n) },
		beside: func(nb bool, n int) []string { return with(nb, []string{"sub", "cmp.sub"}, n) }},
	{name: "service request", msgs: 20_000,
		args:   func(nb bool, n int) []string { return with(nb, []string{"service", "request", "cmp.svc"}, n) },
		beside: func(nb bool, _ int) []string { return []string{"service", "serve", "cmp.svc"} }},
	{name: "service request, 50 clients", msgs: 50_000,
		args: func(nb bool, n int) []string {
			return with(nb, []string{"service", "request", "cmp.svc50", "--clients", "50"}, n)
		},
		beside: func(nb bool, _ int) []string { return []string{"service", "serve", "cmp.svc50"} }},
	{name: "js pub sync", msgs: 10_000,
		args: func(nb bool, n int) []string { return with(nb, jsPub(nb, "sync", "cmppub"), n) }},
	{name: "js pub async", msgs: 300_000,
		args: func(nb bool, n int) []string { return with(nb, jsPub(nb, "async", "cmppub"), n) }},
	{name: "js pub atomic", msgs: 300_000,
		// nats bench's default batch is 500, natsperf's 100: both are given 500.
		args: func(nb bool, n int) []string {
			return with(nb, append(jsPub(nb, "atomic", "cmppub"), "--batch", "500"), n)
		}},
	{name: "js pub fast", msgs: 300_000,
		args: func(nb bool, n int) []string { return with(nb, jsPub(nb, "fast", "cmppub"), n) }},
	{name: "js ordered", msgs: 300_000, fill: fillStream,
		args: func(nb bool, n int) []string {
			return with(nb, []string{"js", "ordered", "--stream", stream(nb, "cmpread")}, n)
		}},
	{name: "js consume", msgs: 300_000, fill: fillStream, prep: dropNatsBenchConsumer,
		args: func(nb bool, n int) []string {
			return with(nb, []string{"js", "consume", "--stream", stream(nb, "cmpread")}, n)
		}},
	{name: "js fetch", msgs: 300_000, fill: fillStream, prep: dropNatsBenchConsumer,
		args: func(nb bool, n int) []string {
			return with(nb, []string{"js", "fetch", "--stream", stream(nb, "cmpread")}, n)
		}},
	{name: "js get sync", msgs: 20_000, fill: fillStream,
		args: func(nb bool, n int) []string {
			return with(nb, []string{"js", "get", "sync", "--stream", stream(nb, "cmpread")}, n)
		}},
	{name: "js get batch", msgs: 300_000, fill: fillStream,
		args: func(nb bool, n int) []string {
			return with(nb, []string{"js", "get", "batch", "--stream", stream(nb, "cmpread")}, n)
		}},
	{name: "kv put", msgs: 10_000,
		args: func(nb bool, n int) []string { return with(nb, append([]string{"kv", "put"}, bucket(nb)...), n) }},
	{name: "kv get", msgs: 10_000,
		fill: func(nb bool, n int) []string { return with(nb, append([]string{"kv", "put"}, bucket(nb)...), n) },
		args: func(nb bool, n int) []string { return with(nb, append([]string{"kv", "get"}, bucket(nb)...), n) }},
}

// with adds what every measured command shares: the count, nats bench's default size
// spelled out, no progress bar.
func with(_ bool, args []string, msgs int) []string {
	return append(args, "--msgs", strconv.Itoa(msgs), "--size", "128", "--no-progress")
}

func stream(nb bool, name string) string {
	if nb {
		return "nb" + name
	}
	return "np" + name
}

// bucket: nats bench creates only its default bucket, so it keeps it; natsperf uses its own.
func bucket(nb bool) []string {
	if nb {
		return nil
	}
	return []string{"--bucket", "npcmpkv"}
}

func jsPub(nb bool, mode, name string) []string {
	s := stream(nb, name)
	return []string{"js", "pub", mode, s + ".x", "--stream", s, "--create", "--purge"}
}

// dropNatsBenchConsumer: nats bench makes its durable consumer only under its default name
// and leaves it behind (for 10 s of inactivity), having delivered every message; natsperf
// makes a fresh one and deletes it.
func dropNatsBenchConsumer(nb bool) []string {
	if !nb {
		return nil
	}
	return []string{"consumer", "rm", stream(nb, "cmpread"), "nats-bench", "-f"}
}

func fillStream(nb bool, msgs int) []string {
	s := stream(nb, "cmpread")
	return with(nb, []string{"js", "pub", "async", s + ".x", "--stream", s, "--create", "--purge"}, msgs)
}

// nbTool is one side: the binary and the words before a bench command.
type nbTool struct {
	label, path string
	prefix      []string
	nb          bool
}

func (t nbTool) cmd(args []string, url string) *exec.Cmd {
	return exec.Command(t.path, append(append(append([]string{}, t.prefix...), args...), "-s", url)...)
}

// natsBenchCases runs the nb cases named (all of them for "nb") with every natsperf build
// against nats bench at natsBench.
func natsBenchCases(names []string, builds []build, natsBench, url string, rounds int, scale float64) error {
	tools := []nbTool{{label: "nats bench", path: natsBench, prefix: []string{"bench"}, nb: true}}
	for _, b := range builds {
		tools = append(tools, nbTool{label: b.label, path: b.path})
	}
	want := map[string]bool{}
	for _, n := range names {
		if n != "nb" && !slices.ContainsFunc(nbCases, func(c nbCase) bool { return nbName(c) == n }) {
			return fmt.Errorf("unknown case %q", n)
		}
		want[n] = true
	}
	type row struct {
		name        string
		msgs        int
		rate, cpu   [][]float64 // [tool][round]
		rateR, cpuR [][]float64 // [build][round]: natsperf / nats bench
		load        []float64
	}
	var rows []row
	for _, c := range nbCases {
		if !want["nb"] && !want[nbName(c)] {
			continue
		}
		msgs := max(int(float64(c.msgs)*scale), 1)
		r := row{name: c.name, msgs: msgs, rate: make([][]float64, len(tools)), cpu: make([][]float64, len(tools)),
			rateR: make([][]float64, len(builds)), cpuR: make([][]float64, len(builds))}
		if c.fill != nil {
			for _, t := range tools[:2] { // the builds share natsperf's stream
				if _, err := nbRun(t.cmd(c.fill(t.nb, msgs), url)); err != nil {
					return fmt.Errorf("%s: %s fill: %w", c.name, t.label, err)
				}
			}
		}
		for i := 0; i < rounds; i++ {
			line := fmt.Sprintf("%-28s round %d:", c.name, i+1)
			for k, t := range tools {
				o, err := nbOnce(t, c, msgs, url)
				if err != nil {
					return fmt.Errorf("%s: %s: %w", c.name, t.label, err)
				}
				r.rate[k], r.cpu[k] = append(r.rate[k], o.rate), append(r.cpu[k], o.cpu)
				line += fmt.Sprintf(" | %s %9.0f msgs/s %6.3f CPU s", t.label, o.rate, o.cpu)
				if k > 0 {
					// Both handled msgs messages: the CPU ratio is the CPU-per-message ratio.
					r.rateR[k-1] = append(r.rateR[k-1], o.rate/r.rate[0][i])
					r.cpuR[k-1] = append(r.cpuR[k-1], o.cpu/r.cpu[0][i])
					line += fmt.Sprintf(" (rate x%.2f CPU x%.2f)", o.rate/r.rate[0][i], o.cpu/r.cpu[0][i])
				}
			}
			r.load = append(r.load, loadAverage())
			fmt.Printf("%s | load %.1f\n", line, loadAverage())
		}
		rows = append(rows, r)
	}
	fmt.Printf("\nnatsperf beside nats bench (%s), 128 B, %d alternated rounds, medians (ratios: median of the rounds' ratios):\n\n", natsBench, rounds)
	fmt.Println("| workload | msgs | natsperf | nats bench msgs/s | natsperf msgs/s | rate natsperf / nats bench | CPU µs/msg nats bench | CPU µs/msg natsperf | CPU natsperf / nats bench | rate ratio per round (spread) | CPU ratio per round (spread) | load average (range) |")
	fmt.Println("|---|---:|---|---:|---:|---:|---:|---:|---:|---|---|---|")
	for _, r := range rows {
		per := func(k int) float64 { return median(r.cpu[k]) / float64(r.msgs) * 1e6 }
		for k, b := range builds {
			fmt.Printf("| %s | %d | %s | %.0f | %.0f | **%.2f** | %.2f | %.2f | %.2f | %s | %s | %.1f (%s) |\n", r.name, r.msgs, b.label, median(r.rate[0]), median(r.rate[k+1]),
				median(r.rateR[k]), per(0), per(k+1), median(r.cpuR[k]), withSpread(r.rateR[k]), withSpread(r.cpuR[k]), median(r.load), spread(r.load, "%.1f"))
		}
	}
	fmt.Println()
	return nil
}

// withSpread is the rounds' values and, in brackets, their lowest and highest.
func withSpread(v []float64) string { return list(v) + " (" + spread(v, "%.2f") + ")" }

// spread is "lowest-highest" of v.
func spread(v []float64, format string) string {
	if len(v) == 0 {
		return ""
	}
	return fmt.Sprintf(format+"-"+format, slices.Min(v), slices.Max(v))
}

// nbOnce runs one tool's side of a case once: the process beside (if any) first, then the
// measured one.
func nbOnce(t nbTool, c nbCase, msgs int, url string) (outcome, error) {
	if c.prep != nil {
		if args := c.prep(t.nb); args != nil {
			_ = exec.Command(t.path, append(args, "-s", url)...).Run() // absent the first time
		}
	}
	if c.beside == nil {
		return nbRun(t.cmd(c.args(t.nb, msgs), url))
	}
	side := t.cmd(c.beside(t.nb, msgs), url)
	var out bytes.Buffer
	side.Stdout, side.Stderr = &out, &out
	if err := side.Start(); err != nil {
		return outcome{}, err
	}
	time.Sleep(time.Second) // subscribed: both tools connect and subscribe within milliseconds
	o, err := nbRun(t.cmd(c.args(t.nb, msgs), url))
	if !c.besideMeasured {
		stopSide(side) // a responder serves until Ctrl-C
		return o, err
	}
	if err != nil {
		_ = side.Process.Kill()
		_ = side.Wait()
		return o, err
	}
	done := make(chan error, 1)
	go func() { done <- side.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			return outcome{}, fmt.Errorf("%v: %s", err, lastLines(out.String()))
		}
	case <-time.After(2 * time.Minute):
		_ = side.Process.Kill()
		return outcome{}, fmt.Errorf("the measured side did not end: %s", lastLines(out.String()))
	}
	return nbOutcome(out.String(), side.ProcessState)
}

// stopSide interrupts a process that runs until Ctrl-C, and kills it if that is not enough
// (nats bench service serve ignores SIGINT).
func stopSide(p *exec.Cmd) {
	_ = p.Process.Signal(os.Interrupt)
	done := make(chan struct{})
	go func() { _ = p.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Second):
		_ = p.Process.Kill()
		<-done
	}
}

// nbRun runs a measured command to its end.
func nbRun(cmd *exec.Cmd) (outcome, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return outcome{}, fmt.Errorf("%s: %v: %s", strings.Join(cmd.Args, " "), err, lastLines(out.String()))
	}
	return nbOutcome(out.String(), cmd.ProcessState)
}

var statsLine = regexp.MustCompile(`stats: ([0-9,]+) msgs/sec`)

func nbOutcome(out string, ps *os.ProcessState) (outcome, error) {
	m := statsLine.FindStringSubmatch(out)
	if m == nil {
		return outcome{}, fmt.Errorf("no stats line in %q", lastLines(out))
	}
	rate, err := strconv.ParseFloat(strings.ReplaceAll(m[1], ",", ""), 64)
	if err != nil {
		return outcome{}, err
	}
	return outcome{rate: rate, cpu: cpuSeconds(ps)}, nil
}

func lastLines(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.Join(lines[max(len(lines)-3, 0):], " / ")
}

// loadAverage is the 1-minute load average, 0 where /proc is missing.
func loadAverage() float64 {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f, _ := strconv.ParseFloat(strings.Fields(string(b))[0], 64)
	return f
}

// nbName is a case's name on the command line: nb-service-request-50-clients.
func nbName(c nbCase) string {
	return "nb-" + strings.NewReplacer(", ", "-", " ", "-").Replace(c.name)
}

// nbNames picks the nb cases out of -cases.
func nbNames(names []string) []string {
	var out []string
	for _, n := range names {
		if n == "nb" || strings.HasPrefix(n, "nb-") {
			out = append(out, n)
		}
	}
	return out
}
