package cli

import (
	"bytes"
	"context"
	"slices"
	"strings"
	"testing"
)

// TestCapacityBisectPrecisionFlag: --bisect-precision sets the bisection's resolution, and
// --precision, its old name, still does (with a notice naming the new one) but is not listed.
func TestCapacityBisectPrecisionFlag(t *testing.T) {
	for _, name := range []string{"--bisect-precision", "--precision"} {
		var log bytes.Buffer
		cf, rest, err := parseCapacityFlags([]string{"pub", "x", name, "0.2", "--slo", "p99<1ms"}, &log)
		if err != nil || cf.BisectPrecision != 0.2 || !slices.Equal(rest, []string{"pub", "x", "--slo", "p99<1ms"}) {
			t.Errorf("%s 0.2: precision %v, rest %q, err %v", name, cf.BisectPrecision, rest, err)
		}
		if deprecated := strings.Contains(log.String(), "--bisect-precision"); deprecated != (name == "--precision") {
			t.Errorf("%s: notice %q", name, log.String())
		}
	}
	if _, _, err := parseCapacityFlags([]string{"pub", "x", "--bisect-precision", "1"}, &bytes.Buffer{}); err == nil || !isUsage(err) || !strings.Contains(err.Error(), "--bisect-precision") {
		t.Errorf("--bisect-precision 1: %v, want a usage error naming the flag", err)
	}
	r := run(context.Background(), t, nil, "capacity", "--help")
	if !strings.Contains(r.out, "--bisect-precision") || strings.Contains(r.out, "--precision ") {
		t.Errorf("capacity --help lists --bisect-precision and not --precision:\n%s", r.out)
	}
}
