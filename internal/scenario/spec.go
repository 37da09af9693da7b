package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/natsperf/natsperf/internal/cmdline"
	"github.com/natsperf/natsperf/spec"
)

// Spec is the cell as one run Spec: its target, its setup (streams recreated, buckets created,
// both deleted after the run unless keep), and every workload instance as a workload of its
// own, named after the scenario's workload (pod1, pod2 ...), all started at one barrier. The
// instances' own settings join: streams and buckets a workload names are added unless the
// setup already lists them, faults and --verify apply to the run, the smallest --interval and
// the longest --warmup win (and the finest --pace-precision), and latency is recorded unless every workload says --no-latency.
// Each instance's command line becomes its Spec through cmdline.Workload, as the command would
// build it.
func (c Cell) Spec(keep bool) (*spec.Spec, error) { return c.spec(cmdline.Workload, keep) }

// spec is Spec with build making each instance's one-workload Spec (tests stand one in).
func (c Cell) spec(build func(args []string) (*spec.Spec, error), keep bool) (*spec.Spec, error) {
	f := c.File
	ts := f.slo
	if len(ts) != len(f.SLO) { // a File that Parse did not check
		var err error
		if ts, err = spec.ParseThresholds(f.SLO...); err != nil {
			return nil, err
		}
	}
	s := &spec.Spec{Version: spec.Version, Name: c.Name, Target: f.Target, NoLatency: true, SLO: slices.Clone(ts)}
	if e := f.Target.Embedded; e != nil {
		ee := *e // the file's stays as it is
		ee.Nodes = max(e.Nodes, 1)
		s.Target.Embedded = &ee
	}
	s.Target.Servers, s.Target.Monitor = slices.Clone(f.Target.Servers), slices.Clone(f.Target.Monitor)
	s.Setup = f.Setup.Setup.Clone()
	s.Setup.Streams = nil
	for _, st := range f.Setup.Expanded() {
		if st.MaxBytes == nil { // a setup stream without max_bytes is unlimited
			st.MaxBytes = new(spec.Size)
		}
		s.Setup.Streams = append(s.Setup.Streams, st.Stream)
	}
	for _, it := range s.Setup.Items() {
		it.Afresh(keep)
		if r := it.Replicated(); r > 1 && s.Target.Embedded != nil {
			s.Target.Embedded.Nodes = max(s.Target.Embedded.Nodes, 3, r)
		}
	}
	for _, w := range f.Workloads {
		for i := 1; i <= max(w.Instances, 1); i++ {
			args, err := w.Args(i)
			if err != nil {
				return nil, err
			}
			ws, err := build(args)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", strings.Join(args, " "), err)
			}
			if err := addWorkload(s, ws, w.Name); err != nil {
				return nil, fmt.Errorf("%s: %w", strings.Join(args, " "), err)
			}
		}
	}
	return s, nil
}

// addWorkload adds the one-workload Spec ws to the cell's s as a workload named name.
func addWorkload(s, ws *spec.Spec, name string) error {
	if len(ws.Workloads) != 1 {
		return fmt.Errorf("builds %d workloads, not one", len(ws.Workloads))
	}
	w := ws.Workloads[0]
	w.Name, w.Instances = name, 0 // the engine numbers the workloads of one name: pod1, pod2
	s.Workloads = append(s.Workloads, w)
	s.Setup.Join(ws.Setup)
	s.Verify = s.Verify || ws.Verify
	s.SLO = appendNew(s.SLO, ws.SLO)
	// The instances of one workload give the same faults: each runs once.
	s.Faults.Inject = appendNew(s.Faults.Inject, ws.Faults.Inject)
	s.Faults.Exec = appendNew(s.Faults.Exec, ws.Faults.Exec)
	s.Faults.ExecTimeout = max(s.Faults.ExecTimeout, ws.Faults.ExecTimeout)
	s.Warmup = max(s.Warmup, ws.Warmup)
	if ws.Interval > 0 && (s.Interval == 0 || ws.Interval < s.Interval) {
		s.Interval = ws.Interval
	}
	if ws.PacePrecision > 0 && (s.PacePrecision == 0 || ws.PacePrecision < s.PacePrecision) {
		s.PacePrecision = ws.PacePrecision // the run's senders share one pacer
	}
	s.NoLatency = s.NoLatency && ws.NoLatency
	return nil
}

func appendNew[T comparable](to, from []T) []T {
	for _, v := range from {
		if !slices.Contains(to, v) {
			to = append(to, v)
		}
	}
	return to
}
