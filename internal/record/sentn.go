package record

// SentN records k messages of n payload bytes each that were published at now, one clock
// reading for all of them: what the unpaced publisher's hot loop does for each stretch
// between clock reads, with one atomic add instead of k.
func (r *Recorder) SentN(now int64, k, n int) {
	if k <= 0 {
		return
	}
	r.msgs.Add(int64(k))
	r.unique.Add(int64(k)) // a publisher's messages are each its own
	if g := now - r.prev; g > r.gap && r.prev != 0 {
		r.gap, r.gapEnd = g, now
	}
	r.prev = now
	warmupEnd := r.warmupEnd.Load()
	if now < warmupEnd {
		r.warmup += int64(k)
		return
	}
	if r.begin == 0 || r.begin < warmupEnd {
		r.begin = now
	}
	r.last = now
	r.bytes += int64(k * n)
	if now-r.ivStart >= r.interval {
		r.roll(now)
	}
	r.ivMsgs += int64(k)
	r.ivBytes += int64(k * n)
}
