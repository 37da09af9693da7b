package engine

import (
	"slices"
	"testing"

	"github.com/natsperf/natsperf/internal/result"
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
