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

// Add adds x's counts to c: receivers' counts summed into a group's, or parts' into a merged
// Result's. The per-publisher figures and highest sequences are the caller's to combine.
func (c *Correctness) Add(x *Correctness) {
	c.Received += x.Received
	c.Unstamped += x.Unstamped
	c.Lost += x.Lost
	c.Duplicated += x.Duplicated
	c.OutOfOrder += x.OutOfOrder
	c.Expected += x.Expected
	c.NotReceived += x.NotReceived
	c.Failed += x.Failed
	c.NotConsumed += x.NotConsumed
}

// NotRecovered is the run's longest time without success still open when its client ended
// (Faults.NotRecovered); nil when every client recovered, or the run measured no
// availability (no --verify and no faults).
func (r *Result) NotRecovered() *Gap {
	if r.Faults != nil && r.Faults.NotRecovered != nil {
		return r.Faults.NotRecovered
	}
	if r.Verify != nil && r.Verify.NotRecovered {
		for _, g := range r.Groups {
			for _, c := range g.Clients {
				if n := c.NotRecovered; n != nil {
					w := *n
					w.Group, w.Client = g.Name, c.ID
					return &w
				}
			}
		}
	}
	return nil
}
