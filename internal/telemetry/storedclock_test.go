package telemetry

import (
	"testing"

	"github.com/natsperf/natsperf/result"
)

// StoredClock applies the clock offset of the server that stamps the run's streams: exact on
// embedded servers, the leader's estimate on remote ones, and says why when it cannot.
func TestStoredClock(t *testing.T) {
	server := func(name string, off, unc int64, streams ...result.StreamSample) result.ServerSeries {
		return result.ServerSeries{Name: name, ClockOffsetNS: off, ClockUncertaintyNS: unc,
			Samples: []result.ServerSample{{Streams: streams}}}
	}
	led := func(stream, leader string) result.StreamSample {
		return result.StreamSample{Name: stream, Leader: leader}
	}
	monitor := func(s ...result.ServerSeries) *result.Telemetry {
		return &result.Telemetry{Source: "monitor", Servers: s}
	}
	for _, c := range []struct {
		name    string
		t       *result.Telemetry
		streams []string
		want    result.StoredClock
		note    bool // an uncorrected clock says why
	}{
		{name: "no telemetry", t: nil, streams: []string{"s"},
			want: result.StoredClock{Basis: result.ClockUncorrected}, note: true},
		{name: "no server answered", t: monitor(), streams: []string{"s"},
			want: result.StoredClock{Basis: result.ClockUncorrected}, note: true},
		{name: "embedded", t: &result.Telemetry{Source: "embedded", Servers: []result.ServerSeries{server("n1", 0, 0, led("s", "n1"))}},
			streams: []string{"s"}, want: result.StoredClock{Basis: result.ClockExact}},
		{name: "one server, no stream details", t: monitor(server("a", 1500, 80)), streams: []string{"s"},
			want: result.StoredClock{Basis: result.ClockEstimated, Server: "a", OffsetNS: 1500, UncertaintyNS: 80}},
		{name: "the stream's leader among three", streams: []string{"s"},
			t:    monitor(server("n1", 100, 10, led("s", "n2")), server("n2", -7000, 30, led("s", "n2")), server("n3", 900, 20, led("s", "n2"))),
			want: result.StoredClock{Basis: result.ClockEstimated, Server: "n2", OffsetNS: -7000, UncertaintyNS: 30}},
		{name: "a leader's own word wins over a follower's stale one", streams: []string{"s"},
			t:    monitor(server("n1", 100, 10, led("s", "n1")), server("n2", 200, 10, led("s", "n3")), server("n3", 300, 10, led("s", "n3"))),
			want: result.StoredClock{Basis: result.ClockEstimated, Server: "n3", OffsetNS: 300, UncertaintyNS: 10}},
		{name: "other streams' leaders do not count", streams: []string{"s"},
			t:    monitor(server("n1", 100, 10, led("s", "n1"), led("other", "n2")), server("n2", 200, 10, led("other", "n2"))),
			want: result.StoredClock{Basis: result.ClockEstimated, Server: "n1", OffsetNS: 100, UncertaintyNS: 10}},
		{name: "streams led by two servers", streams: []string{"s", "t"},
			t:    monitor(server("n1", 100, 10, led("s", "n1"), led("t", "n2")), server("n2", 200, 10, led("s", "n1"), led("t", "n2"))),
			want: result.StoredClock{Basis: result.ClockUncorrected}, note: true},
		{name: "several servers, leader unknown", streams: []string{"s"},
			t:    monitor(server("n1", 100, 10), server("n2", 200, 10)),
			want: result.StoredClock{Basis: result.ClockUncorrected}, note: true},
		{name: "the leader gave no clock", streams: []string{"s"},
			t:    monitor(server("n1", 0, 0, led("s", "n1"))),
			want: result.StoredClock{Basis: result.ClockUncorrected, Server: "n1"}, note: true},
		{name: "the leader was not sampled", streams: []string{"s"},
			t:    monitor(server("n1", 100, 10, led("s", "n9"))),
			want: result.StoredClock{Basis: result.ClockUncorrected}, note: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got := StoredClock(c.t, c.streams)
			if (got.Note != "") != c.note {
				t.Errorf("note %q", got.Note)
			}
			got.Note = ""
			if got != c.want {
				t.Fatalf("got %+v, want %+v", got, c.want)
			}
		})
	}
}
