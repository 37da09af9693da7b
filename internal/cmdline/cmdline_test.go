package cmdline

import (
	"errors"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/spec"
)

// TestSpec: a command line becomes the Spec it runs, defaults left zero; nats bench's names
// and the commands' aliases are read as natsperf's.
func TestSpec(t *testing.T) {
	s, err := Spec([]string{"js", "pub", "async", "foo", "--rate", "1000", "--pubbatch", "50", "--payload-fill", "zeros"})
	if err != nil {
		t.Fatal(err)
	}
	w := s.Workloads[0]
	cfg, ok := w.Config.(*spec.JSPubAsync)
	switch {
	case !ok:
		t.Fatalf("config %T, want js pub async's", w.Config)
	case w.Pacing.Rate != 1000 || cfg.Batch != 50 || cfg.Subject != "foo" || w.PayloadFill != "zeros":
		t.Fatalf("workload %+v, config %+v: want rate 1000, batch 50 (--pubbatch), subject foo, payload fill zeros", w, cfg)
	case w.Pacing.Msgs != 0 || cfg.Size != 0:
		t.Fatalf("pacing %+v, size %d: defaults stay zero in a Spec", w.Pacing, cfg.Size)
	}
	if err := s.Validate(); err != nil {
		t.Fatal(err)
	}
	b, err := Spec([]string{"js", "pub", "batch", "foo"}) // nats bench 0.5's name of atomic
	if err != nil || b.Workloads[0].Kind() != "js pub batch" {
		t.Fatalf("js pub batch: %v, %v", b, err)
	}
	l, err := Spec([]string{"latency", "-s", "nats://u:p@127.0.0.1:4222", "--rate", "500"})
	if err != nil || l.Target.User != "u" || len(l.Target.Servers) != 1 || strings.Contains(l.Target.Servers[0], "p@") {
		t.Fatalf("latency: %+v, %v: want the credentials out of the URL", l, err)
	}
}

// TestSpecRefusesBadInput: bad command lines are usage errors, before anything runs.
func TestSpecRefusesBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"pub"}, "takes one SUBJECT"},
		{[]string{"pub", "foo", "--nope"}, "unknown flag: --nope"},
		{[]string{"pub", "foo", "--retries", "3"}, "(nats bench) is not supported"},
		{[]string{"pub", "foo", "--rate", "-1"}, "--rate must be"},
		{[]string{"clean"}, "is not a benchmark command"},
		{[]string{"js", "ordered", "--client", "rust"}, "unknown flag: --client"},
	} {
		_, err := Spec(tc.args)
		var u UsageError
		if !errors.As(err, &u) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want a usage error with %q", tc.args, err, tc.want)
		}
	}
}

// TestWorkload: a scenario's workload is a benchmark command other than latency, without the
// flags the scenario sets.
func TestWorkload(t *testing.T) {
	if _, err := Workload([]string{"pub", "foo", "--msgs", "10"}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"latency"}, "is not a benchmark command"},
		{[]string{"pub", "foo", "-s", "nats://x:4222"}, "--server is set by the scenario"},
		{[]string{"pub", "foo", "--json"}, "--json is set by the scenario"},
		{[]string{"sub", "foo", "--hist", "x.hgrm"}, "--hist is set by the scenario"},
	} {
		if _, err := Workload(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}
