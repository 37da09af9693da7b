package engine

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// Stream defaults a spec's absent settings stand for (the command line's).
const (
	DefaultStream      = "benchstream"
	DefaultMaxBytes    = 1 << 30
	DefaultDedupWindow = 2 * time.Minute
	// setupTimeout bounds one setup step (creating, purging or filling a stream).
	setupTimeout = time.Minute
)

// jsSession is a JetStream workload's setup connection for creating, purging and filling
// streams, and what to report about them after the run.
type jsSession struct {
	t        *Target
	nc       *nats.Conn
	js       jetstream.JetStream
	logf     func(string, ...any)
	warnings []string
	report   []streamReport
	after    []func(ctx context.Context) // cleanup after the run (delete this run's consumer)
	down     *downSince                  // the setup connection's outages
	payload  stamp.Fill                  // the workload's payload filler (fills, the compression check)
}

// downSince remembers since when a connection is down (Unix nanoseconds, 0 while it is up),
// so the queries after a run do not wait on a server gone for longer than --connect-timeout.
type downSince struct{ at atomic.Int64 }

func (d *downSince) options() []nats.Option {
	return []nats.Option{
		nats.DisconnectErrHandler(func(*nats.Conn, error) { d.at.CompareAndSwap(0, time.Now().UnixNano()) }),
		nats.ReconnectHandler(func(*nats.Conn) { d.at.Store(0) }),
	}
}

// deadline is when work that needs the connection gives up: grace from now, or grace after
// the connection went down when it is down (possibly already past).
func (d *downSince) deadline(grace time.Duration) time.Time {
	end := time.Now().Add(grace)
	if at := d.at.Load(); at != 0 {
		if gone := time.Unix(0, at).Add(grace); gone.Before(end) {
			end = gone
		}
	}
	return end
}

type streamReport struct {
	name      string
	published *js.Tally // nil for readers
	size      int64
}

// openJS opens the workload's setup connection to the target.
func (b *Build) openJS(ctx context.Context) (*jsSession, error) {
	down := &downSince{}
	nc, err := b.Target.Dialer()(ctx, "natsperf-setup", down.options()...)
	if err != nil {
		return nil, fmt.Errorf("connect: %w", err)
	}
	jsc, err := b.Target.Settings.JS.New(nc)
	if err != nil {
		nc.Close()
		return nil, fmt.Errorf("jetstream: %w", err)
	}
	return &jsSession{t: b.Target, nc: nc, js: jsc, logf: b.logf(), down: down, payload: b.Fill()}, nil
}

func (s *jsSession) close() { s.nc.Close() }

// warn prints a setup line and keeps it in the Result's warnings.
func (s *jsSession) warn(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.logf("%s", msg)
	s.warnings = append(s.warnings, msg)
}

// finish runs the clean-ups, adds the streams' state and the setup warnings to res.
func (s *jsSession) finish(ctx context.Context, res *result.Result) {
	// Ctrl-C must not cost the stream state: read it on a context of its own, bounded by
	// --connect-timeout (from when the connection went down, if it is down: a server killed
	// during the run is not waited for twice).
	actx, cancel := context.WithDeadline(context.WithoutCancel(ctx), s.down.deadline(s.t.Grace()))
	defer cancel()
	for _, f := range s.after {
		f(actx)
	}
	for _, r := range s.report {
		var published int64
		if r.published != nil {
			published = r.published.Load()
		}
		st, err := js.State(actx, s.js, r.name, published, r.size)
		if err != nil {
			s.warnings = append(s.warnings, fmt.Sprintf("stream %s: state after the run unavailable: %v", r.name, err))
			continue
		}
		s.diskBytes(actx, &st)
		res.Streams = append(res.Streams, st)
	}
	res.Warnings = append(res.Warnings, s.warnings...)
}

// built completes a JetStream workload's Built: its session's report after the run, and the
// session closed when the run ends.
func (s *jsSession) built(b *Built) *Built {
	b.After, b.Close = s.finish, s.close
	for _, r := range s.report {
		b.Streams = append(b.Streams, r.name)
	}
	return b
}

// stream is the setup stream name refers to (name zero: the default stream); a stream the
// setup does not list asks for nothing but its name.
func (b *Build) stream(name string) spec.Stream {
	if name == "" {
		name = DefaultStream
	}
	for _, st := range b.Spec.Setup.Streams {
		if st.Name == name {
			return st
		}
	}
	return spec.Stream{Name: name}
}

// streamSpec is the stream asked for; subjects are used when natsperf creates it. Only the
// settings the spec gives are compared with an existing stream.
func streamSpec(st spec.Stream, subjects []string, create bool) js.StreamSpec {
	storage, _ := js.ParseStorage(strOr(st.Storage, "file"))
	out := js.StreamSpec{
		Name: st.Name, Subjects: subjects, Storage: storage, Replicas: max(st.Replicas, 1),
		MaxBytes: DefaultMaxBytes, DedupWindow: DefaultDedupWindow, PersistAsync: st.PersistAsync,
		Compression: compressionOf(st.Compression), Create: create,
		Asked: map[string]bool{
			"storage": st.Storage != "", "replicas": st.Replicas != 0, "maxbytes": st.MaxBytes != nil,
			"dedup-window": st.DedupWindow != nil, "persistasync": st.PersistAsync, "compression": st.Compression != "",
		},
	}
	if st.MaxBytes != nil {
		out.MaxBytes = int64(*st.MaxBytes)
	}
	if st.DedupWindow != nil {
		out.DedupWindow = st.DedupWindow.D()
	}
	return out
}

// streamEcho is what a Result's settings say of the stream, named as the flags are.
type streamEcho struct {
	Stream       string        `json:"stream"`
	Create       bool          `json:"create,omitempty"`
	Storage      string        `json:"storage"`
	Replicas     int           `json:"replicas"`
	MaxBytes     int64         `json:"maxbytes"`
	DedupWindow  time.Duration `json:"dedup_window"`
	PersistAsync bool          `json:"persistasync,omitempty"`
	Compression  string        `json:"compression,omitempty"`
	Purge        bool          `json:"purge,omitempty"`
	Force        bool          `json:"force,omitempty"`
	AckTimeout   time.Duration `json:"ack_timeout"`
}

func echoStream(st spec.Stream, ackTimeout spec.Duration) streamEcho {
	ss := streamSpec(st, nil, false)
	return streamEcho{
		Stream: st.Name, Create: st.Create, Storage: strOr(st.Storage, "file"), Replicas: ss.Replicas,
		MaxBytes: ss.MaxBytes, DedupWindow: ss.DedupWindow, PersistAsync: st.PersistAsync, Compression: st.Compression,
		Purge: st.Purge, Force: st.Force, AckTimeout: durOr(ackTimeout, js.DefaultAckTimeout),
	}
}

// setupCtx bounds one setup step.
func setupCtx(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, setupTimeout)
}

// announce prints which stream is used and how it differs from what was asked.
func (s *jsSession) announce(st *js.Stream, diffs []string) {
	c := st.Info.Config
	if st.Created {
		s.logf("Created stream %s (%s, R%d, compression %s, subjects %s, %s=%s)", c.Name, js.StorageName(c.Storage), max(c.Replicas, 1), js.CompressionName(c.Compression), strings.Join(c.Subjects, " "), js.MarkKey, js.MarkValue)
		return
	}
	s.logf("Using stream: %s", c.Name)
	if len(diffs) > 0 {
		s.warn("Stream %s exists with another configuration and is used as it is: %s", c.Name, strings.Join(diffs, ", "))
	}
}

// openReadStream opens or creates (marked) the stream of a read benchmark.
func (s *jsSession) openReadStream(ctx context.Context, st spec.Stream) (*js.Stream, error) {
	str, diffs, err := js.EnsureStream(ctx, s.js, streamSpec(st, []string{st.Name + ".>"}, true))
	if err != nil {
		return nil, err
	}
	s.announce(str, diffs)
	return str, nil
}

// fill tops the stream up to msgs messages when natsperf created it; a user's stream with fewer
// messages is read as it is and the expectation lowered, with a warning.
func (s *jsSession) fill(ctx context.Context, st *js.Stream, msgs, size int64) (int64, error) {
	have := int64(st.Info.State.Msgs)
	if have >= msgs {
		return msgs, nil
	}
	if !st.Ours {
		if have == 0 {
			return 0, fmt.Errorf("stream %s is empty, and natsperf fills only streams it created; publish to it first", st.Info.Config.Name)
		}
		s.warn("Stream %s holds %s messages, fewer than --msgs %s; natsperf fills only streams it created: expecting %s",
			st.Info.Config.Name, units.Comma(have), units.Comma(msgs), units.Comma(have))
		return have, nil
	}
	subject, err := st.FillSubject()
	if err != nil {
		return 0, err
	}
	n := msgs - have
	s.checkCompression(st.Info.Config, size)
	s.logf("Filling stream %s with %s messages of %s on %s (setup, not measured)", st.Info.Config.Name, units.Comma(n), units.FormatSize(size), subject)
	if err := js.Fill(ctx, s.js, subject, n, int(size), s.payload); err != nil {
		return 0, err
	}
	return msgs, js.FillErrors(ctx, st, uint64(msgs))
}

func strOr(s, def string) string {
	if s != "" {
		return s
	}
	return def
}
