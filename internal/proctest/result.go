package proctest

import (
	"strings"
	"testing"
	"time"

	"github.com/HdrHistogram/hdrhistogram-go"

	"github.com/natsperf/natsperf/internal/histo"
	"github.com/natsperf/natsperf/result"
)

// The checks below are the ones every distributed run's Result gets, whether its processes run
// on loopback (internal/coord) or in network namespaces (internal/e2e).

// ReadResult reads the Result a coordinator saved at path.
func ReadResult(t *testing.T, path string) *result.Result {
	t.Helper()
	r, err := result.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// CheckMergedHistogram checks that g's aggregate latency is the histogram of every client's
// samples, and that those are want samples.
func CheckMergedHistogram(t *testing.T, g result.Group, want int64) {
	t.Helper()
	var hs []*hdrhistogram.Histogram
	for _, cl := range g.Clients {
		if cl.Latency == nil || cl.Latency.Histogram == "" {
			t.Fatalf("client %d (%s) has no histogram", cl.ID, cl.Part)
		}
		h, err := histo.Decode(cl.Latency.Histogram)
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, h)
	}
	all, agg := histo.Merge(hs...), g.Aggregate.Latency
	if agg == nil {
		t.Fatalf("group %s has no aggregate latency", g.Name)
	}
	if all.TotalCount() != want || agg.Count != all.TotalCount() || agg.Max != all.Max() || agg.Min != all.Min() {
		t.Errorf("aggregate count %d min %d max %d, clients' samples count %d min %d max %d (want %d)", agg.Count, agg.Min, agg.Max, all.TotalCount(), all.Min(), all.Max(), want)
	}
	for _, p := range agg.Percentiles {
		if want := all.ValueAtQuantile(p.P); p.Ns != want {
			t.Errorf("P%v: aggregate %d, clients' samples %d", p.P, p.Ns, want)
		}
	}
}

// CheckClockOffsets checks that every agent states its clock offset's uncertainty and that the
// offset is within it (plus slack for a loaded machine): the agents share one kernel's clock.
func CheckClockOffsets(t *testing.T, d *result.Distributed) {
	t.Helper()
	for _, a := range d.Agents {
		if a.ClockUncertaintyNS <= 0 || max(a.ClockOffsetNS, -a.ClockOffsetNS) > a.ClockUncertaintyNS+int64(50*time.Millisecond) {
			t.Errorf("agent %s: clock offset %d ± %d ns on one kernel's clock", a.Name, a.ClockOffsetNS, a.ClockUncertaintyNS)
		}
	}
}

// CheckLost checks the Result of a run that lost agent lost and kept the others (survivors):
// it names lost, and only lost, as lost; it stopped failed, saying so; every group holds data
// of every survivor and of no one else; and the text output (out) names the lost agent.
func CheckLost(t *testing.T, res *result.Result, out, lost string, survivors ...string) {
	t.Helper()
	d := res.Distributed
	if d == nil || len(d.Lost) != 1 || d.Lost[0] != lost {
		t.Fatalf("distributed %+v", d)
	}
	for _, a := range d.Agents {
		if a.Lost != (a.Name == lost) {
			t.Errorf("agent %s lost %v", a.Name, a.Lost)
		}
	}
	if res.Stop.Reason != result.StopFailed || !strings.Contains(res.Stop.Error, lost+" lost") {
		t.Errorf("stop %+v", res.Stop)
	}
	for _, g := range res.Groups {
		got := map[string]int64{}
		for _, cl := range g.Clients {
			got[cl.Part] += cl.Msgs
		}
		ok := len(got) == len(survivors)
		for _, s := range survivors {
			ok = ok && got[s] > 0
		}
		if !ok {
			t.Errorf("group %s: msgs by agent %v, want data of %v only", g.Name, got, survivors)
		}
	}
	if !strings.Contains(out, "LOST") {
		t.Errorf("text output does not name the lost agent:\n%s", out)
	}
}
