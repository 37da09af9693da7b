package cli

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/bench"
	"github.com/natsperf/natsperf/internal/result"
)

// capture collects the plans benchmark commands build instead of running them: how a scenario
// reuses every command's flag handling and setup (streams, consumers) without re-implementing
// workloads. Each command runs as usual up to the runner, then hands over its plan.
type capture struct {
	target *target
	plans  []captured
}

// captured is one command's plan, with what it does after the run (JetStream: consumers to
// delete, stream state to read); finish may be nil.
type captured struct {
	plan   *bench.Plan
	bf     benchFlags
	finish func(ctx context.Context, res *result.Result)
}

func (c *capture) add(plan *bench.Plan, bf benchFlags, finish func(context.Context, *result.Result)) {
	c.plans = append(c.plans, captured{plan: plan, bf: bf, finish: finish})
}

// notWorkloads are commands that build no plan of their own.
var notWorkloads = map[string]bool{"run": true, "report": true, "compare": true, "server": true, "clean": true,
	"version": true, "latency": true, "spec": true, "completion": true, "help": true}

// capturePlan runs the natsperf command line args in capture mode against t and returns its
// plan. Its setup lines go to log.
func (a *app) capturePlan(ctx context.Context, t *target, args []string, log *bytes.Buffer) (captured, error) {
	if err := checkWorkloadArgs(args); err != nil {
		return captured{}, err
	}
	c := &capture{target: t}
	s := &Streams{Out: log, Err: log, Env: a.streams.Env}
	root := newRootCapture(s, c)
	root.SetArgs(append(args, "--no-progress"))
	root.SetOut(log)
	root.SetErr(log)
	if err := root.ExecuteContext(ctx); err != nil {
		for _, p := range c.plans {
			p.close(ctx)
		}
		return captured{}, fmt.Errorf("%s: %w", strings.Join(args, " "), err)
	}
	if len(c.plans) != 1 {
		return captured{}, fmt.Errorf("%s: not a benchmark command", strings.Join(args, " "))
	}
	return c.plans[0], nil
}

// close releases a plan that will not run.
func (p captured) close(ctx context.Context) {
	if p.finish != nil {
		p.finish(ctx, &result.Result{})
	}
}

// checkWorkloadArgs parses a workload's command line without running it: unknown commands and
// flags, and wrong positional arguments, are found when the scenario is loaded.
func checkWorkloadArgs(args []string) error {
	var sink bytes.Buffer
	root := newRootCapture(&Streams{Out: &sink, Err: &sink}, &capture{})
	cmd, rest, err := root.Find(args)
	if err != nil {
		return usageError{err}
	}
	if cmd == root || cmd.RunE == nil || notWorkloads[strings.Fields(cmd.CommandPath())[1]] {
		return usagef("%q is not a benchmark command (pub, sub, pubsub, service, js, kv)", strings.Join(args, " "))
	}
	if err := cmd.ParseFlags(rest); err != nil {
		return usageError{err}
	}
	for _, f := range []string{"json", "output", "server", "context", "hist"} {
		if fl := cmd.Flags().Lookup(f); fl != nil && fl.Changed {
			return usagef("--%s is set by the scenario (target:, run -o), not by a workload", f)
		}
	}
	// A scenario merges its workloads into one run; their verify and fault hooks are not
	// carried over yet, and a run that silently skipped them would read as verified.
	for _, f := range []string{"verify", "fault", "fault-exec"} {
		if fl := cmd.Flags().Lookup(f); fl != nil && fl.Changed {
			return usagef("--%s is not supported in scenario workloads yet: run it as a command (natsperf %s ... --%s)", f, strings.Fields(cmd.CommandPath())[1], f)
		}
	}
	if cmd.Args != nil {
		if err := cmd.Args(cmd, cmd.Flags().Args()); err != nil {
			return err
		}
	}
	return checkWorkloadSubject(cmd.Use, cmd.Flags().Args())
}

// checkWorkloadSubject checks a workload's SUBJECT at load time, as the command will when it
// runs: receivers may subscribe with wildcards, everything else publishes to it.
func checkWorkloadSubject(use string, args []string) error {
	if !strings.Contains(use, "SUBJECT") || len(args) != 1 {
		return nil
	}
	if strings.HasPrefix(use, "sub ") || strings.HasPrefix(use, "serve ") {
		return checkSubject("SUBJECT", args[0])
	}
	return checkPublishSubject("SUBJECT", args[0])
}

// part is one workload instance's plan in a cell.
type part struct {
	prefix string // "pod1": group names become "pod1/pub"
	captured
}

// mergePlans joins the instances' plans into one, so all their clients start at one barrier.
// The runner settings are the strictest of theirs: the smallest interval, the longest warm-up.
func mergePlans(title string, parts []part, settings map[string]any) (*bench.Plan, time.Duration, time.Duration) {
	plan := &bench.Plan{Command: "run", Title: title}
	workloads := map[string]any{}
	var interval, warmup time.Duration
	for _, p := range parts {
		for _, g := range p.plan.Groups {
			cg := *g
			cg.Name = p.prefix + "/" + g.Name
			plan.Groups = append(plan.Groups, &cg)
		}
		plan.Latency = plan.Latency || p.plan.Latency
		plan.Corrected = plan.Corrected || p.plan.Corrected
		workloads[p.prefix] = map[string]any{"command": p.plan.Command, "settings": p.plan.Settings}
		if interval == 0 || p.bf.Interval < interval {
			interval = p.bf.Interval
		}
		warmup = max(warmup, p.bf.Warmup)
	}
	settings["workloads"] = workloads
	plan.Settings = settings
	return plan, interval, warmup
}

// mergeStreams folds the per-instance states of a shared stream into one: what each instance
// published adds up, the server's figures are the latest.
func mergeStreams(in []result.StreamState) []result.StreamState {
	var out []result.StreamState
	at := map[string]int{}
	for _, s := range in {
		i, ok := at[s.Name]
		if !ok {
			at[s.Name] = len(out)
			out = append(out, s)
			continue
		}
		o := &out[i]
		o.Published += s.Published
		o.ExpectedBytes += s.ExpectedBytes
		o.Messages, o.Bytes, o.StoredBytes = s.Messages, s.Bytes, s.StoredBytes
	}
	return out
}
