package js

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/loop"
)

// GetConfig configures direct getters.
type GetConfig struct {
	Batch      bool          `json:"batch"`      // batched direct gets instead of one by one
	BatchSize  int           `json:"batch_size"` // messages per batched request
	Stream     string        `json:"stream"`
	Filter     string        `json:"filter,omitempty"`
	Sleep      time.Duration `json:"sleep,omitempty"`
	AckTimeout time.Duration `json:"timeout"`
}

// NewGetter returns a direct get client: every client reads the stream from its first message.
func NewGetter(cfg GetConfig) harness.Client {
	if cfg.AckTimeout <= 0 {
		cfg.AckTimeout = DefaultAckTimeout
	}
	if cfg.BatchSize <= 0 {
		cfg.BatchSize = 500
	}
	return &getter{cfg: cfg}
}

type getter struct {
	cfg    GetConfig
	conn   *harness.Conn
	stream jetstream.Stream
	first  uint64 // the stream's first sequence at setup
	sub    *nats.Subscription
	inbox  string
	api    string // the JetStream API's subject prefix (connect.API)
}

func (g *getter) Prepare(ctx context.Context, env *harness.Env) error {
	conn, js, err := dial(ctx, env, jetstream.WithDefaultTimeout(g.cfg.AckTimeout))
	if err != nil {
		return err
	}
	g.api = connect.API(js)
	g.conn = conn
	g.stream, err = js.Stream(ctx, g.cfg.Stream)
	if err != nil {
		return fmt.Errorf("stream %s: %w", g.cfg.Stream, err)
	}
	info := g.stream.CachedInfo()
	if !info.Config.AllowDirect {
		return fmt.Errorf("stream %s does not allow direct gets (allow_direct is off)", g.cfg.Stream)
	}
	g.first = max(info.State.FirstSeq, 1)
	if g.cfg.Batch {
		g.inbox = conn.NewInbox()
		if g.sub, err = conn.SubscribeSync(g.inbox); err != nil {
			return err
		}
		if err := g.sub.SetPendingLimits(-1, -1); err != nil {
			return err
		}
		return conn.FlushTimeout(g.cfg.AckTimeout)
	}
	return nil
}

func (g *getter) Run(ctx context.Context, env *harness.Env) error {
	env.Rec.Begin(env.Clock.Now())
	if g.cfg.Batch {
		return g.runBatch(ctx, env)
	}
	return g.runSync(ctx, env)
}

// runSync gets one message at a time, by sequence (or the next one on the filter).
func (g *getter) runSync(ctx context.Context, env *harness.Env) error {
	clk, rec := env.Clock, env.Rec
	timer := loop.NewTimer()
	var opts []jetstream.GetMsgOpt
	if f := nextFor(g.cfg.Filter); f != "" {
		opts = append(opts, jetstream.WithGetMsgSubject(f))
	}
	seq := g.first
	misses := 0
	for i := int64(0); !env.Bounded || i < env.Share; {
		if err := ctx.Err(); err != nil {
			return err
		}
		sent := clk.Now()
		msg, err := g.stream.GetMsg(ctx, seq, opts...)
		now := clk.Now()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			if errors.Is(err, jetstream.ErrMsgNotFound) {
				// Past the end (or a deleted message): count it, and give up when nothing is left.
				rec.Events.Errors.Add(1)
				if misses++; misses >= 3 || seq == g.first {
					return fmt.Errorf("direct get: no message at or after sequence %d on stream %s%s", seq, g.cfg.Stream, filterNote(g.cfg.Filter))
				}
				seq = g.first
				continue
			}
			if fatal(err) {
				return g.conn.Explain("direct get", err)
			}
			count(&rec.Events, err)
			continue
		}
		misses = 0
		rec.Op(now, len(msg.Data), now-sent)
		seq = msg.Sequence + 1
		i++
		if g.cfg.Sleep > 0 {
			if err := loop.Sleep(ctx, timer, g.cfg.Sleep); err != nil {
				return err
			}
		}
	}
	return nil
}

// nextFor is a request's subject filter: none for every subject (">"), so the server reads by
// sequence instead of matching each message against ">", as a plain direct get does.
func nextFor(filter string) string {
	if filter == ">" {
		return ""
	}
	return filter
}

func filterNote(f string) string {
	if f == "" {
		return ""
	}
	return " matching " + f
}

// batchRequest is the direct get request for a batch (nats-server 2.11+).
type batchRequest struct {
	Seq     uint64 `json:"seq"`
	Batch   int    `json:"batch"`
	NextFor string `json:"next_by_subj,omitempty"`
}

// runBatch asks for BatchSize messages per request and reads the replies up to the server's
// end-of-batch marker. Each message's latency is from the request to its arrival.
func (g *getter) runBatch(ctx context.Context, env *harness.Env) error {
	clk, rec := env.Clock, env.Rec
	subject := g.api + "DIRECT.GET." + g.cfg.Stream
	timer := loop.NewTimer()
	seq := g.first
	for i := int64(0); !env.Bounded || i < env.Share; {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := g.cfg.BatchSize
		if env.Bounded {
			n = int(min(int64(n), env.Share-i))
		}
		req, _ := json.Marshal(batchRequest{Seq: seq, Batch: n, NextFor: nextFor(g.cfg.Filter)})
		sent := clk.Now()
		if err := g.conn.PublishRequest(subject, g.inbox, req); err != nil {
			return g.conn.Explain("direct get", err)
		}
		got := 0
		var last *nats.Msg // the batch's last message: the next request starts after it
		for {
			m, err := g.sub.NextMsg(g.cfg.AckTimeout)
			now := clk.Now()
			if err != nil {
				if ctx.Err() != nil {
					return ctx.Err()
				}
				if fatal(err) || g.conn.Err() != nil {
					return g.conn.Explain("direct get", err)
				}
				count(&rec.Events, err)
				break
			}
			if len(m.Data) == 0 && m.Header.Get("Status") != "" {
				switch m.Header.Get("Status") {
				case "204": // end of batch
				case "404":
					if got == 0 && seq != g.first {
						seq = g.first // past the end: start over
						break
					}
					if got == 0 {
						return fmt.Errorf("direct get: no message at or after sequence %d on stream %s%s", seq, g.cfg.Stream, filterNote(g.cfg.Filter))
					}
				default:
					rec.Events.Errors.Add(1)
				}
				break
			}
			rec.Op(now, len(m.Data), now-sent)
			got++
			i++
			last = m
		}
		// Parsed once per batch, not per message: replies come in sequence order.
		if last != nil {
			if s, err := strconv.ParseUint(last.Header.Get(jetstream.SequenceHeader), 10, 64); err == nil {
				seq = s + 1
			}
		}
		if g.cfg.Sleep > 0 {
			if err := loop.Sleep(ctx, timer, g.cfg.Sleep); err != nil {
				return err
			}
		}
	}
	return nil
}

func (g *getter) Close() {
	if g.sub != nil {
		_ = g.sub.Unsubscribe()
	}
}
