package engine

import (
	"sort"
	"time"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/spec"
)

// Split divides total messages across n clients, the first ones taking the remainder, as
// nats bench does. A total of 0 means open-ended (bounded by a duration): nil shares.
func Split(total int64, n int) []int64 {
	if total == 0 {
		return nil
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = total / int64(n)
		if int64(i) < total%int64(n) {
			out[i]++
		}
	}
	return out
}

// Each gives n clients the same count (nil for open-ended).
func Each(count int64, n int) []int64 {
	if count == 0 {
		return nil
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = count
	}
	return out
}

// SenderShares is what each of n senders sends: its part of msgs, capped at a fixed rate for
// a duration by what its schedule holds (the arithmetic the senders use), so the start lines
// and the expected totals are the real counts. nil: open-ended.
func SenderShares(msgs int64, rate float64, shape pace.Shape, d time.Duration, n int) []int64 {
	shares := Split(msgs, n)
	if rate <= 0 || d <= 0 {
		return shares
	}
	out := make([]int64, n)
	for i := range out {
		out[i] = int64(pace.NewPacer(rate, shape, n, i).Total(d))
		if shares != nil {
			out[i] = min(out[i], shares[i])
		}
	}
	return out
}

// Sum adds shares up (0: open-ended).
func Sum(shares []int64) int64 {
	var n int64
	for _, s := range shares {
		n += s
	}
	return n
}

// Params builds the start line's key=value list, sorted like nats bench's.
func Params(kv map[string]string) []harness.Param {
	keys := make([]string, 0, len(kv))
	for k := range kv {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	out := make([]harness.Param, 0, len(keys))
	for _, k := range keys {
		out = append(out, harness.Param{Key: k, Value: kv[k]})
	}
	return out
}

// Has reports whether item i (0-based) of n belongs to this part: parts take consecutive
// runs of items, differing in size by at most one.
func (p Part) Has(n, i int) bool {
	lo, hi := p.Range(n)
	return i >= lo && i < hi
}

// Range is this part's items [lo, hi) of n.
func (p Part) Range(n int) (lo, hi int) { return p.Index * n / p.Count, (p.Index + 1) * n / p.Count }

// Split keeps this part's clients of each group, each at its index in the whole group, with
// its share of the messages and of a fixed rate; groups left with no client here are dropped.
func (p Part) Split(groups []*harness.Group) []*harness.Group {
	var out []*harness.Group
	for _, g := range groups {
		lo, hi := p.Range(g.Clients)
		if hi == lo {
			continue
		}
		if g.Shares != nil {
			g.Shares = g.Shares[lo:hi]
		}
		if g.Rate > 0 {
			g.Rate *= float64(hi-lo) / float64(g.Clients)
		}
		g.Offset, g.Total, g.Clients = lo, g.Clients, hi-lo
		out = append(out, g)
	}
	return out
}

// Owner is the part that item i (0-based) of n belongs to.
func (p Part) Owner(n, i int) int {
	for q := range p.Count {
		if (Part{Index: q, Count: p.Count}).Has(n, i) {
			return q
		}
	}
	return 0
}

// partClocks tells, from a publisher id, which part of a distributed run publishes with it,
// and so how far that part's clock is from this one's.
type partClocks struct {
	base    uint32
	blocks  []idBlock // by id block (workload instance), in build order
	part    Part
	offsets []int64 // each part's clock minus the reference
}

// idBlock is one workload instance's publisher ids: all in one part (an instance run whole),
// or its producers' clients split across the parts.
type idBlock struct {
	part      int // the owner when whole
	producers int // when split: the producer group's clients in the whole run
}

// blockOf is a built instance's id block; groups are still whole (before Part.Split).
func blockOf(groups []*harness.Group, whole bool, here int) idBlock {
	if whole {
		return idBlock{part: here}
	}
	for _, g := range groups {
		if g.Producer {
			return idBlock{producers: g.Clients}
		}
	}
	return idBlock{part: here}
}

// skew is this part's clock minus the clock of the part that publishes with id: subtracted
// from the latencies of that publisher's messages. 0 for an id of no known part.
func (c partClocks) skew(id uint32) int64 {
	off := int((id - c.base) & stamp.MaxPublisher) // base + block*IDBlock + index + 1
	blk, idx := off/IDBlock, off%IDBlock-1
	if blk >= len(c.blocks) || idx < 0 {
		return 0
	}
	owner := c.blocks[blk].part
	if n := c.blocks[blk].producers; n > 0 {
		if idx >= n {
			return 0
		}
		owner = c.part.Owner(n, idx)
	}
	return c.offsets[c.part.Index] - c.offsets[owner]
}

// Unit says how a distributed run splits instance i (0-based) of workload wi of s: whole, as
// item Index of Total (an instance never spans processes: instances of a workload, and the
// workloads of one name, as a scenario cell writes its instances, spread across the parts),
// or, for an unnamed single workload (a command's), by client.
func Unit(s *spec.Spec, wi, i int) (whole bool, index, total int) {
	w := s.Workloads[wi]
	switch {
	case w.Instances > 1:
		return true, i, w.Instances
	case w.Name != "":
		for j, o := range s.Workloads {
			if o.Name == w.Name && o.Instances <= 1 {
				if j < wi {
					index++
				}
				total++
			}
		}
		return true, index, total
	}
	return false, 0, 0
}
