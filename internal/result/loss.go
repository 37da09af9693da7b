package result

// Loss is the data loss r shows: with --verify, acknowledged messages the stream does not hold
// plus the receivers' sequence gaps the verification kept as lost; without it, the receivers'
// sequence gaps. Messages never sent ("not received") or still in the stream ("not consumed")
// are not loss. The exit code of a completed run depends on it.
func (r *Result) Loss() int64 {
	if v := r.Verify; v != nil {
		// The verify figures already account for the receivers (and, for JetStream, move the
		// gaps the stream still holds to NotConsumed).
		return v.AckedButMissing + v.Lost
	}
	var n int64
	for _, g := range r.Groups {
		if c := g.Aggregate.Correctness; c != nil {
			n += c.Lost
		}
	}
	return n
}
