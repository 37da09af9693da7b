package record

// SentN records k messages of n payload bytes each that were published at now, one clock
// reading for all of them: what the unpaced publisher's hot loop does for each stretch
// between clock reads, with one atomic add instead of k.
func (r *Recorder) SentN(now int64, k, n int) {
	if k > 0 {
		r.countN(now, k, n, true) // a publisher's messages are each its own
	}
}
