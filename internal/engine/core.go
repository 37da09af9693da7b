package engine

import (
	"context"
	"strconv"

	"github.com/natsperf/natsperf/internal/core"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/spec"
)

// The core NATS kinds.
func init() {
	Register("pub", buildPub)
	Register("sub", buildSub)
	Register("pubsub", buildPubSub)
	Register("service serve", buildServe)
	Register("service request", buildRequest)
}

// PubGroup is core publishers with their shares.
func PubGroup(cfg core.PubConfig, clients int, shares []int64) *harness.Group {
	return &harness.Group{
		Name: "pub", Kind: "Core NATS publisher", Verb: "publishing", Clients: clients,
		Shares: shares, Producer: true,
		New: func(int) harness.Client { return core.NewPublisher(cfg) },
	}
}

// SubGroup is core subscribers; total is what the publishers send in all (each subscriber
// expects all of it, or a share of it in a queue group).
func SubGroup(cfg core.SubConfig, clients int, total int64) *harness.Group {
	shares := Each(total, clients)
	if cfg.Queue != "" {
		shares = Split(total, clients)
	}
	return &harness.Group{
		Name: "sub", Kind: "Core NATS subscriber", Verb: "expecting", Clients: clients,
		Shares: shares, Shared: cfg.Queue != "",
		New: func(int) harness.Client { return core.NewSubscriber(cfg) },
	}
}

func (b *Build) pubConfig(subject string, size int64, multi bool, multiMax int) core.PubConfig {
	p := b.Workload.Pacing
	return core.PubConfig{
		Subject: subject, Size: int(size), Sleep: p.Sleep.D(),
		MultiSubject: multi, MultiSubjectMax: intOr(multiMax, defaultMultiMax),
		Rate: p.Rate, Shape: shapeOf(p), Duration: p.Duration.D(), IDs: b.NewIDs(), Fill: b.Fill(),
	}
}

func buildPub(_ context.Context, b *Build) (*Built, error) {
	c, err := configOf[*spec.Pub](b)
	if err != nil {
		return nil, err
	}
	size, n := sizeOr(c.Size, DefaultSize), b.Clients()
	size, err = payloadSize(c.Payload, size)
	if err != nil {
		return nil, err
	}
	cfg := b.pubConfig(c.Subject, size, c.MultiSubject, c.MultiSubjectMax)
	cfg.Randomize, cfg.Payload = c.MultiSubjectRandomize, payloadConfig(c.Payload)
	kv := b.CommonParams(n, size)
	kv["subject"], kv["multi-subject"], kv["multi-subject-max"] = c.Subject, strconv.FormatBool(c.MultiSubject), units.Comma(int64(cfg.MultiSubjectMax))
	return &Built{
		Title: "Core NATS publisher benchmark", Params: kv, Settings: cfg, Size: size,
		Groups: []*harness.Group{PubGroup(cfg, n, b.SenderShares(n))},
	}, nil
}

func buildSub(_ context.Context, b *Build) (*Built, error) {
	c, err := configOf[*spec.Sub](b)
	if err != nil {
		return nil, err
	}
	size, n := sizeOr(c.Size, DefaultSize), b.Clients()
	cfg := core.SubConfig{
		Subject: c.Subject, Queue: c.Queue, MultiSubject: c.MultiSubject,
		IdleTimeout:  durOr(c.IdleTimeout, DefaultIdleTimeout),
		PendingMsgs:  int(pending(int64(c.PendingMsgs))),
		PendingBytes: int(pending(int64(c.PendingBytes))),
		Sleep:        b.Workload.Pacing.Sleep.D(),
	}
	kv := b.CommonParams(n, size)
	kv["subject"], kv["multi-subject"] = c.Subject, strconv.FormatBool(c.MultiSubject)
	if c.Queue != "" {
		kv["queue"] = c.Queue
	}
	g := SubGroup(cfg, n, b.Msgs())
	g.Estimated = !b.MsgsGiven() // the default count only says when to stop
	return &Built{
		Title: "Core NATS subscriber benchmark", Params: kv, Settings: cfg, Size: size, Receivers: true,
		Groups: []*harness.Group{g},
	}, nil
}

// faultEcho is what the Result's settings say of faults and verify (as the flags name them).
type faultEcho struct {
	Verify      bool     `json:"verify,omitempty"`
	Faults      []string `json:"faults,omitempty"`
	Execs       []string `json:"fault_exec,omitempty"`
	ExecTimeout int64    `json:"fault_exec_timeout,omitempty"`
}

func (b *Build) faultEcho() faultEcho {
	f := b.Spec.Faults
	return faultEcho{Verify: b.Spec.Verify, Faults: f.Inject, Execs: f.Exec, ExecTimeout: int64(b.Faults.ExecTimeout)}
}

func buildPubSub(ctx context.Context, b *Build) (*Built, error) {
	c, err := configOf[*spec.PubSub](b)
	if err != nil {
		return nil, err
	}
	if c.JS != nil {
		return buildJSPubSub(ctx, b, c)
	}
	size := sizeOr(c.Size, DefaultSize)
	pubs, subs := intOr(c.Pubs, 1), intOr(c.Subs, 1)
	size, err = payloadSize(c.Payload, size)
	if err != nil {
		return nil, err
	}
	pcfg := b.pubConfig(c.Subject, size, c.MultiSubject, c.MultiSubjectMax)
	pcfg.Randomize, pcfg.Payload = c.MultiSubjectRandomize, payloadConfig(c.Payload)
	scfg := core.SubConfig{
		Subject: c.Subject, Queue: c.Queue, MultiSubject: c.MultiSubject,
		IdleTimeout:  durOr(c.IdleTimeout, DefaultIdleTimeout),
		PendingMsgs:  int(pending(int64(c.PendingMsgs))),
		PendingBytes: int(pending(int64(c.PendingBytes))),
		Sleep:        c.SubSleep.D(),
	}
	pshares := b.SenderShares(pubs)
	sg := SubGroup(scfg, subs, Sum(pshares))
	sg.HearsProducers = true // what the publishers sent and never arrived is lost
	// At a fixed rate for a duration the publishers stop at the duration, having sent
	// rate x duration only if they kept up: that total is a bound, not a promise.
	p := b.Workload.Pacing
	sg.Estimated = sg.Estimated || (p.Rate > 0 && p.Duration > 0)
	kv := b.CommonParams(1, size)
	delete(kv, "clients")
	kv["pub"], kv["sub"], kv["subject"] = strconv.Itoa(pubs), strconv.Itoa(subs), c.Subject
	kv["multi-subject"] = strconv.FormatBool(c.MultiSubject)
	return &Built{
		Title: "Core NATS pub/sub benchmark", Params: kv, Size: size, Receivers: true,
		Settings: map[string]any{"pub": pcfg, "sub": scfg, "pubs": pubs, "subs": subs, "faults": b.faultEcho()},
		Groups:   []*harness.Group{PubGroup(pcfg, pubs, pshares), sg}, // every client is set up (subscribed) before any starts
	}, nil
}

func buildServe(_ context.Context, b *Build) (*Built, error) {
	c, err := configOf[*spec.ServiceServe](b)
	if err != nil {
		return nil, err
	}
	size, n := sizeOr(c.Size, DefaultSize), b.Clients()
	cfg := core.ServeConfig{Subject: c.Subject, Sleep: b.Workload.Pacing.Sleep.D()}
	kv := b.CommonParams(n, size)
	kv["subject"] = c.Subject
	// Responders serve until stopped; a message count, when given, is the total the queue
	// group serves before it ends.
	var shares []int64
	if b.MsgsGiven() {
		shares = Split(b.Msgs(), n)
	} else {
		kv["msgs"] = "until stopped"
	}
	return &Built{
		Title: "Core NATS service responder benchmark", Params: kv, Settings: cfg, Size: size,
		Groups: []*harness.Group{{
			Name: "serve", Kind: "Core NATS service responder", Verb: "serving", Clients: n,
			Shares: shares, Shared: true,
			New: func(int) harness.Client { return core.NewResponder(cfg) },
		}},
	}, nil
}

func buildRequest(_ context.Context, b *Build) (*Built, error) {
	c, err := configOf[*spec.ServiceRequest](b)
	if err != nil {
		return nil, err
	}
	size, n := sizeOr(c.Size, DefaultSize), b.Clients()
	if size, err = payloadSize(c.Payload, size); err != nil {
		return nil, err
	}
	p := b.Workload.Pacing
	cfg := core.RequestConfig{
		Subject: c.Subject, Size: int(size), Sleep: p.Sleep.D(), Timeout: durOr(c.Timeout, defaultRequestLimit),
		Rate: p.Rate, Shape: shapeOf(p), Duration: p.Duration.D(), IDs: b.NewIDs(), Payload: payloadConfig(c.Payload),
		MaxInflight: maxInflight(b),
	}
	kv := b.CommonParams(n, size)
	kv["subject"] = c.Subject
	return &Built{
		Title: "Core NATS service requester benchmark", Params: kv, Settings: cfg, Size: size,
		Corrected: p.Rate > 0,
		Groups: []*harness.Group{{
			Name: "request", Kind: "Core NATS service requester", Verb: "requesting", Clients: n,
			Shares: b.SenderShares(n), Producer: true,
			New: func(int) harness.Client { return core.NewRequester(cfg) },
		}},
	}, nil
}
