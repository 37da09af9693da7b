// Command natsperf measures how fast and how correct a NATS / JetStream deployment is.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"golang.org/x/term"

	"github.com/natsperf/natsperf/internal/cli"
	"github.com/natsperf/natsperf/internal/connect"
)

func main() {
	// The first Ctrl-C cancels the run, which still prints and saves its partial result; once
	// cancelled, the default handler is back, so a second Ctrl-C exits at once.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	go func() {
		<-ctx.Done()
		stop()
	}()
	os.Exit(cli.Run(ctx, os.Args[1:], cli.Streams{
		Out:        os.Stdout,
		Err:        os.Stderr,
		IsTerminal: term.IsTerminal(int(os.Stderr.Fd())),
		Env:        connect.OSEnv(),
	}))
}
