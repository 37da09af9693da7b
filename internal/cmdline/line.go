// Package cmdline turns a natsperf benchmark command line into the run Spec it stands for.
// Each benchmark command's flags are registered in one place (commands.go), in named groups
// (the common bench flags, stream, consumer, payload, fault, connection ...), on pflag flag
// sets: internal/cli adds them to its cobra commands, and scenario cells and capacity probes
// call Spec or Workload directly. Nothing here connects or runs.
package cmdline

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/suggest"
	"github.com/natsperf/natsperf/spec"
)

// Line is a parsed benchmark command line: the Spec it runs, and what of it goes beside the
// Spec (process-only: where to write, where to run).
type Line struct {
	Spec *spec.Spec
	// Hist is --hist: the file the latency histogram is written to.
	Hist string
	// Agents are --agents and its friends: where the Spec runs.
	Agents Agents
	// ClientBin is --client-bin: natsperf-rust's path for --client rust.
	ClientBin string
	// Out are the global output flags the line was parsed with.
	Out *Output
	// Notices are one-line notices for stderr: flags accepted because nats bench's command
	// lines pass them, that change nothing here.
	Notices []string
	f       *pflag.FlagSet
}

// Changed reports whether the command line gave the flag name (the command's; after Parse,
// a global one too).
func (l *Line) Changed(name string) bool {
	fl := l.f.Lookup(name)
	return fl != nil && fl.Changed
}

// Command is one benchmark command's flags, bound to values of their own, and its Spec builder.
type Command struct {
	path   string
	nargs  int
	what   string
	g      *Globals
	fs     *pflag.FlagSet
	build  builder
	agents Agents
	client clientFlags
}

// Commands are the benchmark commands' paths ("pub", "js pub async", "latency" ...).
func Commands() []string {
	var out []string
	for _, d := range commands {
		out = append(out, d.path)
	}
	return out
}

// NewCommand registers the flags of the benchmark command path on a flag set of their own;
// g holds the global flags the command reads (its connection). It panics on a path that is not
// a benchmark command (a mistake in the caller).
func NewCommand(path string, g *Globals) *Command {
	if to, ok := aliases[path]; ok {
		path = to
	}
	for _, d := range commands {
		if d.path != path {
			continue
		}
		c := &Command{path: path, nargs: d.nargs, what: d.what, g: g, fs: newFlagSet(path)}
		c.build = d.flags(c.fs)
		c.agents.register(c.fs)
		if slices.Contains(rustPaths, path) {
			c.client.register(c.fs)
		}
		return c
	}
	panic("cmdline: " + path + " is not a benchmark command")
}

// Flags are the command's own flags (cobra: cmd.Flags().AddFlagSet).
func (c *Command) Flags() *pflag.FlagSet { return c.fs }

// Args are how many positional arguments the command takes, and what they are in words.
func (c *Command) Args() (int, string) { return c.nargs, c.what }

// Line builds the Line of the command's flags as parsed, with args its positional arguments;
// env completes the credentials and says whether a server is given. Bad input is a UsageError.
func (c *Command) Line(args []string, env connect.Env) (*Line, error) {
	if len(args) != c.nargs {
		return nil, usagef("natsperf %s takes %s (got %d arguments); see --help", c.path, c.what, len(args))
	}
	if err := c.g.Conn.Parsed(env); err != nil {
		return nil, err
	}
	l, err := c.build(&input{args: args, f: c.fs, conn: &c.g.Conn, env: env})
	if err != nil {
		return nil, err
	}
	if fl := c.fs.Lookup("pace-precision"); fl != nil && fl.Changed {
		l.Spec.PacePrecision = spec.Duration(*fl.Value.(*precisionValue))
	}
	if err := c.client.apply(l.Spec); err != nil {
		return nil, err
	}
	l.Agents, l.ClientBin, l.Out, l.f = c.agents, c.client.Bin, &c.g.Out, c.fs
	return l, nil
}

// Parse parses a benchmark command line (without the program name: "js pub async foo --rate
// 1000") on fresh flags, the global ones into g, and builds its Line.
func Parse(args []string, g *Globals, env connect.Env) (*Line, error) {
	path, rest, err := find(args)
	if err != nil {
		return nil, err
	}
	c := NewCommand(path, g)
	fs := newFlagSet(path)
	fs.AddFlagSet(c.fs)
	fs.AddFlagSet(g.fs)
	if err := fs.Parse(rest); err != nil {
		return nil, FlagError(fs, "natsperf "+path, err)
	}
	l, err := c.Line(fs.Args(), env)
	if err != nil {
		return nil, err
	}
	l.f = fs // the global flags too
	return l, nil
}

// Spec is the Spec the benchmark command line args (without the program name) runs.
func Spec(args []string) (*spec.Spec, error) {
	l, err := Parse(args, NewGlobals(), connect.Env{})
	if err != nil {
		return nil, err
	}
	return l.Spec, nil
}

// Workload is the Spec of a scenario workload's command line: a benchmark command other than
// latency, without the flags the scenario sets itself (its target, where the Results go).
func Workload(args []string) (*spec.Spec, error) {
	if path, _, err := find(args); err != nil || path == "latency" {
		return nil, usagef("%q is not a benchmark command (pub, sub, pubsub, service, js, kv)", strings.Join(args, " "))
	}
	l, err := Parse(args, NewGlobals(), connect.Env{})
	if err != nil {
		return nil, err
	}
	for _, name := range []string{"json", "output", "server", "context", "hist"} {
		if l.Changed(name) {
			return nil, usagef("--%s is set by the scenario (target:, run -o), not by a workload", name)
		}
	}
	return l.Spec, nil
}

// find splits args into a benchmark command's path and the rest of the line.
func find(args []string) (string, []string, error) {
	paths := append(Commands(), "js pub batch")
	sort.Slice(paths, func(i, j int) bool { return len(paths[i]) > len(paths[j]) })
	for _, p := range paths {
		words := strings.Fields(p)
		if len(args) >= len(words) && slices.Equal(args[:len(words)], words) {
			if to, ok := aliases[p]; ok {
				p = to
			}
			return p, args[len(words):], nil
		}
	}
	if len(args) == 0 {
		return "", nil, usagef("no command: give a benchmark command (%s)", strings.Join(Commands(), ", "))
	}
	return "", nil, usagef("%q is not a benchmark command (%s)", strings.Join(args, " "), strings.Join(Commands(), ", "))
}

// newSpec is the Spec a benchmark command line runs: the connection flags as its target, the
// common flags as its pacing, warm-up and interval, and cfg as its one workload. Flags left at
// their defaults stay zero, which the engine reads as the same defaults.
func (in *input) newSpec(bf benchFlags, clients int, cfg spec.Config) *spec.Spec {
	s := &spec.Spec{
		Version: spec.Version,
		Target:  in.conn.Target(),
		Workloads: []spec.Workload{{
			Clients: clients,
			Pacing: spec.Pacing{
				Rate: bf.Rate, Duration: spec.Duration(bf.Duration), Sleep: spec.Duration(bf.Sleep),
			},
			Config: cfg,
		}},
		Warmup:    spec.Duration(bf.Warmup),
		NoLatency: bf.NoLatency,
		SLO:       bf.SLO,
	}
	shapePacing(bf.Shape, &s.Workloads[0].Pacing)
	withServerMetrics(s, bf.ServerMetrics, bf.NoServerMetrics)
	if in.f.Changed("msgs") {
		s.Workloads[0].Pacing.Msgs = bf.Msgs
	}
	if in.f.Changed("interval") {
		s.Interval = spec.Duration(bf.Interval)
	}
	withPayloadFill(s, in.f)
	return s
}

// line is the Line of s, with the command line's connection settings.
func (in *input) line(s *spec.Spec, hist string) *Line {
	return &Line{Spec: s, Hist: hist, Notices: in.notices}
}

// noEffect notes a flag the command accepts, as nats bench's command lines pass it, that
// changes nothing: the run says so on stderr rather than ignore it silently.
func (in *input) noEffect(name, why string) {
	if in.f.Changed(name) {
		in.notices = append(in.notices, fmt.Sprintf("--%s has no effect on %s", name, why))
	}
}

// size is --size for a spec: zero when left at its default.
func size(bf benchFlags, fs *pflag.FlagSet) spec.Size {
	if fs.Changed("size") {
		return spec.Size(bf.Size)
	}
	return 0
}

// multiMax is --multisubject-max for a spec: zero when left at its default.
func multiMax(sf subjectFlags, fs *pflag.FlagSet) int {
	if fs.Changed("multisubject-max") {
		return sf.MultiSubjectMax
	}
	return 0
}

// idle is --idle-timeout for a spec: zero when left at its default.
func idle(bf benchFlags, fs *pflag.FlagSet) spec.Duration {
	if fs.Changed("idle-timeout") {
		return spec.Duration(bf.IdleTimeout)
	}
	return 0
}

// pendingLimit is a --pending-* value for a spec: -1 (unlimited) is the spec's zero.
func pendingLimit(v int64) int64 {
	if v < 0 {
		return 0
	}
	return v
}

// withFaults adds --verify, --fault and --fault-exec to s.
func withFaults(s *spec.Spec, ff *faultFlags, fs *pflag.FlagSet) *spec.Spec {
	s.Verify = ff.Verify
	s.Faults = spec.Faults{Inject: ff.Faults, Exec: ff.Execs}
	if fs.Changed("fault-exec-timeout") {
		s.Faults.ExecTimeout = spec.Duration(ff.ExecTimeout)
	}
	return s
}

// subjectFlags are nats bench's multi-subject flags.
type subjectFlags struct {
	MultiSubject    bool
	MultiSubjectMax int
	Randomize       bool
}

func (s *subjectFlags) register(f *pflag.FlagSet, withMax bool) {
	f.BoolVar(&s.MultiSubject, "multisubject", false, "publish to SUBJECT.N (N = message number modulo --multisubject-max); receivers subscribe to SUBJECT.>")
	if withMax {
		f.IntVar(&s.MultiSubjectMax, "multisubject-max", 100_000, "how many different subjects --multisubject uses")
		f.BoolVar(&s.Randomize, "multisubject-randomize", false, "with --multisubject: each message goes to a random one of the subjects instead of the next (also --multisubjectrandomize)")
	}
}

func validateSubjects(sf subjectFlags) error {
	if sf.MultiSubject && sf.MultiSubjectMax < 1 {
		return usagef("--multisubject-max must be at least 1, got %d", sf.MultiSubjectMax)
	}
	return nil
}

// registerHist adds --hist.
func registerHist(f *pflag.FlagSet, path *string) {
	f.StringVar(path, "hist", "", "write the latency histogram (HdrHistogram .hgrm percentile distribution, milliseconds) to this file, for "+plotterURL)
}

// plotterURL is where the .hgrm files --hist writes can be plotted.
const plotterURL = "https://hdrhistogram.github.io/HdrHistogram/plotFiles.html"

// Agents are a distributed run's flags (--agents ...), on every benchmark command and on
// natsperf run: process-only, they say where a Spec runs (runner.Options).
type Agents struct {
	Agents  string
	Control string
	Wait    time.Duration
	OnLoss  string
	fs      *pflag.FlagSet
}

// Register adds the flags to f (natsperf run's, say).
func (d *Agents) Register(f *pflag.FlagSet) { d.register(f) }

func (d *Agents) register(f *pflag.FlagSet) {
	f.StringVar(&d.Agents, "agents", "", "run across natsperf agents: a number (--agents 3) or a label selector (--agents zone=a,tier=x); see 'natsperf agent'")
	f.StringVar(&d.Control, "control", "", "the NATS server the agents listen on (default: the -s server)")
	f.DurationVar(&d.Wait, "agents-wait", 30*time.Second, "how long to wait for the agents asked for")
	f.StringVar(&d.OnLoss, "on-agent-loss", "stop", "when an agent stops answering: stop the run, or continue with the others (the Result is partial either way)")
	d.fs = f
}

// Changed reports whether the command line gave the flag name.
func (d *Agents) Changed(name string) bool {
	fl := d.fs.Lookup(name)
	return fl != nil && fl.Changed
}

// natsBenchAliases are nats bench's flag names (old and new syntax) that natsperf spells
// differently; they are accepted everywhere under the old name.
var natsBenchAliases = map[string]string{
	"multisubjectmax":       "multisubject-max",
	"multisubjectrandomize": "multisubject-randomize",
	"no-doubleack":          "no-double-ack",
	"dedupwindow":           "dedup-window",
	"doubleack":             "double-ack",
	"maxackpending":         "max-ack-pending",
	"jstimeout":             "ack-timeout",
	"js-timeout":            "ack-timeout",
	"pubsleep":              "sleep",
	"subsleep":              "sub-sleep",
	"pubbatch":              "batch",
	"consumerbatch":         "batch",
	"pullbatch":             "batch",
	"noprogress":            "no-progress",
}

// natsBenchRefused are nats bench flags natsperf has no use for, with what to do instead.
var natsBenchRefused = map[string]string{
	"newjsapi": "natsperf always uses the jetstream package (the new API)",
	"retries":  "natsperf does not retry: a publish that times out is counted in the Result (see --ack-timeout)",
	"ack":      "use --acks explicit|none|all (js consume, fetch, push)",
	"noqueue":  "service serve responders always join one queue group; run several 'natsperf sub' for fan-out",
	"jsfile":   "use --storage file",
	"nopurge":  "natsperf purges only with --purge",
	"nodelete": "natsperf deletes only what it created, with 'natsperf clean'",
}

// Normalize maps nats bench's spelling of a flag to natsperf's (a pflag normalization func;
// cobra: root.SetGlobalNormalizationFunc).
func Normalize(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if to, ok := natsBenchAliases[name]; ok {
		return pflag.NormalizedName(to)
	}
	return pflag.NormalizedName(name)
}

// FlagError turns pflag's errors into one-line usage errors; an unknown flag gets the
// natsperf name of a nats bench flag, or the closest flags of fs. path names the command.
func FlagError(fs *pflag.FlagSet, path string, err error) error {
	msg := err.Error()
	name, ok := strings.CutPrefix(msg, "unknown flag: --")
	if !ok {
		return UsageError{err}
	}
	if why, ok := natsBenchRefused[name]; ok {
		return usagef("--%s (nats bench) is not supported: %s", name, why)
	}
	var close []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && (suggest.Distance(name, f.Name) <= 2 || strings.HasPrefix(f.Name, name)) {
			close = append(close, f.Name)
		}
	})
	// The likeliest first: a flag the typed name begins (--msg: --msgs), then the fewest edits.
	rank := func(f string) int {
		if strings.HasPrefix(f, name) {
			return len(f) - len(name) - 100
		}
		return suggest.Distance(name, f)
	}
	slices.SortStableFunc(close, func(a, b string) int { return rank(a) - rank(b) })
	return usagef("unknown flag: --%s%s (see %s --help)", name, suggest.DidYouMean(close, "--"), path)
}

// NatsBenchNames are nats bench's spellings of flags that Normalize maps to natsperf's.
func NatsBenchNames() []string {
	var out []string
	for name := range natsBenchAliases {
		out = append(out, name)
	}
	return out
}
