package engine

import (
	"slices"
	"testing"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/result"
)

func TestDivergedReplicas(t *testing.T) {
	r := func(node string, msgs, last uint64) result.Replica {
		return result.Replica{Node: node, Present: true, Msgs: msgs, FirstSeq: 1, LastSeq: last}
	}
	tests := []struct {
		name string
		rs   []result.Replica
		want []string
	}{
		{"agree", []result.Replica{r("n1", 10, 10), r("n2", 10, 10), r("n3", 10, 10)}, nil},
		{"one behind", []result.Replica{r("n1", 10, 10), r("n2", 7, 7), r("n3", 10, 10)}, []string{"n2"}},
		{"one without a copy", []result.Replica{r("n1", 10, 10), {Node: "n2"}, r("n3", 10, 10)}, []string{"n2"}},
		{"down is not diverged", []result.Replica{r("n1", 10, 10), {Node: "n2", Down: true}, r("n3", 10, 10)}, nil},
		{"no majority", []result.Replica{r("n1", 10, 10), r("n2", 7, 7), r("n3", 5, 5)}, []string{"n1", "n2", "n3"}},
		{"gone everywhere", []result.Replica{{Node: "n1"}, {Node: "n2"}, {Node: "n3"}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := divergedReplicas(tt.rs); !slices.Equal(got, tt.want) {
				t.Errorf("diverged %v, want %v", got, tt.want)
			}
		})
	}
}

// TestOfPeers: in a cluster larger than the stream's replicas, the nodes outside its peers
// hold no copy by design and are not read as diverged (5 nodes, R3 once said DIVERGED).
func TestOfPeers(t *testing.T) {
	peers := []string{"n2", "n3", "n5"}
	held := func(n string) embedded.Replica {
		return embedded.Replica{Node: n, Present: true, Msgs: 10, FirstSeq: 1, LastSeq: 10, Peers: peers}
	}
	absent := func(n string) embedded.Replica { return embedded.Replica{Node: n} }
	names := func(rs []embedded.Replica) (out []string) {
		for _, r := range rs {
			out = append(out, r.Node)
		}
		return out
	}
	// n3 is a peer that lost its copy: it stays, and is diverged; n1 and n4 are not peers.
	got := ofPeers([]embedded.Replica{absent("n1"), held("n2"), absent("n3"), absent("n4"), held("n5")})
	if want := []string{"n2", "n3", "n5"}; !slices.Equal(names(got), want) {
		t.Errorf("kept %v, want %v", names(got), want)
	}
	var rs []result.Replica
	for _, r := range got {
		rs = append(rs, result.Replica{Node: r.Node, Present: r.Present, Msgs: r.Msgs, FirstSeq: r.FirstSeq, LastSeq: r.LastSeq})
	}
	if div := divergedReplicas(rs); !slices.Equal(div, []string{"n3"}) {
		t.Errorf("diverged %v, want [n3]", div)
	}
	// The stream gone everywhere: no holder names its peers, every node stays.
	gone := []embedded.Replica{absent("n1"), absent("n2"), absent("n3")}
	if got := ofPeers(gone); len(got) != 3 {
		t.Errorf("stream gone: kept %v, want all 3", names(got))
	}
}
