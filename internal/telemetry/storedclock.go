package telemetry

import (
	"sort"
	"strings"

	"github.com/natsperf/natsperf/result"
)

// StoredClock is how the timestamps of streams (the clock of the server that leads each
// one, which stamps its messages) are put on natsperf's clock for the latency breakdown,
// from the telemetry read so far (its first reading, just before the run starts):
//   - exact for servers in natsperf's own process (one clock);
//   - the estimated offset of the streams' leader (of the only server, when the readings
//     name no leader), with its uncertainty;
//   - uncorrected, with the reason, when there is no estimate to apply: no telemetry, a
//     server that gave no clock, or streams led by several servers (one offset per run).
func StoredClock(t *result.Telemetry, streams []string) result.StoredClock {
	switch {
	case t == nil:
		return result.StoredClock{Basis: result.ClockUncorrected, Note: "no server telemetry to estimate the server's clock from (--server-metrics or --sys-creds)"}
	case len(t.Servers) == 0:
		return result.StoredClock{Basis: result.ClockUncorrected, Note: "no server answered the telemetry's first reading"}
	case t.Source == "embedded":
		return result.StoredClock{Basis: result.ClockExact}
	}
	leaders := streamLeaders(t, streams)
	var server string
	switch {
	case len(leaders) == 1:
		server = leaders[0]
	case len(leaders) > 1:
		return result.StoredClock{Basis: result.ClockUncorrected, Note: "the streams are led by " + strings.Join(leaders, ", ") + ": one offset cannot correct them all"}
	case len(t.Servers) == 1:
		server = t.Servers[0].Name
	default:
		return result.StoredClock{Basis: result.ClockUncorrected, Note: "the stream's leader is unknown"}
	}
	for _, s := range t.Servers {
		if s.Name != server {
			continue
		}
		if s.ClockUncertaintyNS <= 0 {
			return result.StoredClock{Basis: result.ClockUncorrected, Server: server, Note: server + " gave no clock reading"}
		}
		return result.StoredClock{Basis: result.ClockEstimated, Server: server, OffsetNS: s.ClockOffsetNS, UncertaintyNS: s.ClockUncertaintyNS}
	}
	return result.StoredClock{Basis: result.ClockUncorrected, Note: "the stream's leader " + server + " was not sampled"}
}

// streamLeaders are the servers that lead streams as the last samples say (a leader's own
// word first), sorted.
func streamLeaders(t *result.Telemetry, streams []string) []string {
	want := map[string]bool{}
	for _, s := range streams {
		want[s] = true
	}
	leader := map[string]string{}
	for _, ss := range t.Servers {
		if len(ss.Samples) == 0 {
			continue
		}
		for _, st := range ss.Samples[len(ss.Samples)-1].Streams {
			if want[st.Name] && st.Leader != "" && (leader[st.Name] == "" || st.Leader == ss.Name) {
				leader[st.Name] = st.Leader
			}
		}
	}
	seen := map[string]bool{}
	var out []string
	for _, l := range leader {
		if !seen[l] {
			seen[l] = true
			out = append(out, l)
		}
	}
	sort.Strings(out)
	return out
}
