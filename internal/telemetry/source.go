package telemetry

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/embedded"
)

// Reading is one server's /varz and /jsz (with stream details) at one instant.
type Reading struct {
	Name string
	URL  string // the monitoring endpoint it came from, "" in-process
	Varz *server.Varz
	Jsz  *server.JSInfo // nil when JetStream is off or did not answer
	// MaxPending is the largest pending_bytes of one connection (connz sorted by pending).
	MaxPending int64
	// RTT is a request's round trip and Mid its local midpoint, Now the server's clock in
	// its reply (Varz.Now when zero): the server's clock offset is Now - Mid, within RTT/2.
	// The monitor source keeps the shortest round trip of its requests.
	RTT time.Duration
	Mid time.Time
	Now time.Time
}

// Source reads every server it knows about once. A server that does not answer is left out
// of the readings and reported in the error; the others still count.
type Source interface {
	Kind() string // "embedded" or "monitor"
	Read(ctx context.Context) ([]Reading, error)
}

// Embedded reads the servers of an embedded cluster in-process: no port, no request.
type Embedded struct{ Cluster *embedded.Cluster }

// Kind implements Source.
func (Embedded) Kind() string { return "embedded" }

// Read implements Source; a killed node is left out.
func (e Embedded) Read(context.Context) ([]Reading, error) {
	var out []Reading
	for i := 1; i <= e.Cluster.Size(); i++ {
		s := e.Cluster.Node(i)
		if s == nil || !s.Running() {
			continue
		}
		v, err := s.Varz(&server.VarzOptions{})
		if err != nil {
			continue // shutting down
		}
		r := Reading{Name: v.Name, Varz: v}
		if c, err := s.Connz(&connzOptions); err == nil {
			r.MaxPending = maxPending(c)
		}
		if s.JetStreamEnabled() {
			if j, err := s.Jsz(&jszOptions); err == nil {
				r.Jsz = j
			}
		}
		out = append(out, r)
	}
	return out, nil
}

// connzOptions ask for the connection with the most bytes pending, only.
var connzOptions = server.ConnzOptions{Sort: server.ByPending, Limit: 1}

func maxPending(c *server.Connz) int64 {
	var m int64
	for _, ci := range c.Conns {
		m = max(m, int64(ci.Pending))
	}
	return m
}

// jszOptions ask for every account's streams, with their cluster (leader, replicas' lag).
var jszOptions = server.JSzOptions{Accounts: true, Streams: true}

// Monitor reads servers through their HTTP monitoring endpoints (nats-server -m).
type Monitor struct {
	URLs   []string // base URLs: http://host:8222
	Client *http.Client
}

// Kind implements Source.
func (Monitor) Kind() string { return "monitor" }

// Read implements Source.
func (m Monitor) Read(ctx context.Context) ([]Reading, error) {
	var out []Reading
	var failed []string
	for _, u := range m.URLs {
		r, err := m.read(ctx, strings.TrimRight(u, "/"))
		if err != nil {
			failed = append(failed, err.Error())
			continue
		}
		out = append(out, r)
	}
	if len(failed) > 0 {
		return out, fmt.Errorf("%s", strings.Join(failed, "; "))
	}
	return out, nil
}

func (m Monitor) read(ctx context.Context, base string) (Reading, error) {
	r := Reading{URL: base, Varz: &server.Varz{}}
	t0 := time.Now()
	t1, err := m.get(ctx, base+"/varz", r.Varz)
	if err != nil {
		return r, err
	}
	r.clock(t0, t1, r.Varz.Now)
	r.Name = r.Varz.Name
	c := &server.Connz{}
	t0 = time.Now()
	if t1, err := m.get(ctx, base+"/connz?sort=pending&limit=1", c); err == nil {
		r.MaxPending = maxPending(c)
		r.clock(t0, t1, c.Now) // a small reply: often the shortest round trip
	}
	if r.Varz.JetStream.Config != nil {
		j := &server.JSInfo{}
		t0 = time.Now()
		if t1, err := m.get(ctx, base+"/jsz?accounts=true&streams=true", j); err == nil {
			r.Jsz = j
			r.clock(t0, t1, j.Now)
		}
	}
	return r, nil
}

// clock keeps the server's clock now, read between a request sent at t0 and its reply's
// headers at t1, when that round trip is the reading's shortest so far. The server reads
// its clock before it writes the headers: the body's decoding after them (a loaded host's
// milliseconds) is no part of the round trip.
func (r *Reading) clock(t0, t1, now time.Time) {
	if now.IsZero() || (!r.Mid.IsZero() && t1.Sub(t0) >= r.RTT) {
		return
	}
	r.RTT, r.Mid, r.Now = t1.Sub(t0), t0.Add(t1.Sub(t0)/2), now
}

// get decodes url's JSON into into; it returns when the response's headers came back.
func (m Monitor) get(ctx context.Context, url string, into any) (time.Time, error) {
	c := m.Client
	if c == nil {
		c = http.DefaultClient
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return time.Time{}, fmt.Errorf("monitor %s: %w", url, err)
	}
	resp, err := c.Do(req)
	if err != nil {
		return time.Time{}, fmt.Errorf("monitor %s: %w", url, err)
	}
	at := time.Now()
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return at, fmt.Errorf("monitor %s: %s", url, resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(into); err != nil {
		return at, fmt.Errorf("monitor %s: %w", url, err)
	}
	return at, nil
}
