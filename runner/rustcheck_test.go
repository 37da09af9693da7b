package runner_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/runner"
	"github.com/natsperf/natsperf/spec"
)

// TestRunRefusesWhatRustDoesNot: a Spec asking natsperf-rust for what it does not do (fill
// its payloads, publish into a compressed stream it would create uncompressed) is refused by
// runner.Run itself, before anything connects (the target has no server), so `natsperf run
// SPEC`, scenario cells and a library refuse it as the command line does.
func TestRunRefusesWhatRustDoesNot(t *testing.T) {
	rust := func() *spec.Spec {
		return &spec.Spec{Version: spec.Version, Target: spec.Target{Servers: []string{"nats://127.0.0.1:1"}},
			Workloads: []spec.Workload{{Client: "rust", Config: &spec.JSPubAsync{JSPublish: spec.JSPublish{Stream: "S", Subject: "x"}}}}}
	}
	fill := rust()
	fill.Workloads[0].PayloadFill = "zeros"
	compressed := rust()
	compressed.Setup.Streams = []spec.Stream{{Name: "S", Subjects: []string{"x"}, Compression: "s2"}}
	for _, tt := range []struct {
		name string
		s    *spec.Spec
		want string
	}{
		{"payload_fill", fill, "--payload-fill zeros is not in natsperf-rust"},
		{"compression", compressed, "natsperf-rust creates its stream uncompressed"},
	} {
		_, err := runner.Run(context.Background(), tt.s, runner.Options{RustBin: "/nonexistent/natsperf-rust"})
		if !errors.As(err, new(runner.InputError)) || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s through natsperf-rust: got %v, want an InputError with %q", tt.name, err, tt.want)
		}
	}
}
