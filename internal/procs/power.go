package procs

import (
	"context"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/nodes"
)

// ErrNoPower is returned by PowerFail unless Options.PowerFail was set: the in-process
// cluster's error, so a caller tells it apart the same way for both.
var ErrNoPower = nodes.ErrNoPower

// PowerFail SIGKILLs the nodes' processes at one instant, as a power failure stops a machine
// (SIGKILL is immediate: no acknowledgement leaves a node after it), then drops from their
// stores what they had not fsynced, as the machine loses its page cache. It says how much
// was dropped. RestartAll (or Restart) brings the nodes back on what survived.
func (c *Cluster) PowerFail(idx []int) (string, error) {
	return nodes.PowerFail(ops{c}, idx, func(ns []*node) {
		// The instant: every signal goes out before any wait.
		c.mu.Lock()
		ps := make([]*process, 0, len(ns))
		for _, n := range ns {
			p := n.proc
			n.proc = nil
			if n.pauseTimer != nil {
				n.pauseTimer.Stop()
				n.pauseTimer = nil
			}
			_ = sigKill(p.cmd.Process.Pid)
			ps = append(ps, p)
		}
		c.mu.Unlock()
		for _, p := range ps {
			<-p.done
		}
		c.writePids()
	})
}

// RestartAll starts the nodes that are down among idx together, each on its store (its
// powerfs mounted again), and waits until they are ready. Nodes that all lost power must
// start together: one alone has no quorum and would never be ready.
func (c *Cluster) RestartAll(idx []int) error { return nodes.RestartAll(ops{c}, idx) }

// Corrupt flips one bit in the middle of the newest message block of node i's store, as a bad
// sector would. The node must be down (killed or power-failed): a running server would
// overwrite it. It says which file and byte.
func (c *Cluster) Corrupt(i int) (string, error) { return nodes.Corrupt(ops{c}, i) }

// jszStreams is the part of /jsz?accounts=true&streams=true StreamReplicas reads.
type jszStreams struct {
	Accounts []struct {
		Streams []struct {
			Name  string `json:"name"`
			State struct {
				Msgs     uint64 `json:"messages"`
				FirstSeq uint64 `json:"first_seq"`
				LastSeq  uint64 `json:"last_seq"`
			} `json:"state"`
			Cluster *struct {
				Leader   string `json:"leader"`
				Replicas []struct {
					Name string `json:"name"`
				} `json:"replicas"`
			} `json:"cluster"`
		} `json:"stream_detail"`
	} `json:"account_details"`
}

// StreamReplicas reads every node's own copy of stream from that node's /jsz (not through
// the stream leader), as the in-process cluster's. A running node whose monitoring port does
// not answer is reported down: its copy is unknown, not absent.
func (c *Cluster) StreamReplicas(stream string) []embedded.Replica {
	out := make([]embedded.Replica, 0, len(c.nodes))
	for _, n := range c.nodes {
		r := embedded.Replica{Node: n.Name, Down: c.alive(n) != nil}
		if !r.Down {
			ctx, cancel := context.WithTimeout(context.Background(), 2*httpClient.Timeout)
			j, err := getJSON[jszStreams](ctx, c.monitor(n), "/jsz?accounts=true&streams=true")
			cancel()
			r.Down = err != nil
			for _, a := range j.Accounts {
				for _, s := range a.Streams {
					if s.Name == stream {
						r.Present, r.Msgs, r.FirstSeq, r.LastSeq = true, s.State.Msgs, s.State.FirstSeq, s.State.LastSeq
						if ci := s.Cluster; ci != nil {
							r.Peers = append(r.Peers, ci.Leader)
							for _, p := range ci.Replicas {
								r.Peers = append(r.Peers, p.Name)
							}
						}
					}
				}
			}
		}
		out = append(out, r)
	}
	return out
}
