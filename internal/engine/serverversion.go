package engine

import (
	"context"
	"fmt"

	"github.com/natsperf/natsperf/internal/serverver"
	"github.com/natsperf/natsperf/spec"
)

// need is a server feature a run needs, and who asks for it (a command, a flag).
type need struct {
	who     string
	feature serverver.Feature
}

// needs lists the features s's workloads and streams need beyond nats-server 2.10.
func needs(s *spec.Spec) []need {
	var out []need
	for _, w := range s.Workloads {
		switch w.Config.(type) {
		case *spec.JSPubFast:
			out = append(out, need{"js pub fast", serverver.FastBatch})
		case *spec.JSPubBatch:
			out = append(out, need{"js pub atomic", serverver.AtomicBatch})
		case *spec.JSGetBatch:
			out = append(out, need{"js get batch", serverver.BatchGet})
		}
	}
	for _, st := range s.Setup.Streams {
		if st.PersistAsync {
			out = append(out, need{"--persistasync", serverver.AsyncPersist})
		}
	}
	return out
}

// CheckServerVersion refuses, before anything is created, a run whose workloads need what the
// target's server lacks (js pub fast on a server before 2.14), in one line naming the release
// they need. The version is the INFO of one connection: the server a client meets.
func CheckServerVersion(ctx context.Context, t *Target, s *spec.Spec) error {
	ns := needs(s)
	if len(ns) == 0 {
		return nil
	}
	nc, err := t.Dialer()(ctx, "natsperf-probe")
	if err != nil {
		return fmt.Errorf("connect: %w", err)
	}
	have := nc.ConnectedServerVersion()
	nc.Close()
	for _, n := range ns {
		if r := n.feature.Refusal(n.who, have); r != "" {
			return InputError{fmt.Errorf("%s", r)}
		}
	}
	return nil
}
