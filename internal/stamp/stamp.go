// Package stamp writes and reads the 16-byte header natsperf puts at the start of every message
// payload that is large enough: who sent it, its sequence number and when it was (meant to be)
// sent. Receivers use it for end-to-end latency and for lost, duplicated and out-of-order counts.
//
// Layout, little endian:
//
//	[0:8]   send time, Unix nanoseconds (int64)
//	[8:13]  sequence number, 40 bits, starting at 1
//	[13:16] publisher id, 23 bits, never 0; the top bit is reserved to mark a longer stamp
package stamp

import "encoding/binary"

// Size is the number of payload bytes a stamp takes; smaller payloads carry no stamp.
const Size = 16

// MaxSeq and MaxPublisher are the largest values the layout holds.
const (
	MaxSeq       = 1<<40 - 1
	MaxPublisher = 1<<23 - 1
)

// Put writes a stamp into the first Size bytes of buf, which must be at least Size long.
func Put(buf []byte, publisher uint32, seq uint64, sendNanos int64) {
	_ = buf[Size-1]
	binary.LittleEndian.PutUint64(buf[0:8], uint64(sendNanos))
	binary.LittleEndian.PutUint64(buf[8:16], seq&MaxSeq|uint64(publisher&MaxPublisher)<<40)
}

// Get reads a stamp. ok is false when buf is too short or holds no natsperf stamp.
func Get(buf []byte) (publisher uint32, seq uint64, sendNanos int64, ok bool) {
	if len(buf) < Size {
		return 0, 0, 0, false
	}
	sendNanos = int64(binary.LittleEndian.Uint64(buf[0:8]))
	v := binary.LittleEndian.Uint64(buf[8:16])
	seq, publisher = v&MaxSeq, uint32(v>>40)&MaxPublisher
	if publisher == 0 || seq == 0 || sendNanos <= 0 {
		return 0, 0, 0, false
	}
	return publisher, seq, sendNanos, true
}
