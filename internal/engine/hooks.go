package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/fault"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/result"
)

// StreamRef is the stream a JetStream fault run acts on and reads back.
type StreamRef struct {
	NC   *nats.Conn
	JS   jetstream.JetStream
	Name string
	// Replicas reads every node's own copy of the stream (nil: not natsperf's cluster).
	Replicas func() []result.Replica
}

// Leader returns the stream leader's server name.
func (s *StreamRef) Leader(ctx context.Context) (string, error) {
	st, err := s.JS.Stream(ctx, s.Name)
	if err != nil {
		return "", err
	}
	if c := st.CachedInfo().Cluster; c != nil {
		return c.Leader, nil
	}
	return "", nil
}

// Stepdown asks the stream leader to step down through the JetStream API.
func (s *StreamRef) Stepdown(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	msg, err := s.NC.RequestWithContext(ctx, connect.API(s.JS)+"STREAM.LEADER.STEPDOWN."+s.Name, nil)
	if err != nil {
		return fmt.Errorf("stream leader stepdown: %w", err)
	}
	var resp struct {
		Success bool `json:"success"`
		Error   *struct {
			Description string `json:"description"`
		} `json:"error"`
	}
	if err := json.Unmarshal(msg.Data, &resp); err != nil {
		return fmt.Errorf("stream leader stepdown: %w", err)
	}
	if resp.Error != nil {
		return fmt.Errorf("stream leader stepdown: %s", resp.Error.Description)
	}
	if !resp.Success {
		return errors.New("stream leader stepdown: not done")
	}
	return nil
}

// Faults is a run's fault timeline and what it needs.
type Faults struct {
	Plan        fault.Plan
	ExecTimeout time.Duration
	// AckTimeout is the JetStream senders' ack timeout (the first tracked group's).
	AckTimeout time.Duration
	// senders are the groups of acknowledged operations (JetStream publishers, KV putters)
	// whose failures the failover story reads, each with its own registry (client ids are
	// per group); none for core runs.
	senders []senders
}

// senders is a group of acknowledged operations and its failures.
type senders struct {
	g     *harness.Group // its Name read after the run: a scenario prefixes it
	waits *js.AckWaits
}

// Track notes g's failures in waits for the failover story (nil waits: not a fault run) and
// returns g.
func (f *Faults) Track(g *harness.Group, waits *js.AckWaits, ackTimeout time.Duration) *harness.Group {
	if f == nil || waits == nil {
		return g
	}
	if f.AckTimeout == 0 {
		f.AckTimeout = cmp.Or(ackTimeout, js.DefaultAckTimeout)
	}
	f.senders = append(f.senders, senders{g, waits})
	return g
}

// waitsOf is the registry of the group named name; nil when it is not tracked.
func (f *Faults) waitsOf(name string) *js.AckWaits {
	for _, s := range f.senders {
		if s.g.Name == name {
			return s.waits
		}
	}
	return nil
}

// Attach runs the fault timeline alongside plan's clients and adds it, with the
// unavailability window, to the Result. s is the stream a leader fault acts on (nil: none).
func (f *Faults) Attach(plan *harness.Plan, t *Target, s *StreamRef, logf func(string, ...any)) {
	if len(f.Plan) == 0 {
		return
	}
	env := fault.Env{ExecTimeout: f.ExecTimeout, Logf: logf}
	env.Cluster = t.cluster()
	if s != nil {
		env.Leader, env.Stepdown = s.Leader, s.Stepdown
	}
	plan.GapMin = result.FaultGapMin // a failover's short stretch is told too
	tl := fault.NewTimeline(f.Plan, env)
	plan.During = func(ctx context.Context, start time.Time) []result.Window {
		tl.Run(ctx, start)
		<-ctx.Done() // the clients are done: the last phase ends now
		return fault.Phases(tl.Events(), time.Since(start))
	}
	Chain(plan, func(_ context.Context, res *result.Result) {
		res.Faults = &result.Faults{Timeline: tl.Events(), Unavailable: Unavailable(res), NotRecovered: NotRecovered(res), GapMin: plan.GapMin}
		res.Events = append(res.Events, faultEvents(res.Faults.Timeline)...)
		result.SortEvents(res.Events)
		res.Faults.Publishers = f.publisherOutages(res, res.Faults.Timeline)
		if len(f.senders) > 0 {
			res.Faults.AckTimeout = f.AckTimeout
		}
		f.refusals(res)
		for _, g := range res.Groups {
			one := *res
			one.Groups = []result.Group{g}
			if u := Unavailable(&one); u.Duration > 0 {
				res.Faults.ByGroup = append(res.Faults.ByGroup, u)
			}
		}
	})
}

// publisherOutages splits each sender's times without acks that span a fault (each of its
// kept stretches of result.GapMin or more, result.Client.Gaps, else its longest): the wait on
// acks that timed out, the operations refused fast by reason, the rest. The shorter stretches
// a fault run keeps are the failover blocks' (Client.Gaps), not listed here.
func (f *Faults) publisherOutages(res *result.Result, events []result.FaultEvent) []result.PublisherOutage {
	var out []result.PublisherOutage
	for _, g := range res.Groups {
		w := f.waitsOf(g.Name)
		if w == nil {
			continue
		}
		for _, c := range g.Clients {
			for _, gap := range c.Stretches() {
				if gap.Duration < result.GapMin {
					continue
				}
				if o, ok := f.outage(w, g.Name, c.ID, gap, events); ok {
					out = append(out, o)
				}
			}
		}
	}
	return out
}

// refusals gives each sender its operations that failed fast, in runs of one reason, and the
// ones given up at their timeout, in runs cut at every fault's start (so a run belongs to one
// failover: the story tells each timeout once).
func (f *Faults) refusals(res *result.Result) {
	var cuts []time.Duration
	for _, ev := range res.Faults.Timeline {
		if !ev.Skipped {
			cuts = append(cuts, ev.Started)
		}
	}
	for gi := range res.Groups {
		g := &res.Groups[gi]
		w := f.waitsOf(g.Name)
		if w == nil {
			continue
		}
		for ci := range g.Clients {
			c := &g.Clients[ci]
			c.Refused = append(c.Refused, w.Runs(c.ID)...)
			c.TimedOut = append(c.TimedOut, w.TimedOutRuns(c.ID, cuts...)...)
		}
	}
}

// outage is a sender's stretch without acks told against the fault it came after; ok false
// when it began before any fault.
func (f *Faults) outage(w *js.AckWaits, group string, id int, gap result.Gap, events []result.FaultEvent) (result.PublisherOutage, bool) {
	spec := ""
	for _, ev := range events {
		// The last fault before the publisher had acks again (a pause or a kill lasts
		// beyond its action); for an outage still open at the end, the last before it
		// began, or else the first during it.
		if ev.Skipped || (ev.Error != "" && ev.Kind != fault.Exec) || ev.Started > gap.To {
			continue
		}
		if !gap.Open || ev.Started <= gap.From || spec == "" {
			spec = ev.Spec
		}
	}
	if spec == "" {
		return result.PublisherOutage{}, false
	}
	n, first := w.TimedOut(id, gap.From, gap.To)
	o := result.PublisherOutage{
		Group: group, Client: id, Fault: spec, LastAckBefore: gap.From, FirstAckAfter: gap.To,
		WithoutAcks: gap.Duration, TimedOutWait: w.Within(id, gap.From, gap.To), AckTimeout: f.AckTimeout,
		NotRecovered: gap.Open, TimedOut: n, TimedOutFrom: first,
	}
	o.Refused = w.Refused(id, gap.From, gap.To)
	return o, true
}

// Chain adds f to what the plan does after the run.
func Chain(plan *harness.Plan, f func(context.Context, *result.Result)) {
	prev := plan.After
	plan.After = func(ctx context.Context, res *result.Result) {
		if prev != nil {
			prev(ctx, res)
		}
		f(ctx, res)
	}
}

// isPub reports whether a group is publishers: pub, or an instance's (pod1/pub); KV putters
// (put) are publishers too (a put is a publish to the bucket's stream).
func isPub(name string) bool {
	return name == "pub" || strings.HasSuffix(name, "/pub") || name == "put" || strings.HasSuffix(name, "/put")
}

// NotRecovered is the longest time without success still open when its client ended (a
// publisher whose acks stopped and never came back within the run); nil when every client
// recovered.
func NotRecovered(res *result.Result) *result.Gap {
	var worst *result.Gap
	for _, g := range res.Groups {
		for _, c := range g.Clients {
			if n := c.NotRecovered; n != nil && (worst == nil || n.Duration > worst.Duration) {
				w := *n
				w.Group, w.Client = g.Name, c.ID
				worst = &w
			}
		}
	}
	return worst
}

// Unavailable is the longest time any client went without a successful operation: the
// largest gap between two of its messages or acks, or its time without success still open
// when it ended (Gap.Open: operations failed after its last success), or, for a receiver
// that did not finish its share, from its last one to the last success of any client (a
// consumer cut off while the publishers went on; not the idle wait for messages whose
// publish failed).
func Unavailable(res *result.Result) result.Gap {
	var worst result.Gap
	var last time.Time
	for _, g := range res.Groups {
		for _, c := range g.Clients {
			if c.End.After(last) {
				last = c.End
			}
		}
	}
	runEnd := last.Sub(res.Start)
	for _, g := range res.Groups {
		for _, c := range g.Clients {
			if c.Gap != nil && c.Gap.Duration > worst.Duration {
				worst = *c.Gap
				worst.Group, worst.Client = g.Name, c.ID
			}
			if c.Expected > 0 && c.Msgs < c.Expected && !c.End.IsZero() && !isPub(g.Name) {
				from := c.End.Sub(res.Start)
				if d := runEnd - from; d > worst.Duration {
					worst = result.Gap{Duration: d, From: from, To: runEnd, Group: g.Name, Client: c.ID}
				}
			}
		}
	}
	return worst
}

// AttachCoreVerify adds the receivers' view of delivery to the Result of a core NATS run.
func AttachCoreVerify(plan *harness.Plan) {
	Chain(plan, func(_ context.Context, res *result.Result) {
		v := ReceiversVerify(res)
		res.Verify = &v
	})
}

// ReceiversVerify sums what was sent and what the receivers' stamps say.
func ReceiversVerify(res *result.Result) result.Verify {
	var v result.Verify
	for _, g := range res.Groups {
		a := g.Aggregate
		if isPub(g.Name) {
			v.Sent += a.Msgs
			continue
		}
		if c := a.Correctness; c != nil {
			v.Delivered += c.Received - c.Duplicated
			v.Lost += c.Lost
			v.Duplicated += c.Duplicated
			v.OutOfOrder += c.OutOfOrder
		}
	}
	v.Unavailable = Unavailable(res).Duration
	v.NotRecovered = NotRecovered(res) != nil
	return v
}
