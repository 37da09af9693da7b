package engine

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/idle"
	"github.com/natsperf/natsperf/internal/js"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

// SeriesInterval is the width of s's interval records: its interval, else FaultInterval in a
// run with faults (injected or --fault-exec), else DefaultInterval. Whoever reads the records
// live (the agents' coordinator's metrics) divides by the same width.
func SeriesInterval(s *spec.Spec) time.Duration {
	switch {
	case s.Interval.D() > 0:
		return s.Interval.D()
	case len(s.Faults.Inject) > 0 || len(s.Faults.Exec) > 0:
		return FaultInterval
	}
	for _, w := range s.Workloads {
		// Steps are read off the series: a step that is not whole seconds gets slices of its width.
		if d := w.Pacing.StepDuration.D(); d > 0 && len(w.Pacing.Steps) > 0 && d%DefaultInterval != 0 {
			return d
		}
	}
	return DefaultInterval
}

// Command-line defaults a spec's zero values stand for.
const (
	DefaultMsgs        = 100_000
	DefaultSize        = 128
	DefaultIdleTimeout = idle.DefaultTimeout
	DefaultInterval    = time.Second
	// FaultInterval is the series' width in a fault run unless an interval is given: the phases
	// around a fault are cut at interval edges.
	FaultInterval       = 250 * time.Millisecond
	defaultMultiMax     = 100_000
	defaultRequestLimit = 5 * time.Second
)

// Build is what a kind's builder gets: the workload, the whole spec and the open target.
type Build struct {
	Spec     *spec.Spec
	Workload spec.Workload
	Target   *Target
	// Faults is the run's fault plan (already checked against the target).
	Faults *Faults
	// Logf prints setup lines (stream created, filled); nil prints nothing.
	Logf func(format string, args ...any)
	// Hist is the command line's --hist file (echoed by kinds that name it in their settings).
	Hist string
	// Started is when the run was asked for (latency's wall times count from it).
	Started time.Time
	// idBase and idBlock place the instance's publisher ids when the run gives a base (a
	// distributed run): block idBlock of IDBlock ids from idBase; no base: a random one.
	idBase  uint32
	idBlock int
}

// IDBlock is how many publisher ids each workload instance gets from a given base.
const IDBlock = 4096

// NewIDs is the publisher ids of this workload instance's clients: a random base, or, when
// the run gives one, this instance's block from it, the same in every process of a
// distributed run (each process runs other clients of the block).
func (b *Build) NewIDs() stamp.IDs {
	if b.idBase == 0 {
		return stamp.NewIDs()
	}
	return stamp.IDs((b.idBase + uint32(b.idBlock)*IDBlock) & stamp.MaxPublisher)
}

func (b *Build) logf() func(string, ...any) {
	if b.Logf == nil {
		return func(string, ...any) {}
	}
	return b.Logf
}

// Built is a workload's part of a run.
type Built struct {
	Title  string            // start line: "Core NATS publisher benchmark"
	Params map[string]string // start line's key=value pairs
	// Settings is the kind's own settings, echoed into the Result as "workload".
	Settings any
	Groups   []*harness.Group
	// Corrected records the uncorrected latency histogram too (fixed-rate round trips).
	Corrected bool
	// Receivers echo the idle timeout in the Result's bench settings.
	Receivers bool
	// Size is the message size echoed in the bench settings.
	Size int64
	// During and After are the kind's own hooks (see harness.Plan); After runs before the run's.
	After func(ctx context.Context, res *result.Result)
	// Stream is the stream a fault acts on (kill-leader, stepdown); nil: none.
	Stream *StreamRef
	// Streams are the streams the kind uses: their leaders' clocks stamp what its consumers
	// split (the latency breakdown, storedClock).
	Streams []string
	// Verify, when set, is the kind's own delivery check (a JetStream read-back), run
	// instead of the receivers' count when the spec asks to verify.
	Verify func(ctx context.Context, res *result.Result)
	// Msgs, when set, is the message count echoed in the bench settings (a count the kind
	// works out itself, e.g. rate x duration).
	Msgs int64
	// Quiet prints no start lines (latency-tests' layout has none).
	Quiet bool
	// Text, when set, is the kind's own text report instead of nats bench's form.
	Text func(w io.Writer, res *result.Result) error
	// Close releases what the builder took (connections, consumers) when the run ends or
	// never starts; nil: nothing.
	Close func()
}

// Builder turns a workload of its kind into client groups and hooks. It may connect to the
// target (JetStream setup); what it leaves open it releases in Built.Close.
type Builder func(ctx context.Context, b *Build) (*Built, error)

var (
	regMu    sync.RWMutex
	registry = map[string]Builder{}
)

// Register adds a workload kind; the kind must be one of spec.Kinds().
func Register(kind string, b Builder) {
	regMu.Lock()
	defer regMu.Unlock()
	registry[kind] = b
}

// Kinds lists the kinds the engine runs, sorted.
func Kinds() []string {
	regMu.RLock()
	defer regMu.RUnlock()
	out := make([]string, 0, len(registry))
	for k := range registry {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

func builder(kind string) (Builder, bool) {
	regMu.RLock()
	defer regMu.RUnlock()
	b, ok := registry[kind]
	return b, ok
}

// Clients is the workload's --clients (0: 1).
func (b *Build) Clients() int { return max(b.Workload.Clients, 1) }

// Msgs is --msgs as the command line resolves it: the spec's, else 0 when a duration bounds
// the run, else the default.
func (b *Build) Msgs() int64 {
	p := b.Workload.Pacing
	switch {
	case p.Msgs > 0:
		return p.Msgs
	case p.Duration > 0:
		return 0
	}
	return DefaultMsgs
}

// MsgsGiven reports whether the spec names a message count (a receiver's share is then known,
// not an estimate).
func (b *Build) MsgsGiven() bool { return b.Workload.Pacing.Msgs > 0 }

// CommonParams is the start line every benchmark shares.
func (b *Build) CommonParams(clients int, size int64) map[string]string {
	p := b.Workload.Pacing
	msgs := b.Msgs()
	kv := map[string]string{
		"clients":  strconv.Itoa(clients),
		"msg-size": units.FormatSize(size),
		"msgs":     units.Comma(msgs),
		"sleep":    p.Sleep.D().String(),
	}
	if p.Rate > 0 {
		kv["rate"] = strconv.FormatFloat(p.Rate, 'f', -1, 64) + "/s"
	}
	if p.Duration > 0 {
		kv["duration"] = p.Duration.D().String()
	}
	if msgs == 0 { // the duration bounds the run; msgs=0 would read as "nothing"
		delete(kv, "msgs")
	}
	if b.Spec.Warmup > 0 {
		kv["warmup"] = b.Spec.Warmup.D().String()
	}
	return kv
}

// SenderShares is each of n senders' part of the workload's messages.
func (b *Build) SenderShares(n int) []int64 {
	p := b.Workload.Pacing
	return SenderShares(b.Msgs(), p.Rate, shapeOf(p), p.Duration.D(), n)
}

func sizeOr(s spec.Size, def int64) int64 {
	if s > 0 {
		return int64(s)
	}
	return def
}

func durOr(d spec.Duration, def time.Duration) time.Duration {
	if d > 0 {
		return d.D()
	}
	return def
}

func intOr(v, def int) int {
	if v != 0 {
		return v
	}
	return def
}

// pending is a client library buffer bound: 0 or -1 in a spec mean unlimited (-1).
func pending(v int64) int64 {
	if v <= 0 {
		return -1
	}
	return v
}

func configOf[T spec.Config](b *Build) (T, error) {
	c, ok := b.Workload.Config.(T)
	if !ok {
		var zero T
		return zero, fmt.Errorf("workload kind %q: config is %T", b.Workload.Kind(), b.Workload.Config)
	}
	return c, nil
}

// ackTimeout is a workload's --ack-timeout, else the target's --timeout (the nats CLI's
// JetStream API and request timeout), else js.DefaultAckTimeout.
func (b *Build) ackTimeout(d spec.Duration) time.Duration {
	if b.Target != nil && b.Target.Settings.JS.Timeout > 0 {
		return durOr(d, b.Target.Settings.JS.Timeout)
	}
	return durOr(d, js.DefaultAckTimeout)
}
