package fault

import (
	"testing"
	"time"
)

func TestParseLinkFaults(t *testing.T) {
	for _, c := range []struct {
		spec string
		want Action
	}{
		{"2s:partition", Action{At: 2 * time.Second, Kind: Partition}},
		{"2s:partition:3", Action{At: 2 * time.Second, Kind: Partition, Node: 3}},
		{"2s:partition:z2", Action{At: 2 * time.Second, Kind: Partition, Zone: 2}},
		{"5s:heal", Action{At: 5 * time.Second, Kind: Heal}},
		{"1s:delay:2:20ms", Action{At: time.Second, Kind: Delay, Node: 2, For: 20 * time.Millisecond}},
	} {
		got, err := Parse(c.spec)
		if err != nil || got != c.want {
			t.Errorf("Parse(%q) = %+v, %v; want %+v", c.spec, got, err, c.want)
			continue
		}
		if back, err := Parse(got.String()); err != nil || back != got {
			t.Errorf("%q prints as %q, which parses to %+v, %v", c.spec, got.String(), back, err)
		}
		if !got.NeedsCluster() || !got.NeedsLinks() {
			t.Errorf("%q: NeedsCluster %v NeedsLinks %v", c.spec, got.NeedsCluster(), got.NeedsLinks())
		}
	}
	for _, bad := range []string{"2s:partition:z0", "2s:partition:zx", "2s:partition:1:2", "2s:heal:1", "2s:delay:1", "2s:delay:1:-5ms", "2s:delay:x:5ms"} {
		if a, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) = %+v, want an error", bad, a)
		}
	}
	if a, _ := Parse("2s:partition"); !a.NeedsStream() {
		t.Error("a bare partition finds the stream leader")
	}
	p, _ := ParseAll([]string{"2s:partition:z3"}, nil)
	if p.CheckZones(2) == nil || p.CheckZones(0) == nil || p.CheckZones(3) != nil {
		t.Error("CheckZones accepts only zones the cluster has")
	}
}
