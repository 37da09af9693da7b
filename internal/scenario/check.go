package scenario

import (
	"errors"
	"fmt"
	"strings"

	"gopkg.in/yaml.v3"

	"github.com/natsperf/natsperf/internal/cmdline"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/spec"
)

// check validates meaning: counts, names, storage, and each workload's arguments, of the
// cell named cell.
func check(f *File, pos map[string]*yaml.Node, opts Options, cell string, is *issues) {
	at := func(field, format string, args ...any) {
		path := field
		n := pos[path]
		for n == nil && path != "" { // the field is absent: point at its parent
			if i := strings.LastIndexAny(path, ".["); i >= 0 {
				path = path[:i]
			} else {
				path = ""
			}
			n = pos[path]
		}
		line, col := 0, 0
		if n != nil {
			line, col = n.Line, n.Column
		}
		is.add(line, col, field, format, args...)
	}
	if f.Repetitions == 0 {
		f.Repetitions = 1
	}
	if f.Repetitions < 0 {
		at("repetitions", "must be at least 1")
	}
	f.slo = nil
	for i, t := range f.SLO {
		th, err := spec.ParseThreshold(t)
		if err != nil {
			at(fmt.Sprintf("slo[%d]", i), "%v", err)
		}
		f.slo = append(f.slo, th)
	}
	if c := f.Capacity; c != nil {
		switch {
		case len(f.SLO) == 0:
			at("capacity", "needs at least one slo threshold to search against")
		case c.Min < 0 || c.Max < 0 || (c.Max > 0 && c.Min > c.Max):
			at("capacity", "min and max must be rates with min <= max, got %v and %v", c.Min, c.Max)
		case c.ProbeDuration < 0 || c.Warmup < 0 || c.Drain < 0 || c.Repeats < 0 || c.Precision < 0 || c.Precision >= 1 || c.BisectPrecision < 0 || c.BisectPrecision >= 1:
			at("capacity", "probe-duration, warmup, drain and repeats must not be negative, bisect-precision between 0 and 1")
		}
	}
	switch f.Stream {
	case "", "auto", "always", "never":
	default:
		at("stream", "must be auto, always or never, got %q", f.Stream)
	}
	checkTarget(f, at)
	checkSetup(f, at)
	if len(f.Workloads) == 0 {
		at("workloads", "a scenario needs at least one workload")
	}
	names := map[string]bool{}
	for i := range f.Workloads {
		w := &f.Workloads[i]
		p := fmt.Sprintf("workloads[%d]", i)
		if n := pos[p]; n != nil {
			w.line = n.Line
		}
		if w.Instances == 0 {
			w.Instances = 1
		}
		if w.Instances < 0 || w.Instances > 1000 {
			at(p+".instances", "must be 1 to 1000, got %d", w.Instances)
		}
		if w.Name == "" {
			w.Name = fmt.Sprintf("w%d", i+1)
		}
		if strings.ContainsAny(w.Name, "/ ") {
			at(p+".name", "%q: names cannot hold '/' or spaces", w.Name)
		}
		if names[w.Name] {
			at(p+".name", "duplicate workload name %q", w.Name)
		}
		names[w.Name] = true
		args, err := w.Args(1)
		if err != nil {
			at(p+".command", "%v", err)
			continue
		}
		if len(args) == 0 {
			at(p+".command", "a workload needs a command, e.g. \"pubsub foo --pub 2 --sub 10\"")
			continue
		}
		if _, err := cmdline.Workload(args); err != nil {
			at(p+".command", "%v", err)
		}
	}
	if f.Capacity != nil {
		checkCapacity(f, opts, cell, at)
	}
}

// Args is the natsperf command line of one instance (1-based): the command, then the flags.
func (w *Workload) Args(instance int) ([]string, error) {
	args, err := splitArgs(ExpandInstance(w.Command, instance))
	if err != nil {
		return nil, err
	}
	for _, f := range w.Flags {
		v := ExpandInstance(f.Value, instance)
		if v == "true" {
			args = append(args, "--"+f.Name)
			continue
		}
		// "false" too: --flow-control=false must turn off a flag that defaults to true.
		args = append(args, "--"+f.Name+"="+v)
	}
	return args, nil
}

// Expanded lists the setup streams with their instances expanded.
func (s Setup) Expanded() []Stream {
	var out []Stream
	for _, st := range s.Streams {
		for i := 1; i <= max(st.Instances, 1); i++ {
			out = append(out, expand(st, i))
		}
	}
	return out
}

// expand is instance i of st.
func expand(st Stream, i int) Stream {
	c := st
	c.Name = ExpandInstance(st.Name, i)
	c.Subjects = make([]string, len(st.Subjects))
	for j, sub := range st.Subjects {
		c.Subjects[j] = ExpandInstance(sub, i)
	}
	c.Instances = 1
	return c
}

// splitArgs splits a command line on spaces, honouring single and double quotes.
func splitArgs(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	var quote rune
	in := false
	for _, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if quote != 0 {
		return nil, fmt.Errorf("unterminated quote in %q", s)
	}
	if in {
		out = append(out, cur.String())
	}
	return out, nil
}

// checkTarget checks the target as a Spec's (spec.Target.Validate), once the file's own
// spellings are the Spec's: an embedded server of 0 nodes is 1, its encryption by any name
// nats-server's cipher goes by, credentials in a server URL moved to the target's fields.
// A scenario also names at most one of embedded, servers and context.
func checkTarget(f *File, at func(field, format string, args ...any)) {
	t := &f.Target
	given := 0
	if t.Embedded != nil {
		given++
		t.Embedded.Nodes = max(t.Embedded.Nodes, 1)
		if enc, err := embedded.ParseEncryption(t.Embedded.Encryption); err == nil {
			t.Embedded.Encryption = enc
		}
		if sync, err := embedded.ParseSync(t.Embedded.SyncInterval); err == nil {
			t.Embedded.SyncInterval = sync
		} else {
			at("target.embedded.sync_interval", "%v", err)
		}
	}
	for i, u := range t.Servers {
		t.Servers[i] = connect.MoveUserinfo(u, t)
	}
	if len(t.Servers) > 0 {
		given++
	}
	if t.Context != "" {
		given++
	}
	if given > 1 {
		at("target", "give one of embedded, servers or context")
		return
	}
	var fe *spec.FieldError
	if err := t.Validate(); errors.As(err, &fe) {
		at(fe.Path, "%s", fe.Msg)
	}
}

// checkSetup checks each setup item as a Spec's (spec.CheckSetup), a stream with instances
// as its first instance, and that such a stream's name tells its instances apart.
func checkSetup(f *File, at func(field, format string, args ...any)) {
	first := f.Setup.Setup.Clone()
	first.Streams = nil
	for i, st := range f.Setup.Streams {
		if st.Instances < 0 {
			at(fmt.Sprintf("setup.streams[%d].instances", i), "must be at least 1")
		}
		if st.Instances > 1 && !strings.Contains(st.Name, "${instance}") {
			at(fmt.Sprintf("setup.streams[%d].name", i), "with instances, the name must hold ${instance}")
		}
		one := expand(st, 1).Stream
		one.Recreate = true // made by the run: it needs subjects
		first.Streams = append(first.Streams, one)
	}
	for _, fe := range spec.CheckSetup(&first) {
		at(fe.Path, "%s", fe.Msg)
	}
}
