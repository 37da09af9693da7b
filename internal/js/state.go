package js

import (
	"context"
	"strings"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/result"
)

// State reads the stream's state for the Result. published and size, when published > 0, add
// the storage estimate published x replicas x size.
func State(ctx context.Context, js jetstream.JetStream, name string, published, size int64) (result.StreamState, error) {
	s, err := js.Stream(ctx, name)
	if err != nil {
		return result.StreamState{}, err
	}
	info := s.CachedInfo()
	st := result.StreamState{
		Name:              name,
		Storage:           StorageName(info.Config.Storage),
		Replicas:          max(info.Config.Replicas, 1),
		Messages:          info.State.Msgs,
		Bytes:             info.State.Bytes,
		CreatedByNatsperf: Marked(info.Config.Metadata),
		Compression:       CompressionName(info.Config.Compression),
	}
	if b, ok := strings.CutPrefix(name, "KV_"); ok {
		st.Bucket = b
	}
	if published > 0 {
		st.Published, st.MsgSize = published, size
		st.ExpectedBytes = published * int64(st.Replicas) * size
		st.StoredBytes = st.Bytes * uint64(st.Replicas)
	}
	return st, nil
}
