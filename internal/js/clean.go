package js

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/spec"
)

// Removal is one thing Clean removes (or would remove).
type Removal struct {
	Kind   string // "consumer", or the setup item's kind a stream holds: "stream", "KV bucket" (spec.KindOfStream)
	Name   string
	Stream string // the consumer's stream
	Msgs   uint64
	Bytes  uint64
}

func (r Removal) String() string {
	if r.Kind == "consumer" {
		return fmt.Sprintf("consumer %s on stream %s", r.Name, r.Stream)
	}
	return fmt.Sprintf("%s %s (%s msgs, %s)", r.Kind, r.Name, units.Comma(int64(r.Msgs)), units.FormatSize(int64(r.Bytes)))
}

// Clean removes every stream that carries natsperf's mark (whatever setup item it holds: a
// stream, a KV bucket; spec.KindOfStream names it) and every marked consumer, and nothing
// else. With dryRun it only lists them. report is called before each removal.
func Clean(ctx context.Context, js jetstream.JetStream, dryRun bool, report func(Removal)) ([]Removal, error) {
	var done []Removal
	lister := js.ListStreams(ctx)
	var infos []*jetstream.StreamInfo
	for info := range lister.Info() {
		infos = append(infos, info)
	}
	if err := lister.Err(); err != nil {
		return nil, fmt.Errorf("list streams: %w", err)
	}
	for _, info := range infos {
		name := info.Config.Name
		if Marked(info.Config.Metadata) {
			r := Removal{Msgs: info.State.Msgs, Bytes: info.State.Bytes}
			r.Kind, r.Name = spec.KindOfStream(name)
			report(r)
			if !dryRun {
				if err := js.DeleteStream(ctx, name); err != nil {
					return done, fmt.Errorf("delete stream %s: %w", name, err)
				}
			}
			done = append(done, r)
			continue
		}
		s, err := js.Stream(ctx, name)
		if err != nil {
			return done, fmt.Errorf("stream %s: %w", name, err)
		}
		cl := s.ListConsumers(ctx)
		var mine []string
		for ci := range cl.Info() {
			if Marked(ci.Config.Metadata) {
				mine = append(mine, ci.Name)
			}
		}
		if err := cl.Err(); err != nil {
			return done, fmt.Errorf("list consumers of %s: %w", name, err)
		}
		for _, c := range mine {
			r := Removal{Kind: "consumer", Name: c, Stream: name}
			report(r)
			if !dryRun {
				if err := s.DeleteConsumer(ctx, c); err != nil {
					return done, fmt.Errorf("delete consumer %s on %s: %w", c, name, err)
				}
			}
			done = append(done, r)
		}
	}
	return done, nil
}
