package harness

import (
	"sync"
	"time"

	"github.com/natsperf/natsperf/result"
)

// connLog keeps when the clients' connections dropped and came back, so a latency spike can
// be lined up with them. It is written from the client library's callbacks, never on the
// message path.
type connLog struct {
	mu      sync.Mutex
	entries []connEntry
}

type connEntry struct {
	at     time.Time
	client string // "pub 1"
	kind   string // disconnect, reconnect
}

// note returns the function that logs kind events of one client.
func (l *connLog) note(client string) func(kind string) {
	return func(kind string) {
		l.mu.Lock()
		l.entries = append(l.entries, connEntry{at: time.Now(), client: client, kind: kind})
		l.mu.Unlock()
	}
}

// events are the entries from start on, on the run's clock.
func (l *connLog) events(start time.Time) []result.Event {
	l.mu.Lock()
	defer l.mu.Unlock()
	var out []result.Event
	for _, e := range l.entries {
		if e.at.Before(start) {
			continue
		}
		out = append(out, result.Event{At: e.at.Sub(start), Kind: e.kind, Source: "client", Client: e.client})
	}
	return out
}
