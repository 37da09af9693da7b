package engine

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nuid"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/spec"
)

// The JetStream reader kinds: consumers and direct gets.
func init() {
	for _, k := range []string{js.Ordered, js.Consume, js.Fetch, js.Push} {
		Register("js "+k, buildConsumer)
	}
	Register("js get sync", buildGet)
	Register("js get batch", buildGet)
}

// Consumer defaults (the command line's).
const (
	DefaultPullBatch = 500
	DefaultConsumer  = "natsperf"
	DefaultHeartbeat = 5 * time.Second
	defaultGetBatch  = 500
)

var consumerKinds = map[string]string{
	js.Ordered: "JetStream ordered ephemeral consumer",
	js.Consume: "JetStream durable consumer (callback)",
	js.Fetch:   "JetStream durable consumer (fetch)",
	js.Push:    "JetStream durable push consumer",
}

// consumerOf splits a consumer kind's config into its parts (durable nil for ordered).
func consumerOf(c spec.Config) (kind string, rc *spec.JSConsumer, d *spec.JSDurable, push *spec.JSPush) {
	switch c := c.(type) {
	case *spec.JSOrdered:
		return js.Ordered, &c.JSConsumer, nil, nil
	case *spec.JSConsume:
		return js.Consume, &c.JSConsumer, &c.JSDurable, nil
	case *spec.JSFetch:
		return js.Fetch, &c.JSConsumer, &c.JSDurable, nil
	case *spec.JSPush:
		return js.Push, &c.JSConsumer, &c.JSDurable, c
	}
	return "", nil, nil, nil
}

func buildConsumer(ctx context.Context, b *Build) (*Built, error) {
	kind, rc, d, push := consumerOf(b.Workload.Config)
	if rc == nil {
		return nil, fmt.Errorf("workload kind %q: config is %T", b.Workload.Kind(), b.Workload.Config)
	}
	n, size, fanout := b.Clients(), sizeOr(rc.Size, DefaultSize), d == nil
	st := b.stream(rc.Stream)
	cfg := js.ConsumeConfig{
		Kind: kind, Stream: st.Name, Batch: intOr(rc.Batch, DefaultPullBatch), Sleep: b.Workload.Pacing.Sleep.D(),
		IdleTimeout: durOr(rc.IdleTimeout, DefaultIdleTimeout), AckTimeout: b.ackTimeout(rc.AckTimeout),
		Consumer: js.ConsumerSpec{Filter: rc.Filter, Deliver: strOr(rc.Deliver, "all")},
	}
	force := st.Force
	if d != nil {
		cfg.DoubleAck = d.DoubleAck
		cfg.Consumer.Name, cfg.Consumer.Acks = strOr(d.Consumer, DefaultConsumer), strOr(d.Acks, "explicit")
		cfg.Consumer.MaxAckPending, cfg.Consumer.AckWait = d.MaxAckPending, d.AckWait.D()
		force = force || d.Force
	}
	if push != nil {
		cfg.Consumer.DeliverSubject = "natsperf.deliver." + nuid.Next()
		cfg.Consumer.DeliverGroup = push.DeliverGroup
		if cfg.Consumer.DeliverGroup == "" && n > 1 {
			cfg.Consumer.DeliverGroup = cfg.Consumer.Name
		}
		cfg.Consumer.FlowControl, cfg.Consumer.Heartbeat = true, DefaultHeartbeat
		if push.FlowControl != nil {
			cfg.Consumer.FlowControl = *push.FlowControl
		}
		if push.Heartbeat != nil {
			cfg.Consumer.Heartbeat = push.Heartbeat.D()
		}
	}
	s, err := b.openJS(ctx)
	if err != nil {
		return nil, err
	}
	total, err := s.readStream(ctx, st, &cfg, b.Msgs(), size, !fanout, force)
	if err != nil {
		s.close()
		return nil, err
	}
	g := &harness.Group{
		Name: "sub", Kind: consumerKinds[kind], Verb: "expecting", Clients: n,
		Shares: Each(total, n),
	}
	if !fanout {
		g.Shares, g.Shared = Split(total, n), true
		cfg.Group = js.NewTally(total)
	}
	g.New = func(int) harness.Client { return js.NewConsumer(cfg) }
	s.report = append(s.report, streamReport{name: st.Name})
	kv := b.CommonParams(n, size)
	kv["msgs"] = units.Comma(total)
	kv["stream"], kv["purge"], kv["batch"] = st.Name, strconv.FormatBool(st.Purge), units.Comma(int64(cfg.Batch))
	if !fanout {
		kv["consumer"], kv["acks"], kv["double-acked"] = cfg.Consumer.Name, cfg.Consumer.Acks, strconv.FormatBool(cfg.DoubleAck)
	}
	if rc.Filter != "" {
		kv["filter"] = rc.Filter
	}
	return s.built(&Built{
		Title: consumerKinds[kind] + " benchmark", Params: kv, Size: size, Receivers: true,
		Settings: map[string]any{"stream": echoStream(st, spec.Duration(b.ackTimeout(rc.AckTimeout))), "consumer": cfg},
		Groups:   []*harness.Group{g},
	}), nil
}

// readStream makes a consumer workload's stream ready and returns how many messages the
// consumers expect (per client for fan-out, in total otherwise). The refusals come first, so a
// refused run changes nothing.
func (s *jsSession) readStream(ctx context.Context, sp spec.Stream, cfg *js.ConsumeConfig, msgs, size int64, durable, force bool) (int64, error) {
	ctx, cancel := setupCtx(ctx)
	defer cancel()
	st, err := s.openReadStream(ctx, sp)
	if err != nil {
		return 0, err
	}
	if sp.Purge {
		if err := st.RefusePurge(sp.Force); err != nil {
			return 0, err
		}
	}
	if durable {
		if err := js.CheckDurable(ctx, st.Stream, cfg.Consumer.Name, force); err != nil {
			return 0, err
		}
	}
	live := sp.Purge || cfg.Consumer.Deliver == "new"
	if sp.Purge {
		s.logf("Purging the stream")
		if err := st.Purge(ctx, sp.Force); err != nil {
			return 0, err
		}
	}
	if !live {
		if msgs, err = s.fill(ctx, st, msgs, size); err != nil {
			return 0, err
		}
		cfg.IdleFromStart, cfg.RateFromStart = true, true
	}
	if cfg.Consumer.Deliver == "last" {
		s.logf("--deliver last: expecting 1 message per consumer")
		msgs = 1
	}
	if durable {
		if err := js.EnsureDurable(ctx, st.Stream, cfg.Consumer, force); err != nil {
			return 0, err
		}
		name, stream := cfg.Consumer.Name, st.Stream
		s.after = append(s.after, func(ctx context.Context) { _ = stream.DeleteConsumer(ctx, name) })
	}
	return msgs, nil
}

func buildGet(ctx context.Context, b *Build) (*Built, error) {
	var c *spec.JSGetSync
	batched, batch := false, 0
	switch x := b.Workload.Config.(type) {
	case *spec.JSGetSync:
		c = x
	case *spec.JSGetBatch:
		c, batched, batch = &x.JSGetSync, true, intOr(x.Batch, defaultGetBatch)
	default:
		return nil, fmt.Errorf("workload kind %q: config is %T", b.Workload.Kind(), b.Workload.Config)
	}
	kind := "JetStream synchronous getter"
	if batched {
		kind = "JetStream batched direct getter"
	}
	n, size := b.Clients(), sizeOr(c.Size, DefaultSize)
	st := b.stream(c.Stream)
	s, err := b.openJS(ctx)
	if err != nil {
		return nil, err
	}
	msgs, err := s.getStream(ctx, st, b.Msgs(), size)
	if err != nil {
		s.close()
		return nil, err
	}
	cfg := js.GetConfig{
		Batch: batched, BatchSize: intOr(batch, defaultGetBatch), Stream: st.Name, Filter: c.Filter,
		Sleep: b.Workload.Pacing.Sleep.D(), AckTimeout: b.ackTimeout(c.AckTimeout),
	}
	s.report = append(s.report, streamReport{name: st.Name})
	kv := b.CommonParams(n, size)
	kv["msgs"], kv["stream"] = units.Comma(msgs), st.Name
	if batched {
		kv["batch"], kv["filter"] = units.Comma(int64(batch)), strOr(c.Filter, ">")
	}
	return s.built(&Built{
		Title: kind + " benchmark", Params: kv, Size: size,
		Settings: map[string]any{"stream": echoStream(st, spec.Duration(b.ackTimeout(c.AckTimeout))), "get": cfg},
		Groups: []*harness.Group{{
			Name: "get", Kind: kind, Verb: "expecting", Clients: n, Shares: Each(msgs, n),
			New: func(int) harness.Client { return js.NewGetter(cfg) },
		}},
	}), nil
}

// getStream makes a direct get workload's stream ready and returns how many messages each
// client reads.
func (s *jsSession) getStream(ctx context.Context, sp spec.Stream, msgs, size int64) (int64, error) {
	ctx, cancel := setupCtx(ctx)
	defer cancel()
	st, err := s.openReadStream(ctx, sp)
	if err != nil {
		return 0, err
	}
	if !st.Info.Config.AllowDirect {
		return 0, fmt.Errorf("stream %s does not allow direct gets (allow_direct is off)", sp.Name)
	}
	return s.fill(ctx, st, msgs, size)
}
