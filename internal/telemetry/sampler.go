package telemetry

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/result"
)

// Sampler reads a Source every Interval from the run's start until its context ends (once
// more then), and keeps the series and the events the readings show. Its methods are safe
// for concurrent use (the advisories' handler adds events while it samples).
type Sampler struct {
	Source   Source
	Interval time.Duration
	// EventPrefix, when set, replaces $JS.EVENT in the advisories' subjects, as the nats
	// CLI's --js-event-prefix does (advisories imported from another account or domain).
	EventPrefix string

	mu       sync.Mutex
	start    time.Time
	series   map[string]*result.ServerSeries
	order    []string
	errs     map[string]int
	errOrder []string
	leader   map[string]string // stream -> its leader as last known (advisory or jsz)
	slow     map[string]int64  // server -> slow consumers at its last sample
	events   []result.Event
	stalls   []result.Stall
	// answered is when each server last answered a reading; a server missing from a reading
	// is dropped from it and told once as server_silent until it answers again.
	answered map[string]time.Duration
}

// Baseline takes the first reading, at offset 0: call it just before the run starts, so
// the run's first messages fall after it.
func (s *Sampler) Baseline(ctx context.Context) { s.sample(ctx) }

// Run samples every Interval after start and when ctx ends (without a Baseline, at start
// too). It returns then.
func (s *Sampler) Run(ctx context.Context, start time.Time) {
	if d := time.Until(start); d > 0 { // a coordinator's start instant, still ahead
		t := time.NewTimer(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
		}
	}
	s.mu.Lock()
	s.start = start
	first := s.series == nil
	s.mu.Unlock()
	interval := s.Interval
	if interval <= 0 {
		interval = time.Second
	}
	if first {
		s.sample(ctx)
	}
	stalls := make(chan struct{})
	go func() {
		defer close(stalls)
		s.watchStalls(ctx, start, interval)
	}()
	defer func() { <-stalls }()
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			// The final reading: the run's totals end here. Bounded, since ctx is gone; a
			// source that waits for every server it has seen (FinalReader) gets longer.
			bound := 2 * time.Second
			if _, ok := s.Source.(FinalReader); ok {
				bound = 4 * time.Second
			}
			fctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bound)
			s.sampleFinal(fctx, true)
			cancel()
			return
		case <-t.C:
			s.sample(ctx)
		}
	}
}

// FinalReader is a Source whose last reading of a run waits for more servers than its others
// (Sys: every server it ever saw, not only the ones that answered on time lately).
type FinalReader interface {
	ReadFinal(ctx context.Context) ([]Reading, error)
}

// settleEvery is how long the final reading waits before reading the servers again.
const settleEvery = 20 * time.Millisecond

// settle reads again until two readings agree on the servers' message counts (at most 5 more
// times, within ctx), and returns the last. A server counts a client's messages after it has
// parsed them, which may come after its answer to the client's flush: a final reading taken
// at once missed a run's last messages on a busy machine (118 of 3,000 once in CI).
func settle(ctx context.Context, read func(context.Context) ([]Reading, error), prev []Reading) ([]Reading, error) {
	counts := func(rs []Reading) (n int64) {
		for _, r := range rs {
			if r.Varz != nil {
				n += r.Varz.InMsgs + r.Varz.OutMsgs
			}
		}
		return n
	}
	for range 5 {
		t := time.NewTimer(settleEvery)
		select {
		case <-ctx.Done():
			t.Stop()
			return prev, nil
		case <-t.C:
		}
		next, err := read(ctx)
		if err != nil || len(next) < len(prev) {
			return prev, nil // the reading in hand stands; a server gone now is not news
		}
		if counts(next) == counts(prev) {
			return next, nil
		}
		prev = next
	}
	return prev, nil
}

// sample takes one reading of every server.
func (s *Sampler) sample(ctx context.Context) { s.sampleFinal(ctx, false) }

// sampleFinal takes one reading of every server, the run's last when final.
func (s *Sampler) sampleFinal(ctx context.Context, final bool) {
	s.mu.Lock()
	var began time.Duration // when the reading was asked for: a server silent then did not answer it
	if !s.start.IsZero() {
		began = time.Since(s.start)
	}
	s.mu.Unlock()
	read, settles := s.Source.Read, final
	if f, ok := s.Source.(FinalReader); ok && final {
		// Its readings are requests that the servers count as messages: they never agree.
		read, settles = f.ReadFinal, false
	}
	readings, err := read(ctx)
	if settles && err == nil {
		readings, err = settle(ctx, read, readings)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var at time.Duration // a Baseline's reading, before the start, is at 0
	if !s.start.IsZero() {
		at = time.Since(s.start)
	}
	if ctx.Err() == nil { // a reading cut short by the run's end misses servers that did not stop
		s.silent(began, at, readings)
	}
	if err != nil && ctx.Err() == nil {
		s.noteErr(err.Error())
	}
	if s.series == nil {
		s.series, s.leader, s.slow = map[string]*result.ServerSeries{}, map[string]string{}, map[string]int64{}
	}
	leaders := map[string]string{} // stream -> leader, as this round's readings say
	for _, r := range readings {
		ss := s.series[r.Name]
		if ss == nil {
			ss = &result.ServerSeries{Name: r.Name, URL: r.URL}
			s.series[r.Name] = ss
			s.order = append(s.order, r.Name)
		}
		clock(ss, r)
		smp := sampleOf(at, r)
		ss.Samples = append(ss.Samples, smp)
		for _, st := range smp.Streams {
			if st.Leader != "" && (leaders[st.Name] == "" || st.Leader == r.Name) {
				leaders[st.Name] = st.Leader // a leader's own word wins over a follower's
			}
		}
		if prev, ok := s.slow[r.Name]; ok && smp.SlowConsumers > prev {
			s.events = append(s.events, result.Event{At: at, Kind: "slow_consumer", Source: "varz", Server: r.Name,
				Detail: fmt.Sprintf("+%d slow consumer(s)", smp.SlowConsumers-prev)})
		}
		s.slow[r.Name] = smp.SlowConsumers
	}
	for stream, l := range leaders {
		prev, known := s.leader[stream]
		s.leader[stream] = l
		if known && prev != l {
			// Only when no advisory said so already: the advisory is more precise in time.
			s.events = append(s.events, result.Event{At: at, Kind: "leader_change", Source: "jsz", Stream: stream,
				Server: l, Detail: prev + " -> " + l})
		}
	}
}

// silent tells each server that answered a reading before and did not answer this one
// (asked at began, over at at) as a server_silent event at began, with the streams it led at
// its last answer: a node killed from outside is named when it stopped answering, not only
// by its successor's advisory seconds later.
func (s *Sampler) silent(began, at time.Duration, readings []Reading) {
	if s.answered == nil {
		s.answered = map[string]time.Duration{}
	}
	now := map[string]bool{}
	for _, r := range readings {
		now[r.Name] = true
		s.answered[r.Name] = at
	}
	var gone []string
	for name := range s.answered {
		if !now[name] {
			gone = append(gone, name)
		}
	}
	sort.Strings(gone)
	for _, name := range gone {
		last := s.answered[name]
		delete(s.answered, name)
		ev := result.Event{At: began, Kind: "server_silent", Source: "telemetry", Server: name,
			Detail: fmt.Sprintf("no answer to the reading at %.2f-%.2f s; last answer at %.2f s", began.Seconds(), at.Seconds(), last.Seconds())}
		if ss := s.series[name]; ss != nil && len(ss.Samples) > 0 {
			var led []string
			for _, st := range ss.Samples[len(ss.Samples)-1].Streams {
				if st.Leader == name {
					led = append(led, st.Name)
				}
			}
			if len(led) > 0 {
				ev.Stream = strings.Join(led, ",")
				ev.Detail += "; it led stream " + ev.Stream
			}
		}
		s.events = append(s.events, ev)
	}
}

// clock keeps the best (shortest round trip) estimate of a remote server's clock offset.
func clock(ss *result.ServerSeries, r Reading) {
	now := r.Now
	if now.IsZero() {
		now = r.Varz.Now
	}
	if r.Mid.IsZero() || now.IsZero() {
		return
	}
	unc := int64(r.RTT / 2)
	if ss.ClockUncertaintyNS == 0 || unc < ss.ClockUncertaintyNS {
		ss.ClockOffsetNS = now.Sub(r.Mid).Nanoseconds()
		ss.ClockUncertaintyNS = max(unc, 1)
	}
}

func sampleOf(at time.Duration, r Reading) result.ServerSample {
	v := r.Varz
	smp := result.ServerSample{
		Offset: at, CPU: v.CPU, Mem: v.Mem, Connections: v.Connections, SlowConsumers: v.SlowConsumers,
		InMsgs: v.InMsgs, OutMsgs: v.OutMsgs, InBytes: v.InBytes, OutBytes: v.OutBytes,
		MaxPending: r.MaxPending,
	}
	if st := v.JetStream.Stats; st != nil {
		smp.JSAPITotal, smp.JSAPIErrors = st.API.Total, st.API.Errors
	}
	if r.Jsz != nil {
		smp.Streams = streamsOf(r.Jsz)
	}
	return smp
}

func streamsOf(j *server.JSInfo) []result.StreamSample {
	var out []result.StreamSample
	for _, a := range j.AccountDetails {
		for _, sd := range a.Streams {
			st := result.StreamSample{Name: sd.Name, Msgs: sd.State.Msgs, Bytes: sd.State.Bytes}
			if c := sd.Cluster; c != nil {
				st.Leader = c.Leader
				for _, p := range c.Replicas {
					if p != nil {
						st.Lag = max(st.Lag, p.Lag)
					}
				}
			}
			out = append(out, st)
		}
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

func (s *Sampler) noteErr(e string) {
	if s.errs == nil {
		s.errs = map[string]int{}
	}
	if s.errs[e] == 0 {
		s.errOrder = append(s.errOrder, e)
	}
	s.errs[e]++
}

// Telemetry is the series so far (nil before the first reading).
func (s *Sampler) Telemetry() *result.Telemetry {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.series == nil {
		return nil
	}
	t := &result.Telemetry{Source: s.Source.Kind(), Interval: s.Interval, Stalls: append([]result.Stall(nil), s.stalls...)}
	names := append([]string(nil), s.order...)
	sort.Strings(names)
	for _, n := range names {
		t.Servers = append(t.Servers, *s.series[n])
	}
	for _, e := range s.errOrder {
		if n := s.errs[e]; n > 1 {
			e = fmt.Sprintf("%s (%d times)", e, n)
		}
		t.Errors = append(t.Errors, e)
	}
	return t
}

// Events are what the readings and advisories showed, in time order.
func (s *Sampler) Events() []result.Event {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := append([]result.Event(nil), s.events...)
	result.SortEvents(out)
	return out
}
