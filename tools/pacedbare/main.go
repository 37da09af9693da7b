// Command pacedbare is the floor for paced publishing with nats.go: one goroutine per process
// publishes every client's messages on that client's connection at their times (rate spread
// over the clients, as natsperf's schedule does), waking at most once per -tick, and lets
// nats.go's flusher write them. Its CPU seconds (getrusage) are what natsperf's paced
// publishers are compared against in docs/performance.md:
//
//	go run ./tools/pacedbare -s nats://127.0.0.1:4333 -clients 50 -rate 10000 -duration 5s
package main

import (
	"flag"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/nats-io/nats.go"
)

func main() {
	url := flag.String("s", nats.DefaultURL, "server URL")
	clients := flag.Int("clients", 1, "connections")
	rate := flag.Float64("rate", 1000, "messages per second, all clients together")
	d := flag.Duration("duration", 5*time.Second, "how long to publish")
	tick := flag.Duration("tick", 250*time.Microsecond, "least time between two wake-ups")
	size := flag.Int("size", 16, "payload bytes")
	flag.Parse()
	if err := run(*url, *clients, *rate, *d, *tick, *size); err != nil {
		fmt.Fprintln(os.Stderr, "pacedbare:", err)
		os.Exit(1)
	}
}

func run(url string, clients int, rate float64, d, tick time.Duration, size int) error {
	conns := make([]*nats.Conn, clients)
	for i := range conns {
		nc, err := nats.Connect(url)
		if err != nil {
			return err
		}
		defer nc.Close()
		conns[i] = nc
	}
	payload := make([]byte, size)
	total := int64(rate * d.Seconds())
	var before syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &before)
	start := time.Now()
	for sent := int64(0); sent < total; {
		due := min(int64(time.Since(start).Seconds()*rate)+1, total)
		for ; sent < due; sent++ {
			if err := conns[sent%int64(clients)].Publish("pacedbare", payload); err != nil {
				return err
			}
		}
		next := start.Add(time.Duration(float64(sent) / rate * float64(time.Second)))
		time.Sleep(max(time.Until(next), tick))
	}
	for _, nc := range conns {
		if err := nc.Flush(); err != nil {
			return err
		}
	}
	wall := time.Since(start)
	var after syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &after)
	cpu := time.Duration(after.Utime.Nano() - before.Utime.Nano() + after.Stime.Nano() - before.Stime.Nano())
	fmt.Printf("sent %d in %v (%.1f msgs/s), cpu %.3fs\n", total, wall.Round(time.Millisecond), float64(total)/wall.Seconds(), cpu.Seconds())
	return nil
}
