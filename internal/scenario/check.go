package scenario

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
	"gopkg.in/yaml.v3"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/slo"
)

// validBucket is nats.go's rule for KV bucket names (not exported there).
var validBucket = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

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
	for i, t := range f.SLO {
		if _, err := slo.Parse(t); err != nil {
			at(fmt.Sprintf("slo[%d]", i), "%v", err)
		}
	}
	if c := f.Capacity; c != nil {
		switch {
		case len(f.SLO) == 0:
			at("capacity", "needs at least one slo threshold to search against")
		case c.Min < 0 || c.Max < 0 || (c.Max > 0 && c.Min > c.Max):
			at("capacity", "min and max must be rates with min <= max, got %v and %v", c.Min, c.Max)
		case c.ProbeDuration < 0 || c.Warmup < 0 || c.Drain < 0 || c.Repeats < 0 || c.Precision < 0 || c.Precision >= 1:
			at("capacity", "probe-duration, warmup, drain and repeats must not be negative, precision between 0 and 1")
		}
	}
	switch f.Stream {
	case "", "auto", "always", "never":
	default:
		at("stream", "must be auto, always or never, got %q", f.Stream)
	}
	t := f.Target
	given := 0
	if t.Embedded != nil {
		given++
		if t.Embedded.Nodes == 0 {
			t.Embedded.Nodes = 1
		}
		if t.Embedded.Nodes < 1 || t.Embedded.Nodes > 9 {
			at("target.embedded.nodes", "must be 1 to 9, got %d", t.Embedded.Nodes)
		}
		if _, err := embedded.ParseEncryption(t.Embedded.Encryption); err != nil {
			at("target.embedded.encryption", "must be none, aes or chacha, got %q", t.Embedded.Encryption)
		}
	}
	if t.Servers != "" {
		given++
	}
	if t.Context != "" {
		given++
	}
	if given > 1 {
		at("target", "give one of embedded, servers or context")
	}
	for i, s := range f.Setup.Streams {
		p := fmt.Sprintf("setup.streams[%d]", i)
		if s.Name == "" {
			at(p+".name", "a stream needs a name")
		}
		if name := ExpandInstance(s.Name, 1); strings.ContainsAny(name, ".*> \t\r\n\f/\\") {
			at(p+".name", "%q: stream names cannot hold '.', '*', '>', '/', '\\' or spaces", s.Name)
		} else if len(name) > server.JSMaxNameLen {
			at(p+".name", "%d characters: the server allows %d", len(name), server.JSMaxNameLen)
		}
		if len(s.Subjects) == 0 {
			at(p+".subjects", "a stream needs subjects")
		}
		for j, subj := range s.Subjects {
			if !server.IsValidSubject(ExpandInstance(subj, 1)) {
				at(fmt.Sprintf("%s.subjects[%d]", p, j), "%q is not a valid NATS subject", subj)
			}
		}
		if s.Storage != "" && s.Storage != "file" && s.Storage != "memory" {
			at(p+".storage", "must be file or memory, got %q", s.Storage)
		}
		if s.Replicas < 0 || s.Replicas > 5 {
			at(p+".replicas", "must be 1 to 5, got %d", s.Replicas)
		}
		checkCompression(at, p, s.Compression)
		if s.Instances < 0 {
			at(p+".instances", "must be at least 1")
		}
		if s.Instances > 1 && !strings.Contains(s.Name, "${instance}") {
			at(p+".name", "with instances, the name must hold ${instance}")
		}
	}
	for i, b := range f.Setup.Buckets {
		p := fmt.Sprintf("setup.buckets[%d]", i)
		if b.Name == "" {
			at(p+".name", "a bucket needs a name")
		} else if !validBucket.MatchString(ExpandInstance(b.Name, 1)) || len(b.Name) > server.JSMaxNameLen-3 {
			at(p+".name", "%q: bucket names are letters, digits, '-' and '_' (at most %d)", b.Name, server.JSMaxNameLen-3)
		}
		if b.Storage != "" && b.Storage != "file" && b.Storage != "memory" {
			at(p+".storage", "must be file or memory, got %q", b.Storage)
		}
		checkCompression(at, p, b.Compression)
	}
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
		if opts.CheckArgs != nil {
			if err := opts.CheckArgs(args); err != nil {
				at(p+".command", "%v", err)
			}
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
		n := max(st.Instances, 1)
		for i := 1; i <= n; i++ {
			c := st
			c.Name = ExpandInstance(st.Name, i)
			c.Subjects = make([]string, len(st.Subjects))
			for j, sub := range st.Subjects {
				c.Subjects[j] = ExpandInstance(sub, i)
			}
			c.Instances = 1
			out = append(out, c)
		}
	}
	return out
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

// checkCompression refuses a stream or bucket compression nats-server does not know.
func checkCompression(at func(field, format string, args ...any), p, c string) {
	if c != "" && c != "s2" && c != "none" {
		at(p+".compression", "must be s2 or none, got %q", c)
	}
}
