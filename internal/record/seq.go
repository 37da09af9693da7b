package record

// window is how far back, in sequence numbers, a tracker can tell a late message from a
// duplicate. A fixed window keeps memory constant however long the run.
const window = 1 << 16

// seqTracker follows the sequence numbers of one publisher.
type seqTracker struct {
	highest    uint64
	distinct   int64
	duplicated int64
	outOfOrder int64
	seen       [window / 64]uint64 // ring bitmap of the last `window` sequence numbers
	skew       int64               // Options.Skew of this publisher
}

func (t *seqTracker) bit(seq uint64) (word int, mask uint64) {
	i := seq % window
	return int(i / 64), 1 << (i % 64)
}

// observe records seq and reports whether it is new (false: a duplicate).
func (t *seqTracker) observe(seq uint64) bool {
	switch {
	case seq > t.highest:
		if seq-t.highest > window {
			t.seen = [window / 64]uint64{}
		} else {
			for s := t.highest + 1; s < seq; s++ {
				w, m := t.bit(s)
				t.seen[w] &^= m
			}
		}
		w, m := t.bit(seq)
		t.seen[w] |= m
		t.highest = seq
		t.distinct++
		return true
	case t.highest-seq >= window:
		// Too old to tell a duplicate from a late arrival: count it as out of order.
		t.outOfOrder++
		t.distinct++
		return true
	default:
		w, m := t.bit(seq)
		if t.seen[w]&m != 0 {
			t.duplicated++
			return false
		}
		t.seen[w] |= m
		t.outOfOrder++
		t.distinct++
		return true
	}
}

// gaps is the number of sequence numbers up to the highest seen that never arrived.
func (t *seqTracker) gaps() int64 {
	if g := int64(t.highest) - t.distinct; g > 0 {
		return g
	}
	return 0
}
