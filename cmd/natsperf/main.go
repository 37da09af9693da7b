// Command natsperf measures how fast and how correct a NATS / JetStream deployment is.
package main

import (
	"context"
	"os"
	"os/signal"
	"runtime"
	"syscall"

	"golang.org/x/term"

	"github.com/natsperf/natsperf/internal/cli"
	"github.com/natsperf/natsperf/internal/connect"
)

// gcHeadroom is memory reserved but never touched (so it costs no RSS): the garbage collector
// counts it as live, which keeps natsperf's fixed-size histograms from shrinking the headroom
// before the next collection below what a bare nats.go client has. Without it, a JetStream
// reader collected ~28% more often than the bare loop it is compared with
// (docs/performance.md).
const gcHeadroom = 8 << 20

func main() {
	headroom := make([]byte, gcHeadroom)
	// The first Ctrl-C cancels the run, which still prints and saves its partial result; once
	// cancelled, the default handler is back, so a second Ctrl-C exits at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	code := cli.Main(ctx, os.Args[1:], cli.Streams{
		Out:        os.Stdout,
		Err:        os.Stderr,
		IsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
		Env:        connect.OSEnv(),
	})
	runtime.KeepAlive(headroom)
	os.Exit(code)
}
