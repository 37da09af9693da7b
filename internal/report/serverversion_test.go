package report

import (
	"testing"

	"github.com/natsperf/natsperf/result"
)

func TestRunsOfOtherServerVersionsAreAnotherCell(t *testing.T) {
	res := func(v string) *result.Result {
		return &result.Result{Servers: []result.Server{{Name: "n1", Version: v}, {Name: "n2", Version: v}}}
	}
	at := map[string]*Cell{"pub": {Name: "pub", Runs: []Entry{{Cell: "pub", Result: res("2.12.15")}}}}
	same := apartByServer(Entry{Cell: "pub", Result: res("2.12.15")}, at)
	if same.Cell != "pub" {
		t.Fatalf("a run of the cell's version went to %q", same.Cell)
	}
	other := apartByServer(Entry{Cell: "pub", Values: map[string]string{"size": "1kb"}, Result: res("2.15.3")}, at)
	if other.Cell != "pub server=2.15.3" || other.Values[ServerAxis] != "2.15.3" || other.Values["size"] != "1kb" {
		t.Fatalf("a run of another version: cell %q values %v", other.Cell, other.Values)
	}
	if fresh := apartByServer(Entry{Cell: "sub", Result: res("2.15.3")}, at); fresh.Cell != "sub" {
		t.Fatalf("a new cell was renamed %q", fresh.Cell)
	}
}
