// Package stamp writes and reads the 16-byte header natsperf puts at the start of every message
// payload that is large enough: who sent it, its sequence number and when it was (meant to be)
// sent. Receivers use it for end-to-end latency and for lost, duplicated and out-of-order counts.
//
// Layout, little endian:
//
//	[0:8]   send time, Unix nanoseconds (int64)
//	[8:13]  sequence number, 40 bits, starting at 1
//	[13:16] publisher id, 23 bits, never 0; the top bit marks an extended stamp
//	[16:24] extended stamps only: actual send time, Unix nanoseconds (int64)
//
// A fixed-rate sender writes the intended send time at [0:8]; when the payload has room it
// writes an extended stamp whose [16:24] holds the actual send time as well, so a receiver can
// report the uncorrected latency beside the corrected one.
package stamp

import (
	"encoding/binary"
	"math/rand/v2"
)

// Size is the number of payload bytes a stamp takes; smaller payloads carry no stamp.
const Size = 16

// ExtSize is the number of payload bytes an extended stamp takes.
const ExtSize = 24

// extFlag is the top bit of the publisher field: set, the stamp is extended.
const extFlag = 1 << 63

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

// PutTime and PutSeq write a stamp in two parts, for a publisher that stamps a run of
// messages with one clock reading: the time once, then only each message's sequence number.
// PutSeq's id is SeqID(publisher).

// PutTime writes the send time of a stamp into buf (at least Size long).
func PutTime(buf []byte, sendNanos int64) {
	binary.LittleEndian.PutUint64(buf[0:8], uint64(sendNanos))
}

// SeqID is publisher as PutSeq takes it: shifted into place once, not per message.
func SeqID(publisher uint32) uint64 { return uint64(publisher&MaxPublisher) << 40 }

// PutSeq writes the sequence number and publisher of a stamp (id from SeqID) into buf.
func PutSeq(buf []byte, id, seq uint64) {
	binary.LittleEndian.PutUint64(buf[8:16], seq&MaxSeq|id)
}

// Window is how far a stamp's send time may lie from the receiver's clock. The layout has no
// magic number, so any 16 bytes with a non-zero sequence and publisher decode: text (128 'x'
// bytes read as a send time in 2245; any printable ASCII as 2043 or later) and JSON are told
// apart by their time, random binary passes about once in 50,000 payloads. A day leaves room
// for unsynchronised clocks between machines.
const Window = int64(24 * 60 * 60 * 1e9)

// Current reports whether a stamp sent at sendNanos can be this run's at a receiver whose
// clock reads now: within Window of it, either way.
func Current(sendNanos, now int64) bool {
	return sendNanos > now-Window && sendNanos < now+Window
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

// PutExt writes an extended stamp, with the intended and the actual send time, into the first
// ExtSize bytes of buf, which must be at least ExtSize long.
func PutExt(buf []byte, publisher uint32, seq uint64, intendedNanos, actualNanos int64) {
	_ = buf[ExtSize-1]
	binary.LittleEndian.PutUint64(buf[0:8], uint64(intendedNanos))
	binary.LittleEndian.PutUint64(buf[8:16], seq&MaxSeq|uint64(publisher&MaxPublisher)<<40|extFlag)
	binary.LittleEndian.PutUint64(buf[16:24], uint64(actualNanos))
}

// GetExt reads a stamp like Get and, for an extended one, the actual send time; actualNanos is
// 0 for a plain stamp.
func GetExt(buf []byte) (publisher uint32, seq uint64, sendNanos, actualNanos int64, ok bool) {
	if len(buf) < Size {
		return 0, 0, 0, 0, false
	}
	sendNanos = int64(binary.LittleEndian.Uint64(buf[0:8]))
	v := binary.LittleEndian.Uint64(buf[8:16])
	seq, publisher = v&MaxSeq, uint32(v>>40)&MaxPublisher
	if publisher == 0 || seq == 0 || sendNanos <= 0 {
		return 0, 0, 0, 0, false
	}
	if v&extFlag != 0 && len(buf) >= ExtSize {
		actualNanos = int64(binary.LittleEndian.Uint64(buf[16:24]))
		if actualNanos < 0 {
			actualNanos = 0
		}
	}
	return publisher, seq, sendNanos, actualNanos, true
}

// IDs hands out the publisher ids written into stamps. The random base keeps two natsperf
// processes publishing to one receiver apart (1 in 2048 chance of a clash).
type IDs uint32

// NewIDs draws a random base.
func NewIDs() IDs { return IDs(rand.Uint32N(2048) << 12) }

// For returns the id of client index (0-based).
func (p IDs) For(index int) uint32 {
	id := (uint32(p) + uint32(index) + 1) & MaxPublisher
	if id == 0 {
		id = 1
	}
	return id
}

// Payload is a message body of size bytes: room for the stamp, then the text filler.
func Payload(size int) []byte { return FillText.Payload(size) }
