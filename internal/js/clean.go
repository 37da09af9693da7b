package js

import (
	"context"
	"fmt"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/units"
)

// Removal is one thing Clean removes (or would remove).
type Removal struct {
	Kind   string // "stream", "bucket", "consumer"
	Name   string
	Stream string // the consumer's stream
	Msgs   uint64
	Bytes  uint64
}

func (r Removal) String() string {
	switch r.Kind {
	case "consumer":
		return fmt.Sprintf("consumer %s on stream %s", r.Name, r.Stream)
	case "bucket":
		return fmt.Sprintf("KV bucket %s (%s msgs, %s)", r.Name, units.Comma(int64(r.Msgs)), units.FormatSize(int64(r.Bytes)))
	}
	return fmt.Sprintf("stream %s (%s msgs, %s)", r.Name, units.Comma(int64(r.Msgs)), units.FormatSize(int64(r.Bytes)))
}

// Clean removes every stream, KV bucket and consumer that carries natsperf's mark, and nothing
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
			r := Removal{Kind: "stream", Name: name, Msgs: info.State.Msgs, Bytes: info.State.Bytes}
			if b, ok := strings.CutPrefix(name, "KV_"); ok {
				r.Kind, r.Name = "bucket", b
			}
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
