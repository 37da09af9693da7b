package js

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/stamp"
)

// fillWindow is how many fill messages may await their acks.
const fillWindow = 1000

// Fill publishes n stamped messages of size bytes, filled with f, to subject before a read
// benchmark. It is setup: nothing is measured.
func Fill(ctx context.Context, js jetstream.JetStream, subject string, n int64, size int, f stamp.Fill) error {
	return fill(ctx, js, "fill "+subject, n, size, f, func(int64) string { return subject })
}

// fill publishes n stamped messages of size bytes (message i on subject(i), sequence i+1)
// asynchronously, in windows of fillWindow whose acks it waits for before the next window.
// what names the fill in its errors. Each stamped message keeps its own body until acked.
func fill(ctx context.Context, js jetstream.JetStream, what string, n int64, size int, f stamp.Fill, subject func(i int64) string) error {
	buf := f.Payload(size)
	for i := int64(0); i < n; {
		end := min(n, i+fillWindow)
		for ; i < end; i++ {
			data := buf
			if len(buf) >= stamp.Size {
				data = make([]byte, size)
				copy(data, buf)
				stamp.Put(data, stamp.MaxPublisher, uint64(i+1), time.Now().UnixNano())
			}
			if _, err := js.PublishAsync(subject(i), data); err != nil {
				return fmt.Errorf("%s: %w", what, err)
			}
		}
		select {
		case <-js.PublishAsyncComplete():
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(30 * time.Second):
			return fmt.Errorf("%s: no acknowledgements for 30s", what)
		}
	}
	return nil
}

// FillErrors checks the fill's acks landed: the stream must now hold at least want messages.
func FillErrors(ctx context.Context, s *Stream, want uint64) error {
	if err := s.Refresh(ctx); err != nil {
		return err
	}
	if got := s.Info.State.Msgs; got < want {
		return fmt.Errorf("stream %s holds %d messages after filling, want %d (limits such as --maxbytes may discard them)", s.Info.Config.Name, got, want)
	}
	return nil
}
