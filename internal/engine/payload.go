package engine

import (
	"context"
	"fmt"
	"reflect"

	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/spec"
)

// CheckPayload refuses a run whose messages are larger than the server accepts (the
// max_payload of its INFO, 1 MiB unless configured), before a stream is created or a client
// connects: otherwise every publish fails once the run has started. One short connection
// learns the limit; it also waits for a server that is still starting, as a client would.
func CheckPayload(ctx context.Context, t *Target, s *spec.Spec) error {
	size, kind := largestMessage(s)
	if size == 0 {
		return nil
	}
	nc, err := t.Dialer()(ctx, "natsperf-probe")
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	defer nc.Close()
	if limit := nc.MaxPayload(); size > limit {
		return InputError{fmt.Errorf("%s --size %s is larger than the server's max_payload (%s): it would refuse every message",
			kind, units.FormatSize(size), units.FormatSize(limit))}
	}
	return nil
}

// largestMessage is the largest size a workload of s is configured with (0 when none is set:
// the defaults are 128 B and 16 B) and that workload's kind. Every kind names its message
// size Size (also a receiver's, whose publishers send that size).
func largestMessage(s *spec.Spec) (int64, string) {
	var size int64
	var kind string
	for _, w := range s.Workloads {
		v := reflect.Indirect(reflect.ValueOf(w.Config))
		if v.Kind() != reflect.Struct {
			continue
		}
		f := v.FieldByName("Size")
		if f.IsValid() && f.Type() == reflect.TypeFor[spec.Size]() && f.Int() > size {
			size, kind = f.Int(), w.Kind()
		}
	}
	return size, kind
}
