package engine

import (
	"context"
	"fmt"
	"time"

	"github.com/klauspost/compress/s2"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/result"
)

// incompressible is the share of its size a payload keeps under S2 above which compressing
// the stream is said to gain nothing on the payload itself.
const incompressible = 0.9

// Fill is the workload's payload filler (--payload-fill; zero: text, and echoed as nothing).
func (b *Build) Fill() stamp.Fill { return stamp.Fill(b.Workload.PayloadFill) }

// payloadKept is the share of the payload bytes that S2 keeps when it compresses a run of
// messages of size bytes as the server compresses a block: message(b, i) writes message i
// into b, as the publishers would, so matches across messages count as they do in the store.
// Near 1, the payload does not compress.
func payloadKept(size int, message func(b []byte, i int)) float64 {
	if size <= 0 {
		return 1
	}
	n := min(max(sampleBytes/size, 1), 1024)
	sample := make([]byte, n*size)
	for i := range n {
		message(sample[i*size:(i+1)*size], i)
	}
	return float64(len(s2.Encode(nil, sample))) / float64(len(sample))
}

// stamped writes messages as natsperf's publishers do: the fill's body, stamped with the
// message's sequence and a send time a microsecond apart.
func stamped(f stamp.Fill, size int) func(b []byte, i int) {
	body, now := f.Payload(size), time.Now().UnixNano()
	return func(b []byte, i int) {
		copy(b, body)
		seq, at := uint64(i+1), now+int64(i)*1000
		switch {
		case size >= stamp.ExtSize:
			stamp.PutExt(b, 1, seq, at, at+1)
		case size >= stamp.Size:
			stamp.Put(b, 1, seq, at)
		}
	}
}

// sampleBytes is about how much payload payloadKept compresses: a fraction of a block.
const sampleBytes = 256 << 10

// checkCompression says, once the stream is ready, when its compression cannot do what it is
// there for: a memory stream (the server compresses file blocks only), or a payload that does
// not compress. c is the stream as the server has it, so a user's stream counts too.
func (s *jsSession) checkCompression(c jetstream.StreamConfig, size int64) {
	if c.Compression != jetstream.S2Compression {
		return
	}
	if c.Storage == jetstream.MemoryStorage {
		s.warn("Stream %s has compression s2 but memory storage, which nats-server keeps uncompressed", c.Name)
		return
	}
	if kept := payloadKept(int(size), stamped(s.payload, int(size))); kept > incompressible {
		fill := strOr(string(s.payload), string(stamp.FillText))
		s.warn("Stream %s compresses with s2, but the payload (%s, %s fill) is incompressible: S2 keeps %.0f%% of it, so only record headers and subjects shrink",
			c.Name, units.FormatSize(size), fill, 100*kept)
	}
}

// diskBytes adds what st's blocks occupy on the embedded server's disks (every replica); the
// disks of other servers are not natsperf's to read. The server compresses a full block in
// the background, so the figure is read until it holds still (bounded by diskSettle).
func (s *jsSession) diskBytes(ctx context.Context, st *result.StreamState) {
	if s.t.Embedded == nil || st.Storage != "file" {
		return
	}
	n, err := s.t.Embedded.StreamDiskBytes(st.Name)
	for end := time.Now().Add(diskSettle); err == nil && time.Now().Before(end); {
		select {
		case <-ctx.Done():
			end = time.Time{}
			continue
		case <-time.After(diskPoll):
		}
		var again uint64
		if again, err = s.t.Embedded.StreamDiskBytes(st.Name); again == n {
			break
		}
		n = again
	}
	if err != nil {
		s.warnings = append(s.warnings, fmt.Sprintf("stream %s: bytes on disk unavailable: %v", st.Name, err))
		return
	}
	st.DiskBytes = n
}

// A stream's bytes on disk are read every diskPoll until two reads agree, for at most
// diskSettle: compressing a full 8 MB block takes a few milliseconds.
const (
	diskPoll   = 100 * time.Millisecond
	diskSettle = 3 * time.Second
)

// compressionOf is a spec's compression as the server's setting (validated: s2 or none).
func compressionOf(name string) jetstream.StoreCompression {
	c, _ := js.ParseCompression(name)
	return c
}
