// Package verify checks delivery after a run: it records which messages each JetStream
// publisher had acknowledged, reads the stream back, and reconciles the two.
package verify

import (
	"math/bits"
	"sort"
	"sync"
	"sync/atomic"
)

// Bits is a growable bitmap over a publisher's sequence numbers (1-based): one bit per message.
type Bits struct {
	words []uint64
	n     int64 // bits set
	// sent is the highest sequence number the publisher attempted (every publish, acked or
	// not, sent or not): written by the publishing goroutine, read after the run.
	sent atomic.Uint64
}

// Attempted records that the publisher attempted seq (its sequences are attempted in order).
func (b *Bits) Attempted(seq uint64) { b.sent.Store(seq) }

// Sent is how many publishes were attempted: the highest sequence attempted.
func (b *Bits) Sent() int64 { return int64(b.sent.Load()) }

// NewBits returns a bitmap sized for hint sequence numbers, so a run of known length never
// grows it on the hot path.
func NewBits(hint uint64) *Bits {
	return &Bits{words: make([]uint64, 0, hint/64+1)}
}

// Set marks seq and reports whether it was already marked.
func (b *Bits) Set(seq uint64) bool {
	w := int(seq / 64)
	if w >= len(b.words) {
		b.grow(w)
	}
	m := uint64(1) << (seq % 64)
	if b.words[w]&m != 0 {
		return true
	}
	b.words[w] |= m
	b.n++
	return false
}

// grow extends the bitmap to hold word w (amortised doubling, off the usual path).
func (b *Bits) grow(w int) {
	if w < cap(b.words) {
		b.words = b.words[:w+1]
		return
	}
	nw := make([]uint64, w+1, max(2*cap(b.words), w+1))
	copy(nw, b.words)
	b.words = nw
}

// Has reports whether seq is marked.
func (b *Bits) Has(seq uint64) bool {
	w := int(seq / 64)
	return w < len(b.words) && b.words[w]&(uint64(1)<<(seq%64)) != 0
}

// Count is the number of marked sequence numbers.
func (b *Bits) Count() int64 { return b.n }

// Each calls f for every marked sequence number, in order.
func (b *Bits) Each(f func(seq uint64)) {
	for w, word := range b.words {
		for word != 0 {
			i := uint64(w*64) + uint64(bits.TrailingZeros64(word))
			f(i)
			word &= word - 1
		}
	}
}

// Acks holds the acknowledged set of every publisher of a run, by the publisher id written in
// its stamps. Each set has one writer (its publisher's ack path); it is read after the run.
type Acks struct {
	mu   sync.Mutex
	pubs map[uint32]*Bits
}

// NewAcks returns an empty registry.
func NewAcks() *Acks { return &Acks{pubs: map[uint32]*Bits{}} }

// Publisher returns publisher id's set, made for hint messages. Call it when setting up.
func (a *Acks) Publisher(id uint32, hint uint64) *Bits {
	a.mu.Lock()
	defer a.mu.Unlock()
	b, ok := a.pubs[id]
	if !ok {
		b = NewBits(hint)
		a.pubs[id] = b
	}
	return b
}

// IDs returns the publisher ids, sorted.
func (a *Acks) IDs() []uint32 {
	a.mu.Lock()
	defer a.mu.Unlock()
	ids := make([]uint32, 0, len(a.pubs))
	for id := range a.pubs {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return ids[i] < ids[j] })
	return ids
}

func (a *Acks) get(id uint32) *Bits {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.pubs[id]
}

// Total is the number of acknowledged messages over all publishers.
func (a *Acks) Total() int64 {
	a.mu.Lock()
	defer a.mu.Unlock()
	var n int64
	for _, b := range a.pubs {
		n += b.n
	}
	return n
}
