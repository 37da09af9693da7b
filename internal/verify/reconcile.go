package verify

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/internal/stamp"
)

// Source is where a run's messages were stored.
type Source struct {
	JS       jetstream.JetStream
	Stream   string
	Subjects []string // the run's subjects (filters); empty: the whole stream
	FromSeq  uint64   // the first stream sequence the run could have written
	Metadata map[string]string
	// Wait bounds how long to wait for the stream to answer again after a fault; 0: 15s.
	Wait time.Duration
}

// readIdle ends the read-back when nothing arrives for this long.
const readIdle = 5 * time.Second

// stored is what the read-back found of one publisher.
type stored struct {
	seen *Bits
	dups int64
}

// Reconcile reads the run's messages back from the stream and compares them with acks. A
// stream that cannot be read is reported in Error; the stored figures are then unknown, never
// taken as found.
func Reconcile(ctx context.Context, src Source, acks *Acks) result.Verify {
	v := result.Verify{Stream: src.Stream, Acked: acks.Total()}
	ids := acks.IDs()
	found := make(map[uint32]*stored, len(ids))
	for _, id := range ids {
		found[id] = &stored{seen: NewBits(uint64(acks.get(id).Count()))}
	}
	first, err := read(ctx, src, found)
	if err != nil {
		v.Error = err.Error()
		return v
	}
	if src.FromSeq > 0 && first > src.FromSeq {
		v.Note = fmt.Sprintf("stream %s now starts at sequence %d, after the run's first (%d): its own limits (max messages, bytes or age) removed messages, which count as acked-but-missing without having been lost by a failure", src.Stream, first, src.FromSeq)
	}
	for _, id := range ids {
		acked, got := acks.get(id), found[id]
		p := result.PublisherVerify{ID: id, Acked: acked.Count(), Stored: got.seen.Count(), Duplicates: got.dups}
		acked.Each(func(seq uint64) {
			if !got.seen.Has(seq) {
				p.AckedButMissing++
			}
		})
		got.seen.Each(func(seq uint64) {
			if !acked.Has(seq) {
				p.StoredNotAcked++
			}
		})
		v.Stored += p.Stored
		v.Duplicates += p.Duplicates
		v.AckedButMissing += p.AckedButMissing
		v.StoredNotAcked += p.StoredNotAcked
		v.Publishers = append(v.Publishers, p)
	}
	return v
}

// read walks the stream from src.FromSeq to its last sequence with an ordered consumer,
// marking every stamp of a known publisher.
// It returns the stream's first sequence, to tell losses from messages its limits removed.
func read(ctx context.Context, src Source, found map[uint32]*stored) (uint64, error) {
	wait := src.Wait
	if wait <= 0 {
		wait = 15 * time.Second
	}
	info, err := streamInfo(ctx, src.JS, src.Stream, wait)
	if err != nil {
		return 0, err
	}
	first, last := info.State.FirstSeq, info.State.LastSeq
	if last < src.FromSeq || info.State.Msgs == 0 {
		return first, nil // nothing of the run is stored
	}
	cfg := jetstream.OrderedConsumerConfig{
		FilterSubjects: src.Subjects, DeliverPolicy: jetstream.DeliverByStartSequencePolicy,
		OptStartSeq: max(src.FromSeq, info.State.FirstSeq, 1), Metadata: src.Metadata,
		InactiveThreshold: 10 * time.Second, // gone soon after the read-back, not minutes later
	}
	cctx, cancel := context.WithTimeout(ctx, wait)
	cons, err := src.JS.OrderedConsumer(cctx, src.Stream, cfg)
	cancel()
	if err != nil {
		return first, fmt.Errorf("read back stream %s: %w", src.Stream, err)
	}
	it, err := cons.Messages()
	if err != nil {
		return first, fmt.Errorf("read back stream %s: %w", src.Stream, err)
	}
	defer it.Stop()
	if pending, ok := numPending(ctx, cons); ok && pending == 0 {
		return first, nil // none of the run's subjects is stored
	}
	for {
		if err := ctx.Err(); err != nil {
			return first, fmt.Errorf("read back stream %s: %w", src.Stream, err)
		}
		msg, err := it.Next(jetstream.NextMaxWait(readIdle))
		if errors.Is(err, nats.ErrTimeout) || errors.Is(err, context.DeadlineExceeded) {
			return first, fmt.Errorf("read back stream %s: nothing for %s before sequence %d", src.Stream, readIdle, last)
		}
		if err != nil {
			return first, fmt.Errorf("read back stream %s: %w", src.Stream, err)
		}
		meta, err := msg.Metadata()
		if err != nil {
			return first, fmt.Errorf("read back stream %s: %w", src.Stream, err)
		}
		if pub, seq, _, ok := stamp.Get(msg.Data()); ok {
			if s := found[pub]; s != nil && s.seen.Set(seq) {
				s.dups++
			}
		}
		if meta.Sequence.Stream >= last || meta.NumPending == 0 {
			return first, nil
		}
	}
}

// streamInfo asks until the stream answers (a new leader may still be elected), bounded by wait.
func streamInfo(ctx context.Context, js jetstream.JetStream, name string, wait time.Duration) (*jetstream.StreamInfo, error) {
	deadline := time.Now().Add(wait)
	for {
		cctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		s, err := js.Stream(cctx, name)
		cancel()
		if err == nil {
			return s.CachedInfo(), nil
		}
		if errors.Is(err, jetstream.ErrStreamNotFound) || ctx.Err() != nil || time.Now().After(deadline) {
			return nil, fmt.Errorf("stream %s unavailable after the run: %w", name, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// numPending asks the read-back consumer how many messages it has to deliver.
func numPending(ctx context.Context, cons jetstream.Consumer) (uint64, bool) {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	info, err := cons.Info(ctx)
	if err != nil {
		return 0, false
	}
	return info.NumPending + uint64(info.NumAckPending) + info.Delivered.Consumer, true
}
