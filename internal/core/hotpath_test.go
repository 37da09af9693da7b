package core

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/internal/stamp"
)

// These benchmarks are the hot paths' proof: run with -benchmem, every one must show
// 0 allocs/op. BenchmarkPublisherUnpaced and BenchmarkBarePublish run against the same
// in-process server in one go, so their ns/op compare natsperf's publish loop with a bare
// nats.go loop (tools/perfcompare does the same across processes).

// childServerEnv makes the test binary run as a nats-server process (see TestMain): the
// benchmarks' server then allocates in another process, so -benchmem counts only the client.
const childServerEnv = "NATSPERF_BENCH_CHILD_SERVER"

// childSpinnerEnv makes the test binary a CPU-bound neighbour process (see TestMain).
const childSpinnerEnv = "NATSPERF_TEST_CHILD_SPINNER"

func TestMain(m *testing.M) {
	if os.Getenv(childServerEnv) != "" {
		runChildServer()
		return
	}
	if os.Getenv(childSpinnerEnv) != "" {
		runChildSpinner()
		return
	}
	os.Exit(m.Run())
}

// runChildSpinner keeps a core busy until its stdin closes (the parent exited or is done).
func runChildSpinner() {
	var done atomic.Bool
	go func() {
		_, _ = io.Copy(io.Discard, os.Stdin)
		done.Store(true)
	}()
	for n := 0; !done.Load(); n++ {
	}
}

// runChildServer serves until its stdin closes (the parent exited or is done).
func runChildServer() {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoSigs: true, NoLog: true})
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		fmt.Println("error: not ready")
		os.Exit(1)
	}
	fmt.Println(s.ClientURL())
	_, _ = io.Copy(io.Discard, os.Stdin)
	s.Shutdown()
}

// benchServer starts a nats-server in a child process and returns its URL.
func benchServer(b testing.TB) string {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), childServerEnv+"=1")
	stdin, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { stdin.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "nats://") {
		b.Fatalf("child server: %q %v", line, err)
	}
	return strings.TrimSpace(line)
}

func benchEnv(b testing.TB, nc *nats.Conn, share int64, latency bool) *harness.Env {
	clk := record.NewClock()
	env := &harness.Env{
		ID: 1, Count: 1, Share: share, Bounded: true, Clock: clk,
		Rec: record.New(record.Options{Clock: clk, Latency: latency}),
		Dial: func(context.Context) (*harness.Conn, error) {
			return &harness.Conn{Conn: nc}, nil
		},
	}
	env.Start = clk.Now()
	return env
}

func BenchmarkPublisherUnpaced(b *testing.B) {
	url := benchServer(b)
	nc, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	env := benchEnv(b, nc, int64(b.N), false)
	p := NewPublisher(PubConfig{Subject: "bench.pub", Size: 16, IDs: stamp.NewIDs()})
	if err := p.Prepare(context.Background(), env); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	if err := p.Run(context.Background(), env); err != nil {
		b.Fatal(err)
	}
	b.StopTimer()
	if got := env.Rec.Progress(); got != int64(b.N) {
		b.Fatalf("published %d of %d", got, b.N)
	}
}

func BenchmarkBarePublish(b *testing.B) {
	url := benchServer(b)
	nc, err := nats.Connect(url)
	if err != nil {
		b.Fatal(err)
	}
	defer nc.Close()
	buf := make([]byte, 16)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := nc.Publish("bench.bare", buf); err != nil {
			b.Fatal(err)
		}
	}
	if err := nc.Flush(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkSubscriberHandle is the receive callback alone: stamp decode, latency and sequence
// recording, the done check.
func BenchmarkSubscriberHandle(b *testing.B) {
	env := benchEnv(b, nil, 0, true)
	s := NewSubscriber(SubConfig{Subject: "x"})
	s.init(nil, env)
	msg := &nats.Msg{Subject: "x", Data: make([]byte, 16)}
	now := env.Clock.Now()
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		stamp.Put(msg.Data, 5, uint64(i+1), now)
		s.handle(msg)
	}
	b.StopTimer()
	if c := env.Rec.Client(1, 0, false); c.Correctness.Lost != 0 || c.Latency.Count != int64(b.N) {
		b.Fatalf("handled %d, correctness %+v", c.Latency.Count, c.Correctness)
	}
}
