package telemetry

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Sys reads every server of a deployment through the system account: one
// $SYS.REQ.SERVER.PING.VARZ, one .JSZ (with stream details) and one .CONNZ (the connection
// with the most bytes pending) request, which every server
// answers. A request's replies are collected until every server that has answered that
// subject before has answered again, bounded by Timeout; the first request's (none known yet)
// until Quiet passes without one. A reply a busy host delays past Quiet still counts: a
// reading that lacks a server leaves that server's totals short (the final reading's above
// all, which the cross-check line reads). A server that misses a Timeout is not waited for
// again until it answers again, so a dead server costs one Timeout, not one per reading; the
// final reading (ReadFinal) waits for every server ever seen again, bounded by its context,
// since the run's totals end there (one that missed a Timeout under load was left out).
type Sys struct {
	// Dial connects as a system-account user, on the first Read.
	Dial    func(ctx context.Context) (*nats.Conn, error)
	Quiet   time.Duration // 0: 250ms
	Timeout time.Duration // 0: 2s

	mu    sync.Mutex
	nc    *nats.Conn
	known map[string]map[string]bool // by subject: the servers expected to answer it
	seen  map[string]bool            // every server that ever answered a VARZ ping
}

// Subjects of the system account's server pings.
const (
	sysVarz  = "$SYS.REQ.SERVER.PING.VARZ"
	sysJsz   = "$SYS.REQ.SERVER.PING.JSZ"
	sysConnz = "$SYS.REQ.SERVER.PING.CONNZ"
)

// Kind implements Source.
func (*Sys) Kind() string { return "sys" }

// Close closes the connection Read made.
func (s *Sys) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nc != nil {
		s.nc.Close()
		s.nc = nil
	}
	return nil
}

func (s *Sys) conn(ctx context.Context) (*nats.Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.nc != nil {
		return s.nc, nil
	}
	nc, err := s.Dial(ctx)
	if err != nil {
		return nil, fmt.Errorf("system account: %w", err)
	}
	s.nc = nc
	return nc, nil
}

// sysReply is one server's answer to a ping, its data left raw until the subject says what it is.
type sysReply struct {
	Server *server.ServerInfo `json:"server"`
	Data   json.RawMessage    `json:"data"`
	Error  *server.ApiError   `json:"error"`
	at     time.Time
}

// Read implements Source.
func (s *Sys) Read(ctx context.Context) ([]Reading, error) { return s.read(ctx, false) }

// ReadFinal is the run's last reading: it waits for every server that ever answered (not
// only the ones that answered on time lately), until ctx ends, and for the JSZ and CONNZ
// parts for every server whose VARZ came. The sampler bounds ctx.
func (s *Sys) ReadFinal(ctx context.Context) ([]Reading, error) { return s.read(ctx, true) }

func (s *Sys) read(ctx context.Context, final bool) ([]Reading, error) {
	nc, err := s.conn(ctx)
	if err != nil {
		return nil, err
	}
	var all map[string]bool // the final reading's: every server to wait for
	if final {
		s.mu.Lock()
		all = maps.Clone(s.seen)
		s.mu.Unlock()
	}
	t0 := time.Now()
	varz, err := s.ping(ctx, nc, sysVarz, nil, all)
	if err != nil {
		return nil, err
	}
	if final {
		all = map[string]bool{} // the other parts: the servers whose VARZ came
		for _, r := range varz {
			all[r.Server.Name] = true
		}
	}
	s.mu.Lock()
	if s.seen == nil {
		s.seen = map[string]bool{}
	}
	for _, r := range varz {
		s.seen[r.Server.Name] = true
	}
	s.mu.Unlock()
	jsz, jerr := s.ping(ctx, nc, sysJsz, server.JszEventOptions{JSzOptions: jszOptions}, all)
	jetstream := map[string]*server.JSInfo{}
	for _, r := range jsz {
		j := &server.JSInfo{}
		if r.Error == nil && json.Unmarshal(r.Data, j) == nil {
			jetstream[r.Server.Name] = j
		}
	}
	connz, cerr := s.ping(ctx, nc, sysConnz, server.ConnzEventOptions{ConnzOptions: connzOptions}, all)
	pending := map[string]int64{}
	for _, r := range connz {
		c := &server.Connz{}
		if r.Error == nil && json.Unmarshal(r.Data, c) == nil {
			pending[r.Server.Name] = maxPending(c)
		}
	}
	var out []Reading
	failed := []error{jerr, cerr}
	for _, r := range varz {
		if r.Error != nil {
			failed = append(failed, fmt.Errorf("%s %s: %s", sysVarz, r.Server.Name, r.Error.Description))
			continue
		}
		v := &server.Varz{}
		if err := json.Unmarshal(r.Data, v); err != nil {
			failed = append(failed, fmt.Errorf("%s %s: %w", sysVarz, r.Server.Name, err))
			continue
		}
		rtt := r.at.Sub(t0)
		out = append(out, Reading{Name: r.Server.Name, Varz: v, Jsz: jetstream[r.Server.Name], MaxPending: pending[r.Server.Name], RTT: rtt, Mid: t0.Add(rtt / 2)})
	}
	return out, errors.Join(failed...)
}

// ping sends one request on subject and collects the servers' replies. also are servers to
// wait for besides the known ones (the final reading's), for half the time ctx has left when
// that is longer than Timeout (the rest is the next parts').
func (s *Sys) ping(ctx context.Context, nc *nats.Conn, subject string, body any, also map[string]bool) ([]sysReply, error) {
	quiet, timeout := s.Quiet, s.Timeout
	if quiet <= 0 {
		quiet = 250 * time.Millisecond
	}
	if timeout <= 0 {
		timeout = 2 * time.Second
	}
	if d, ok := ctx.Deadline(); ok && also != nil {
		timeout = max(timeout, time.Until(d)/2)
	}
	var data []byte
	if body != nil {
		var err error
		if data, err = json.Marshal(body); err != nil {
			return nil, err
		}
	}
	inbox := nc.NewRespInbox()
	ch := make(chan *nats.Msg, 64)
	sub, err := nc.ChanSubscribe(inbox, ch)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", subject, err)
	}
	defer sub.Unsubscribe()
	if err := nc.PublishRequest(subject, inbox, data); err != nil {
		return nil, fmt.Errorf("%s: %w", subject, err)
	}
	s.mu.Lock()
	want := map[string]bool{}
	for name := range s.known[subject] {
		want[name] = true
	}
	for name := range also {
		want[name] = true
	}
	s.mu.Unlock()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	var idle <-chan time.Time // the quiet period runs from the last reply
	var out []sysReply
	answered := map[string]bool{}
	missing, timedOut := len(want), false
	for waiting := true; waiting && (len(want) == 0 || missing > 0); {
		select {
		case m := <-ch:
			var r sysReply
			if err := json.Unmarshal(m.Data, &r); err != nil || r.Server == nil || answered[r.Server.Name] {
				continue // not a server's answer, or a second one
			}
			r.at = time.Now()
			out = append(out, r)
			answered[r.Server.Name] = true
			if want[r.Server.Name] {
				missing--
			}
			idle = time.After(quiet)
		case <-idle:
			waiting = len(want) > 0 // none known yet: the quiet period ends the first reading
		case <-deadline.C:
			waiting, timedOut = false, true
		case <-ctx.Done():
			waiting = false
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("%s: no server answered (are these system account credentials?)", subject)
	}
	s.mu.Lock()
	if s.known == nil {
		s.known = map[string]map[string]bool{}
	}
	// Every server that answered is waited for next time; one that missed the timeout is not,
	// until it answers again.
	known := answered
	if !timedOut {
		for name := range want {
			known[name] = true
		}
	}
	s.known[subject] = known
	s.mu.Unlock()
	return out, nil
}
