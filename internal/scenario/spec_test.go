package scenario

import (
	"slices"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/spec"
)

// TestCellSpec: a cell becomes one Spec. Setup streams are recreated and deleted after
// (kept with keep), without maxbytes unlimited; an embedded target grows to fit R3; each
// instance is a workload of the scenario's name; the instances' faults run once, the smallest
// interval and the longest warm-up win, and latency stays on unless every workload drops it.
// The builder here stands in for cmdline.Workload.
func TestCellSpec(t *testing.T) {
	const file = `name: cell
target: {embedded: {nodes: 1}}
setup:
  streams:
    - {name: "s${instance}", subjects: ["s${instance}.>"], replicas: 3, instances: 2}
    - {name: "capped", subjects: ["capped.>"], maxbytes: 1kb}
  buckets:
    - {name: "bk", history: 2}
workloads:
  - name: pod
    instances: 2
    command: pub s${instance}.x
  - name: quiet
    command: sub other
`
	sc, err := Parse("cell.yaml", []byte(file), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var seen [][]string
	build := func(args []string) (*spec.Spec, error) {
		seen = append(seen, args)
		s := &spec.Spec{Version: spec.Version, Workloads: []spec.Workload{{Config: &spec.Pub{Subject: args[1]}}}}
		if strings.HasPrefix(args[1], "s") {
			s.Workloads[0].Config = &spec.JSPubAsync{JSPublish: spec.JSPublish{Stream: strings.TrimSuffix(args[1], ".x"), Subject: args[1]}}
		}
		switch args[1] {
		case "s1.x":
			s.Interval, s.Warmup, s.Faults.Inject = spec.Duration(500e6), spec.Duration(1e9), []string{"1s:kill-leader"}
			s.Setup.Streams = []spec.Stream{{Name: "s1"}, {Name: "own"}}
		case "s2.x":
			s.Interval, s.Warmup, s.Faults.Inject, s.Verify = spec.Duration(200e6), spec.Duration(2e9), []string{"1s:kill-leader"}, true
		default:
			s.NoLatency = true
		}
		return s, nil
	}
	for _, keep := range []bool{false, true} {
		seen = nil
		s, err := sc.Cells[0].spec(build, keep)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(); err != nil {
			t.Fatalf("the cell's Spec does not validate: %v", err)
		}
		if len(seen) != 3 || strings.Join(seen[1], " ") != "pub s2.x" {
			t.Fatalf("built %q: want each instance's own command line", seen)
		}
		if s.Target.Embedded == nil || s.Target.Embedded.Nodes != 3 {
			t.Errorf("target %+v: want an embedded cluster of 3 for R3 streams", s.Target)
		}
		var names []string
		for _, st := range s.Setup.Streams {
			names = append(names, st.Name)
			if st.Name == "own" {
				if st.Recreate || st.DeleteAfter {
					t.Errorf("a workload's own stream %+v: not the setup's to recreate or delete", st)
				}
				continue
			}
			if !st.Create || !st.Recreate || st.DeleteAfter == keep || st.MaxBytes == nil {
				t.Errorf("setup stream %+v (keep %v)", st, keep)
			}
			if want := map[string]spec.Size{"capped": 1024}[st.Name]; *st.MaxBytes != want {
				t.Errorf("stream %s max bytes %d, want %d (none given: unlimited)", st.Name, *st.MaxBytes, want)
			}
		}
		if !slices.Equal(names, []string{"s1", "s2", "capped", "own"}) {
			t.Errorf("streams %v: the setup's first, then what a workload adds (s1 once)", names)
		}
		if b := s.Setup.Buckets; len(b) != 1 || !b[0].Create || b[0].DeleteAfter == keep || b[0].History != 2 {
			t.Errorf("buckets %+v", b)
		}
		var wnames []string
		for _, w := range s.Workloads {
			wnames = append(wnames, w.Name)
		}
		if !slices.Equal(wnames, []string{"pod", "pod", "quiet"}) {
			t.Errorf("workloads %v", wnames)
		}
		if !slices.Equal(s.Faults.Inject, []string{"1s:kill-leader"}) || !s.Verify {
			t.Errorf("faults %v, verify %v: want the instances' one fault once, and verify", s.Faults.Inject, s.Verify)
		}
		if s.Interval.D() != 200e6 || s.Warmup.D() != 2e9 || s.NoLatency {
			t.Errorf("interval %v, warmup %v, no latency %v", s.Interval.D(), s.Warmup.D(), s.NoLatency)
		}
	}
}
