package runner

import (
	"fmt"
	"io"
	"time"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/result"
)

// Progress shows live progress while a run goes (Options.Progress): natsperf's command line
// draws terminal bars with it, a program may draw its own or export the counts.
type Progress interface {
	// Start is called once, when the clients start, with one bar per client (across agents
	// and through natsperf-rust: one per agent, driven by its heartbeats). It returns the
	// function that ends the display, called once after the run.
	Start(bars []Bar) (stop func())
}

// Bar is one client's (or agent's) progress.
type Bar struct {
	// Label names the client ("pub 1") or the agent.
	Label string
	// Total is the messages it is to handle, 0 when the run is open-ended (a duration).
	Total int64
	// Count is how many it has handled so far; safe to call from any goroutine.
	Count func() int64
	// Done is closed when it has finished.
	Done <-chan struct{}
}

// Starting is what a run about to start tells Options.OnStart: its clients are connected
// and set up (in this process), or its setup is made and the agents are about to be asked.
type Starting struct {
	// Interval is the width the run's series (Options.Series, the Result's) is sliced at.
	Interval time.Duration
	// Command is the workload kind run in this process ("pub", "latency"), "" for a run
	// through natsperf-rust or across agents.
	Command string
	// Embedded says the run's clients load an embedded nats-server started for this run
	// (a run in this process only): their figures include the server's work.
	Embedded bool
	// Text, when set, is the kind's own text layout of its Result (latency's), for a
	// caller that prints it instead of WriteText's nats bench form; nil for the others and
	// for runs through natsperf-rust or across agents.
	Text func(w io.Writer, res *result.Result) error
}

// progressOf is p as the harness and the coordinator take it; nil when p is.
func progressOf(p Progress) harness.Progress {
	if p == nil {
		return nil
	}
	return harnessProgress{p}
}

type harnessProgress struct{ p Progress }

func (h harnessProgress) Start(bars []harness.Bar) func() {
	out := make([]Bar, len(bars))
	for i, b := range bars {
		out[i] = Bar{Label: b.Label, Total: b.Total, Count: b.Count, Done: b.Done}
	}
	return h.p.Start(out)
}

// envOf is the environment o's run reads: o.Getenv (HOME through it too), or this
// process's.
func envOf(o Options) connect.Env {
	if o.Getenv == nil {
		return connect.OSEnv()
	}
	return connect.Env{Getenv: o.Getenv, Home: o.Getenv("HOME")}
}

// logfOf prints o's start lines, each stamped with the time of day, to o.StartLog or else
// o.Log; nil when neither is set.
func logfOf(o Options) func(format string, args ...any) {
	w := o.StartLog
	if w == nil {
		w = o.Log
	}
	if w == nil {
		return nil
	}
	return func(format string, args ...any) {
		fmt.Fprintf(w, "%s "+format+"\n", append([]any{time.Now().Format("15:04:05")}, args...)...)
	}
}
