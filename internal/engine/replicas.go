package engine

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/result"
)

// replicaSettle bounds how long the read of every node's copy waits for followers to catch
// up after a recovery before calling the copies diverged.
const replicaSettle = 10 * time.Second

// replicasOf reads stream's copy on every node of natsperf's cluster, in-process or processes
// (nil for other targets and a single server).
func replicasOf(t *Target, stream string) func() []result.Replica {
	var read func(string) []embedded.Replica
	switch {
	case t == nil:
		return nil
	case t.Embedded != nil && t.Embedded.Size() > 1:
		read = t.Embedded.StreamReplicas
	case t.Procs != nil && t.Procs.Size() > 1:
		read = t.Procs.StreamReplicas
	default:
		return nil
	}
	return func() []result.Replica {
		var out []result.Replica
		for _, r := range ofPeers(read(stream)) {
			out = append(out, result.Replica{Node: r.Node, Present: r.Present, Down: r.Down, Msgs: r.Msgs, FirstSeq: r.FirstSeq, LastSeq: r.LastSeq})
		}
		return out
	}
}

// ofPeers keeps the nodes that hold a copy or are among the stream's peers as the holders
// report them: in a cluster larger than the stream's replicas the other nodes hold none by
// design. With no holder telling its peers (the stream gone), every node stays.
func ofPeers(rs []embedded.Replica) []embedded.Replica {
	peers := map[string]bool{}
	for _, r := range rs {
		for _, p := range r.Peers {
			peers[p] = true
		}
	}
	if len(peers) == 0 {
		return rs
	}
	var out []embedded.Replica
	for _, r := range rs {
		if r.Present || peers[r.Node] {
			out = append(out, r)
		}
	}
	return out
}

// settledReplicas reads the copies until those that hold the stream agree or replicaSettle
// passes, and returns the last reading with the nodes that disagree with the most common copy.
func settledReplicas(ctx context.Context, read func() []result.Replica) ([]result.Replica, []string) {
	deadline := time.Now().Add(replicaSettle)
	for {
		rs := read()
		div := divergedReplicas(rs)
		if len(div) == 0 || time.Now().After(deadline) || ctx.Err() != nil {
			return rs, div
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// divergedReplicas names the running nodes whose copy (messages, first and last sequence)
// differs from the copy most nodes hold; with no majority, every node that holds one.
func divergedReplicas(rs []result.Replica) []string {
	key := func(r result.Replica) string {
		if !r.Present {
			return "absent"
		}
		return fmt.Sprintf("%d/%d/%d", r.Msgs, r.FirstSeq, r.LastSeq)
	}
	count := map[string]int{}
	held := 0
	for _, r := range rs {
		if !r.Down {
			count[key(r)]++
		}
		if r.Present {
			held++
		}
	}
	if held == 0 || len(count) < 2 {
		return nil // all agree, or no node holds it (verify says the stream is gone)
	}
	best, n := "", 0
	for k, c := range count {
		if c > n || (c == n && k < best) {
			best, n = k, c
		}
	}
	var out []string
	for _, r := range rs {
		if !r.Down && (key(r) != best || n*2 <= len(rs)) {
			out = append(out, r.Node)
		}
	}
	slices.Sort(out)
	return out
}
