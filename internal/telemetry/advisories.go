package telemetry

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/result"
)

// advisorySubjects are the JetStream advisories that explain a latency spike, by event
// kind. The API audit advisories (one per API call) are left out: they are traffic, not events.
var advisorySubjects = map[string]string{
	server.JSAdvisoryStreamLeaderElectedPre + ".>":       "leader_elected",
	server.JSAdvisoryStreamQuorumLostPre + ".>":          "quorum_lost",
	server.JSAdvisoryConsumerLeaderElectedPre + ".>":     "consumer_leader_elected",
	server.JSAdvisoryConsumerQuorumLostPre + ".>":        "consumer_quorum_lost",
	server.JSAdvisoryConsumerMaxDeliveryExceedPre + ".>": "max_deliveries",
	server.JSAdvisoryConsumerMsgNakPre + ".>":            "nak",
	server.JSAdvisoryConsumerMsgTerminatedPre + ".>":     "terminated",
}

// EventSubject is subject with its $JS.EVENT replaced by prefix, as the nats CLI's
// --js-event-prefix does (jsm.go's EventSubject): unchanged when prefix is empty or the
// subject is not an event's.
func EventSubject(subject, prefix string) string {
	rest, ok := strings.CutPrefix(subject, "$JS.EVENT")
	if prefix == "" || !ok {
		return subject
	}
	return prefix + rest
}

// maxAdvisoriesPerKind bounds what a flood (a consumer nak-ing every message) keeps; the
// rest is counted in one last event of the kind.
const maxAdvisoriesPerKind = 100

// advisory is what natsperf reads of any of the advisories above.
type advisory struct {
	Stream     string `json:"stream"`
	Consumer   string `json:"consumer"`
	Leader     string `json:"leader"`
	StreamSeq  uint64 `json:"stream_seq"`
	Deliveries uint64 `json:"deliveries"`
}

// Subscribe listens for JetStream advisories on nc until the returned function is called;
// each becomes an event on the sampler's clock (before Run starts, none is kept).
func (s *Sampler) Subscribe(nc *nats.Conn) (stop func(), err error) {
	var subs []*nats.Subscription
	stop = func() {
		for _, sub := range subs {
			_ = sub.Unsubscribe()
		}
	}
	seen := map[string]int{} // kind -> advisories so far; guarded by s.mu
	for subj, kind := range advisorySubjects {
		sub, err := nc.Subscribe(EventSubject(subj, s.EventPrefix), func(m *nats.Msg) { s.advisory(kind, m.Data, seen) })
		if err != nil {
			stop()
			return nil, fmt.Errorf("subscribe to advisories: %w", err)
		}
		subs = append(subs, sub)
	}
	if err := nc.Flush(); err != nil {
		stop()
		return nil, fmt.Errorf("subscribe to advisories: %w", err)
	}
	return stop, nil
}

func (s *Sampler) advisory(kind string, data []byte, seen map[string]int) {
	var a advisory
	if json.Unmarshal(data, &a) != nil {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.start.IsZero() {
		return // before the run: setup's own elections
	}
	at := time.Since(s.start)
	seen[kind]++
	switch n := seen[kind]; {
	case n == maxAdvisoriesPerKind+1:
		s.events = append(s.events, result.Event{At: at, Kind: kind, Source: "advisory", Stream: a.Stream,
			Detail: fmt.Sprintf("more than %d %s advisories: not all kept", maxAdvisoriesPerKind, kind)})
		return
	case n > maxAdvisoriesPerKind:
		return
	}
	ev := result.Event{At: at, Kind: kind, Source: "advisory", Stream: a.Stream, Consumer: a.Consumer, Server: a.Leader}
	switch kind {
	case "leader_elected":
		if s.leader == nil {
			s.leader = map[string]string{}
		}
		prev := s.leader[a.Stream]
		s.leader[a.Stream] = a.Leader
		if prev == a.Leader && s.dropJszChange(a.Stream, a.Leader, &ev) {
			break // a sample saw it first: the advisory replaces that event
		}
		if prev == "" {
			prev = "?"
		}
		ev.Detail = prev + " -> " + a.Leader
	case "consumer_leader_elected":
		ev.Detail = "-> " + a.Leader
	case "max_deliveries":
		ev.Detail = fmt.Sprintf("stream seq %d after %d deliveries", a.StreamSeq, a.Deliveries)
	case "nak", "terminated":
		ev.Detail = fmt.Sprintf("stream seq %d", a.StreamSeq)
	}
	s.events = append(s.events, ev)
}

// dropJszChange removes the last leader change to leader that a sample showed for stream,
// giving its "from -> to" to ev; false when there is none.
func (s *Sampler) dropJszChange(stream, leader string, ev *result.Event) bool {
	for i := len(s.events) - 1; i >= 0; i-- {
		e := s.events[i]
		if e.Kind == "leader_change" && e.Source == "jsz" && e.Stream == stream && e.Server == leader {
			ev.Detail = e.Detail
			s.events = append(s.events[:i], s.events[i+1:]...)
			return true
		}
	}
	return false
}
