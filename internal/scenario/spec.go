package scenario

import (
	"fmt"
	"slices"
	"strings"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/spec"
)

// WorkloadSpec builds the Spec one workload instance's natsperf command line stands for, as
// the command itself would (the command line's flag definitions live in internal/cli).
type WorkloadSpec func(args []string) (*spec.Spec, error)

// Spec is the cell as one run Spec: its target, its setup (streams recreated, buckets created,
// both deleted after the run unless keep), and every workload instance as a workload of its
// own, named after the scenario's workload (pod1, pod2 ...), all started at one barrier. The
// instances' own settings join: streams and buckets a workload names are added unless the
// setup already lists them, faults and --verify apply to the run, the smallest --interval and
// the longest --warmup win, and latency is recorded unless every workload says --no-latency.
func (c Cell) Spec(build WorkloadSpec, keep bool) (*spec.Spec, error) {
	f := c.File
	s := &spec.Spec{Version: spec.Version, Name: c.Name, Target: f.Target.spec(), NoLatency: true, SLO: slices.Clone(f.SLO)}
	streams := f.Setup.Expanded()
	for _, st := range streams {
		if st.Replicas > 1 && s.Target.Embedded != nil {
			s.Target.Embedded.Nodes = max(s.Target.Embedded.Nodes, 3, st.Replicas)
		}
		out := spec.Stream{Name: st.Name, Subjects: st.Subjects, Storage: st.Storage, Replicas: max(st.Replicas, 1),
			Compression: st.Compression, Create: true, Recreate: true, DeleteAfter: !keep}
		var maxBytes int64 // a setup stream without maxbytes is unlimited
		if st.MaxBytes != "" {
			v, err := units.ParseSize(st.MaxBytes)
			if err != nil {
				return nil, fmt.Errorf("stream %s: maxbytes: %w", st.Name, err)
			}
			maxBytes = v
		}
		mb := spec.Size(maxBytes)
		out.MaxBytes = &mb
		s.Setup.Streams = append(s.Setup.Streams, out)
	}
	for _, b := range f.Setup.Buckets {
		s.Setup.Buckets = append(s.Setup.Buckets, spec.Bucket{Name: b.Name, Storage: b.Storage, Replicas: max(b.Replicas, 1),
			History: b.History, Compression: b.Compression, Create: true, DeleteAfter: !keep})
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
	for _, st := range ws.Setup.Streams {
		if !slices.ContainsFunc(s.Setup.Streams, func(o spec.Stream) bool { return o.Name == st.Name }) {
			s.Setup.Streams = append(s.Setup.Streams, st)
		}
	}
	for _, b := range ws.Setup.Buckets {
		if !slices.ContainsFunc(s.Setup.Buckets, func(o spec.Bucket) bool { return o.Name == b.Name }) {
			s.Setup.Buckets = append(s.Setup.Buckets, b)
		}
	}
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
	s.NoLatency = s.NoLatency && ws.NoLatency
	return nil
}

// spec is the file's target as a Spec's; an embedded one keeps its size.
func (t Target) spec() spec.Target {
	out := spec.Target{
		Context: t.Context, Creds: t.Creds, NKey: t.NKey, User: t.User,
		Password: spec.Secret(t.Password), Token: spec.Secret(t.Token),
		TLSCert: t.TLSCert, TLSKey: t.TLSKey, TLSCA: t.TLSCA, TLSFirst: t.TLSFirst, TLSInsecure: t.TLSInsecure,
	}
	for _, u := range strings.Split(t.Servers, ",") {
		if u = strings.TrimSpace(u); u != "" {
			out.Servers = append(out.Servers, u)
		}
	}
	if t.Embedded != nil {
		enc, _ := embedded.ParseEncryption(t.Embedded.Encryption) // checked when loaded
		out.Embedded = &spec.Embedded{Nodes: max(t.Embedded.Nodes, 1), Encryption: enc}
	}
	return out
}

func appendNew(to, from []string) []string {
	for _, v := range from {
		if !slices.Contains(to, v) {
			to = append(to, v)
		}
	}
	return to
}
