package verify

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/result"
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

// readIdle is how long the read-back's consumer may deliver nothing before the read-back starts
// it again from the last sequence read.
const readIdle = 3 * time.Second

// consumerTries is how many consumers in a row may fail to deliver anything before the
// read-back falls back to reading the rest one sequence at a time.
const consumerTries = 3

// goneWait is how long a stream not found is asked for again before it is taken as gone.
const goneWait = 5 * time.Second

// getTimeout bounds one get by sequence.
const getTimeout = 2 * time.Second

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
	rd := &reader{src: src, found: found}
	for _, id := range ids {
		v.Sent += max(acks.get(id).Sent(), acks.get(id).Count())
	}
	first, err := rd.read(ctx)
	gone := errors.Is(err, jetstream.ErrStreamNotFound) && acks.Total() > 0
	if err != nil && !gone {
		v.Error = err.Error()
		return v
	}
	v.Sent = 0 // counted again per publisher below
	v.Unreadable, v.ReadRetries, v.ReadByGet = rd.unreadable, rd.retries, rd.byGet
	if gone {
		// Acknowledged, then gone (a power failure can take the stream's own metadata): every
		// acknowledged message is lost, which is what a reader of the stream now finds.
		v.Note = fmt.Sprintf("stream %s no longer exists after the run: every acknowledged message is lost", src.Stream)
	} else if src.FromSeq > 0 && first > src.FromSeq {
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
		if len(v.Unreadable) > 0 {
			// Not found among what could be read: they may be in the sequences that could not.
			v.AckedNotRead += p.AckedButMissing
			p.AckedButMissing = 0
		}
		got.seen.Each(func(seq uint64) {
			if !acked.Has(seq) {
				p.StoredNotAcked++
			}
		})
		// Every publish attempted: what was neither acknowledged nor stored failed (timed out,
		// refused, not sent), and the publisher knew.
		p.Sent = max(acked.Sent(), p.Acked)
		p.Failed = max(0, p.Sent-p.Acked-p.StoredNotAcked)
		if len(v.Unreadable) > 0 {
			p.Failed = 0 // they may be in what could not be read
		}
		v.Sent += p.Sent
		v.Failed += p.Failed
		v.Stored += p.Stored
		v.Duplicates += p.Duplicates
		v.AckedButMissing += p.AckedButMissing
		v.StoredNotAcked += p.StoredNotAcked
		v.Publishers = append(v.Publishers, p)
	}
	return v
}

// reader reads a stream back sequence by sequence, whatever faults it meets on the way.
type reader struct {
	stampBuf   [stamp.ExtSize]byte // a stamp decoded from the Natsperf-Stamp header
	src        Source
	found      map[uint32]*stored
	next       uint64 // the next stream sequence to read
	last       uint64 // the stream's last sequence when the read-back began
	unreadable []result.SeqRange
	retries    int
	byGet      int64
}

// read walks the stream from src.FromSeq to its last sequence, marking every stamp of a known
// publisher on the run's subjects. It reads with an ordered consumer of the whole stream, so
// every sequence it passes is accounted for (delivered or deleted), starts a new consumer from
// the last sequence read when one stalls or fails (a leader change), and reads what the
// consumers could not with gets by sequence; what even those cannot read is kept in unreadable.
// It returns the stream's first sequence, to tell losses from messages its limits removed; an
// error only when the stream cannot be found or answers nothing at all.
func (r *reader) read(ctx context.Context) (uint64, error) {
	info, err := streamInfo(ctx, r.src.JS, r.src.Stream, r.wait())
	for deadline := time.Now().Add(min(goneWait, r.wait())); errors.Is(err, jetstream.ErrStreamNotFound) && time.Now().Before(deadline) && ctx.Err() == nil; {
		// Just after a recovery the meta leader may not know the stream yet: ask again.
		time.Sleep(500 * time.Millisecond)
		info, err = streamInfo(ctx, r.src.JS, r.src.Stream, r.wait())
	}
	if err != nil {
		return 0, err
	}
	first, last := info.State.FirstSeq, info.State.LastSeq
	if last < r.src.FromSeq || info.State.Msgs == 0 {
		return first, nil // nothing of the run is stored
	}
	r.next, r.last = max(r.src.FromSeq, first, 1), last
	// A leader elected just before may answer with a last sequence that lags what it has
	// committed (acknowledged) until it has applied it: read on while the last sequence grows.
	for pass := 1; ; pass++ {
		r.readTo(ctx)
		if pass == 3 || ctx.Err() != nil {
			break
		}
		info, err := streamInfo(ctx, r.src.JS, r.src.Stream, r.wait())
		if err != nil || info.State.LastSeq <= r.last {
			break
		}
		r.last = info.State.LastSeq
	}
	return first, nil
}

// readTo reads r.next to r.last: consumers first, then gets by sequence.
func (r *reader) readTo(ctx context.Context) {
	for failed := 0; r.next <= r.last && failed < consumerTries && ctx.Err() == nil; {
		from := r.next
		if err := r.consume(ctx); err == nil {
			break
		}
		if r.next == from {
			failed++
		} else {
			failed = 0
		}
		if r.next <= r.last {
			r.retries++
			// Wait for the stream to answer again (a new leader) before the next consumer.
			_, _ = streamInfo(ctx, r.src.JS, r.src.Stream, r.wait())
		}
	}
	if r.next <= r.last {
		r.getRest(ctx)
	}
}

func (r *reader) wait() time.Duration {
	if r.src.Wait > 0 {
		return r.src.Wait
	}
	return 15 * time.Second
}

// consume reads from r.next with one ordered consumer until r.last, or returns why it stopped.
func (r *reader) consume(ctx context.Context) error {
	cfg := jetstream.OrderedConsumerConfig{
		DeliverPolicy: jetstream.DeliverByStartSequencePolicy, OptStartSeq: r.next, Metadata: r.src.Metadata,
		InactiveThreshold: 10 * time.Second, // gone soon after the read-back, not minutes later
	}
	cctx, cancel := context.WithTimeout(ctx, r.wait())
	cons, err := r.src.JS.OrderedConsumer(cctx, r.src.Stream, cfg)
	cancel()
	if err != nil {
		return err
	}
	it, err := cons.Messages(jetstream.PullExpiry(2 * time.Second))
	if err != nil {
		return err
	}
	defer it.Stop()
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		msg, err := it.Next(jetstream.NextMaxWait(readIdle))
		if err != nil {
			return err
		}
		meta, err := msg.Metadata()
		if err != nil {
			return err
		}
		seq := meta.Sequence.Stream
		if seq < r.next {
			continue // read before a reset
		}
		r.mark(msg.Subject(), stamp.Find(msg.Headers(), msg.Data(), &r.stampBuf))
		r.next = seq + 1
		if seq >= r.last {
			return nil
		}
	}
}

// mark records a stored message of the run's subjects; st is its stamp (stamp.Find: the
// payload, or the Natsperf-Stamp header).
func (r *reader) mark(subject string, st []byte) {
	if !r.ours(subject) {
		return
	}
	if pub, seq, _, ok := stamp.Get(st); ok {
		if s := r.found[pub]; s != nil && s.seen.Set(seq) {
			s.dups++
		}
	}
}

// ours reports whether subject is one of the run's.
func (r *reader) ours(subject string) bool {
	if len(r.src.Subjects) == 0 {
		return true
	}
	for _, f := range r.src.Subjects {
		if server.SubjectMatchesFilter(subject, f) {
			return true
		}
	}
	return false
}

// getRest reads r.next to r.last one sequence at a time, retrying each. Once the stream has
// answered nothing for the wait, the sequences not read yet are kept in unreadable.
func (r *reader) getRest(ctx context.Context) {
	stream, _ := r.src.JS.Stream(ctx, r.src.Stream)
	lastOK := time.Now()
	for ; r.next <= r.last; r.next++ {
		for r.get(ctx, stream, r.next) != nil {
			if ctx.Err() != nil || time.Since(lastOK) > r.wait() {
				r.unreadable = append(r.unreadable, result.SeqRange{First: r.next, Last: r.last})
				r.next = r.last + 1
				return
			}
			time.Sleep(100 * time.Millisecond)
		}
		lastOK = time.Now()
	}
}

// get reads one sequence: from the stream leader through the JetStream API, or else as a
// direct get (any replica answers, so an absent message is only believed from the leader).
func (r *reader) get(ctx context.Context, stream jetstream.Stream, seq uint64) error {
	gctx, cancel := context.WithTimeout(ctx, getTimeout)
	defer cancel()
	subject, hdr, data, err := leaderGet(gctx, r.src.JS.Conn(), connect.API(r.src.JS), r.src.Stream, seq)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		r.byGet++
		return nil // deleted, or removed by the stream's limits
	}
	if err != nil && stream != nil {
		var msg *jetstream.RawStreamMsg
		if msg, err = stream.GetMsg(gctx, seq); err == nil {
			subject, hdr, data = msg.Subject, msg.Header, msg.Data
		}
	}
	if err != nil {
		return err
	}
	r.byGet++
	r.mark(subject, stamp.Find(hdr, data, &r.stampBuf))
	return nil
}

// leaderGet asks the stream leader for message seq ($JS.API.STREAM.MSG.GET).
func leaderGet(ctx context.Context, nc *nats.Conn, api, stream string, seq uint64) (string, nats.Header, []byte, error) {
	req, _ := json.Marshal(struct {
		Seq uint64 `json:"seq"`
	}{seq})
	m, err := nc.RequestWithContext(ctx, api+"STREAM.MSG.GET."+stream, req)
	if err != nil {
		return "", nil, nil, err
	}
	var resp struct {
		Message *struct {
			Subject string `json:"subject"`
			Header  []byte `json:"hdrs"`
			Data    []byte `json:"data"`
		} `json:"message"`
		Error *jetstream.APIError `json:"error"`
	}
	if err := json.Unmarshal(m.Data, &resp); err != nil {
		return "", nil, nil, err
	}
	if resp.Error != nil {
		if resp.Error.ErrorCode == jetstream.JSErrCodeMessageNotFound {
			return "", nil, nil, jetstream.ErrMsgNotFound
		}
		return "", nil, nil, resp.Error
	}
	if resp.Message == nil {
		return "", nil, nil, errors.New("empty message get response")
	}
	var hdr nats.Header
	if len(resp.Message.Header) > 0 {
		if hdr, err = nats.DecodeHeadersMsg(resp.Message.Header); err != nil {
			return "", nil, nil, fmt.Errorf("message %d's headers: %w", seq, err)
		}
	}
	return resp.Message.Subject, hdr, resp.Message.Data, nil
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
