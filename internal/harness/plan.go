// Package harness runs one set of client groups: a Plan names the groups; the Runner connects every
// client, holds them at a common start barrier, runs them under one context, and merges what
// each recorded into a Result. Workloads (core NATS, JetStream, KV) only implement Client.
package harness

import (
	"context"
	"errors"
	"time"

	"github.com/natsperf/natsperf/internal/record"
	"github.com/natsperf/natsperf/result"
)

// Plan is one run: what to print at the start, the settings to echo, and the client groups that
// run at the same time.
type Plan struct {
	Command  string // as in the Result: "pub", "pubsub", "service request", ...
	Title    string // start line: "Core NATS publisher benchmark"
	Params   []Param
	Settings any // echoed into the Result; must hold no secrets
	Groups   []*Group
	// Latency enables latency histograms; Corrected adds the uncorrected one (fixed rates).
	Latency, Corrected bool
	// During, when set, runs alongside the clients from the start barrier (start) until they
	// are all done, when its ctx ends; the runner waits for it. The windows it returns (offsets
	// from start) get each group's messages and latency in the Result (fault phases).
	During func(ctx context.Context, start time.Time) []result.Window
	// Before, when set, runs just before the start barrier opens, on the run's time but
	// before its clock starts (a baseline reading of the servers); keep it short.
	Before func(ctx context.Context)
	// After, when set, completes the Result once the clients are closed (reading a stream back
	// for --verify, the fault timeline). Its ctx survives Ctrl-C; bound what it does.
	After func(ctx context.Context, res *result.Result)
	// GapMin is the shortest stretch without success each client keeps (record.Options.GapMin;
	// 0: result.GapMin).
	GapMin time.Duration
}

// Param is one key=value of the start line, e.g. {"msgs", "1,000,000"}.
type Param struct{ Key, Value string }

// Group is a set of clients doing the same thing.
type Group struct {
	Name    string // short id: "pub", "sub"
	Kind    string // as printed: "Core NATS publisher"
	Verb    string // start line per client: "publishing", "expecting"
	Clients int
	// Shares is each client's expected message count (len == Clients); nil means open-ended
	// (the run is bounded by a duration or by Ctrl-C).
	Shares []int64
	// Producer groups end receivers' waiting: once every producer is done, receivers that
	// go idle end instead of waiting for the first message.
	Producer bool
	// Shared marks a queue group: messages are split among members, losses judged on the total.
	Shared bool
	// Estimated marks Shares that only say when to stop (a subscriber's default --msgs), not
	// what the producers are known to send: losses are then judged by sequence gaps alone, and
	// going idle before the share is how such a receiver normally ends.
	Estimated bool
	// HearsProducers marks receivers that get every message the run's producer groups send
	// (core fan-out or a queue group on the publishers' subject): what the producers sent
	// beyond the last sequence a receiver saw is then lost, not merely "not received".
	HearsProducers bool
	// New builds client i (0-based).
	New func(i int) Client
	// Rate is the group's target rate in messages per second across its clients (fixed-rate
	// senders), echoed into the Result so the report can say when it was not reached; 0: none.
	Rate float64
	// PacePrecision is the pacing precision its fixed-rate senders ran at (Runner's),
	// echoed into the Result beside Rate; 0 for a group without a fixed rate.
	PacePrecision time.Duration
	// PacePrecisionChosen marks a PacePrecision natsperf chose from the rate (none was set),
	// echoed into the Result.
	PacePrecisionChosen bool
	// Dial, when set, connects this group's clients instead of the Runner's Dialer, e.g. the
	// latency command's subscriber on a second server.
	Dial Dialer
	// Offset and Total place these clients in a group that several processes share (a
	// distributed run): they are clients Offset .. Offset+Clients-1 of Total, and each keeps
	// its index in the whole group (its publisher id, its place in a fixed-rate schedule).
	// Zero: the group is all here.
	Offset, Total int
}

// total is the number of clients in the whole group, across processes.
func (g *Group) total() int { return max(g.Total, g.Clients) }

// Expected is the group's total share.
func (g *Group) Expected() int64 {
	var n int64
	for _, s := range g.Shares {
		n += s
	}
	return n
}

// Client is one connection's worth of work.
type Client interface {
	// Prepare connects and sets up (subscribes, creates) before the start barrier. Nothing it
	// does is measured.
	Prepare(ctx context.Context, env *Env) error
	// Run does the measured work. It returns nil when its share is done, ErrIdle when it ended
	// waiting, ctx.Err() when cancelled, or the error that stopped it.
	Run(ctx context.Context, env *Env) error
	// Close releases what Prepare took; after it returns, nothing writes to env.Rec.
	Close()
}

// ErrIdle ends a receiver that got nothing for its idle timeout.
var ErrIdle = errors.New("idle timeout")

// Env is what the runner gives one client.
type Env struct {
	ID    int   // 1-based
	Index int   // 0-based within the group
	Count int   // clients in the group
	Share int64 // messages this client should handle, when Bounded
	// Bounded is false for open-ended clients (bounded by a duration or Ctrl-C instead).
	Bounded bool
	Clock   record.Clock
	Rec     *record.Recorder
	// Dial opens a connection named after the client, watched for loss and counted in Rec.
	Dial func(ctx context.Context) (*Conn, error)
	// ProducersDone is closed once every producer group in the run is done (never closed when
	// the run has no producers).
	ProducersDone <-chan struct{}
	// Start is the Clock time of the start barrier.
	Start int64
	// GroupDone reports whether the whole group has handled its total: how the members of a
	// queue group, whose individual shares are only estimates, know they are done.
	GroupDone func() bool
	// PacePrecision is the run's pacing precision (Runner.PacePrecision) for the client's
	// loop.Waiter; 0: loop.DefaultPrecision (the engine always sets it: set or chosen from
	// the rate, see loop.ChoosePrecision).
	PacePrecision time.Duration
}
