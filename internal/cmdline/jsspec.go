package cmdline

import (
	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/spec"
)

// setupStream is the stream flags as a spec's setup stream: only the settings the command line
// asks for (given, or all of them with --create) are set, so an existing stream is compared
// with those alone.
func (s *streamFlags) setupStream(f *pflag.FlagSet) spec.Stream {
	asked := func(k string) bool { return f.Changed(k) || (f.Changed("create") && s.Create && k != "persistasync") }
	st := spec.Stream{Name: s.Stream, Create: s.Create, Purge: s.Purge, Force: s.Force, PersistAsync: s.PersistAsync && asked("persistasync")}
	if asked("storage") {
		st.Storage = s.Storage
	}
	if asked("replicas") {
		st.Replicas = s.Replicas
	}
	if asked("maxbytes") {
		mb := spec.Size(s.MaxBytes)
		st.MaxBytes = &mb
	}
	if asked("compression") {
		st.Compression = s.Compression
	}
	if asked("dedup-window") {
		dw := spec.Duration(s.DedupWindow)
		st.DedupWindow = &dw
	}
	return st
}

// withStream adds the stream flags' stream to s's setup.
func withStream(s *spec.Spec, sf *streamFlags, f *pflag.FlagSet) *spec.Spec {
	s.Setup.Streams = append(s.Setup.Streams, sf.setupStream(f))
	return s
}

// ackTimeout is --ack-timeout for a spec: zero when left at its default.
func ackTimeout(sf streamFlags, f *pflag.FlagSet) spec.Duration {
	if f.Changed("ack-timeout") {
		return spec.Duration(sf.AckTimeout)
	}
	return 0
}

// consumerSpec is the consumer flags as a consumer kind's config.
func (c *consumerFlags) spec(kind string, bf benchFlags, sf streamFlags, f *pflag.FlagSet) spec.Config {
	rc := spec.JSConsumer{
		Stream: sf.Stream, Size: size(bf, f), Filter: c.Filter, IdleTimeout: idle(bf, f), AckTimeout: ackTimeout(sf, f),
	}
	if f.Changed("batch") {
		rc.Batch = c.Batch
	}
	if f.Changed("deliver") {
		rc.Deliver = c.Deliver
	}
	d := spec.JSDurable{DoubleAck: c.DoubleAck, MaxAckPending: c.MaxAckPending, AckWait: spec.Duration(c.AckWait), Force: sf.Force}
	if f.Changed("consumer") {
		d.Consumer = c.Consumer
	}
	if f.Changed("acks") {
		d.Acks = c.Acks
	}
	switch kind {
	case "ordered":
		return &spec.JSOrdered{JSConsumer: rc}
	case "consume":
		return &spec.JSConsume{JSConsumer: rc, JSDurable: d}
	case "fetch":
		return &spec.JSFetch{JSConsumer: rc, JSDurable: d}
	}
	p := &spec.JSPush{JSConsumer: rc, JSDurable: d, DeliverGroup: c.DeliverGroup}
	if f.Changed("flow-control") {
		fc := c.FlowControl
		p.FlowControl = &fc
	}
	if f.Changed("heartbeat") {
		hb := spec.Duration(c.Heartbeat)
		p.Heartbeat = &hb
	}
	return p
}
