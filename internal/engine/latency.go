package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/core"
	"github.com/natsperf/natsperf/internal/harness"
	"github.com/natsperf/natsperf/internal/latency"
	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/internal/units"
	"github.com/natsperf/natsperf/result"
	"github.com/natsperf/natsperf/spec"
)

func init() { Register("latency", buildLatency) }

// latencyEcho is what a latency Result's settings say, named as the command's flags are.
type latencyEcho struct {
	ServerB  string        `json:"server_b,omitempty"` // redacted
	Subject  string        `json:"subject"`
	Size     int64         `json:"size"`
	Rate     float64       `json:"rate"`
	Shape    pace.Shape    `json:"shape,omitzero"`
	Duration time.Duration `json:"duration"`
	Warmup   time.Duration `json:"warmup,omitempty"`
	Hist     string        `json:"hist,omitempty"`
}

// latencyEchoRTT is the echo with both server round trips, which the clients measure once
// connected: read from the link when the Result is assembled, after they ran. natsperf-rust
// writes the same keys, so a coordinator prints either client's report (cli/latencytext.go).
type latencyEchoRTT struct {
	latencyEcho
	link *latency.Link
}

func (e latencyEchoRTT) MarshalJSON() ([]byte, error) {
	pub, sub := e.link.RTTs()
	var last int64 // when the publisher sent its last message: the Result's End is the slot after
	if t := e.link.LastSent(); !t.IsZero() {
		last = t.UnixNano()
	}
	type plain latencyEcho
	return json.Marshal(struct {
		plain
		PubRTT   int64 `json:"pub_rtt_ns"`
		SubRTT   int64 `json:"sub_rtt_ns"`
		LastSent int64 `json:"last_sent_unix_ns,omitempty"`
	}{plain(e.latencyEcho), int64(pub), int64(sub), last})
}

// buildLatency is one fixed-rate publisher on the target (server A) and one subscriber on
// server B, tied by a link, reported in latency-tests' layout without start lines.
func buildLatency(_ context.Context, b *Build) (*Built, error) {
	c, err := configOf[*spec.Latency](b)
	if err != nil {
		return nil, err
	}
	p := b.Workload.Pacing
	echo := latencyEcho{
		Subject: c.Subject, Size: sizeOr(c.Size, stamp.Size), Rate: p.Rate, Shape: shapeOf(p), Duration: p.Duration.D(),
		Warmup: b.Spec.Warmup.D(), Hist: b.Hist,
	}
	sb := b.Target.Settings
	if c.ServerB != "" {
		if b.Target.own() {
			return nil, InputError{errors.New("--server-b needs --server (server A) too: an embedded server cannot exchange messages with another server")}
		}
		sb.Servers = c.ServerB
		if _, err := sb.URLs(); err != nil {
			return nil, InputError{fmt.Errorf("--server-b: %v", err)}
		}
		echo.ServerB = sb.Redacted().Servers
	} else if e := b.Target.Embedded; e != nil && e.Gateways() > 0 {
		// A supercluster: the subscriber on the second cluster, a gateway away from the publisher.
		sb.Servers = strings.Join(e.ClusterURLs(2), ",")
		echo.ServerB = sb.Servers
	}
	if echo.Subject == "" {
		echo.Subject = nats.NewInbox() // runs never mix
	}
	dialB := func(ctx context.Context, name string, opts ...nats.Option) (*nats.Conn, error) {
		return connect.Connect(ctx, sb, name, opts...)
	}
	link := latency.NewLink(echo.Subject)
	msgs := int64(pace.Total(echo.Rate, echo.Shape, 1, echo.Duration))
	pcfg := core.PubConfig{Subject: echo.Subject, Size: int(echo.Size), Rate: echo.Rate, Shape: echo.Shape, Duration: echo.Duration, IDs: b.NewIDs()}
	started := b.Started
	return &Built{
		Title: "Core NATS latency test", Settings: latencyEchoRTT{echo, link}, Size: echo.Size, Msgs: msgs, Quiet: true,
		Params: map[string]string{
			"msg-size": units.FormatSize(echo.Size), "rate": units.Comma(int64(echo.Rate)) + "/s",
			"duration": echo.Duration.String(), "subject": echo.Subject,
		},
		Groups: []*harness.Group{
			{
				Name: "pub", Kind: "Core NATS publisher", Verb: "publishing", Clients: 1,
				Shares: []int64{msgs}, Producer: true,
				New: func(int) harness.Client { return latency.NewPublisher(pcfg, link) },
			},
			{
				Name: "sub", Kind: "Core NATS subscriber", Verb: "expecting", Clients: 1,
				Shares: []int64{msgs}, Dial: dialB, HearsProducers: true,
				New: func(int) harness.Client { return latency.NewSubscriber(link) },
			},
		},
		Text: func(w io.Writer, res *result.Result) error {
			// A shaped rate's target is what the schedule offered on average.
			return latency.WriteResult(w, res, started, offeredRate(p))
		},
	}, nil
}
