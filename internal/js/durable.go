package js

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ConsumerSpec is the consumer a consumer workload asks for.
type ConsumerSpec struct {
	Name          string        `json:"name,omitempty"` // durable name; "" for ordered consumers
	Filter        string        `json:"filter,omitempty"`
	Acks          string        `json:"acks"`    // explicit, none, all
	Deliver       string        `json:"deliver"` // all, new, last
	MaxAckPending int           `json:"max_ack_pending,omitempty"`
	AckWait       time.Duration `json:"ack_wait,omitempty"`
	// Push consumers only.
	DeliverSubject string        `json:"deliver_subject,omitempty"`
	DeliverGroup   string        `json:"deliver_group,omitempty"`
	FlowControl    bool          `json:"flow_control,omitempty"`
	Heartbeat      time.Duration `json:"heartbeat,omitempty"`
	// StartSeq, when set, starts delivery at this stream sequence (pubsub: what is published
	// from now on, whenever the consumer gets created).
	StartSeq uint64 `json:"start_seq,omitempty"`
}

// AckPolicy reads --acks.
func AckPolicy(s string) (jetstream.AckPolicy, error) {
	switch strings.ToLower(s) {
	case "explicit", "":
		return jetstream.AckExplicitPolicy, nil
	case "none":
		return jetstream.AckNonePolicy, nil
	case "all":
		return jetstream.AckAllPolicy, nil
	}
	return 0, fmt.Errorf("--acks must be explicit, none or all, got %q", s)
}

// DeliverPolicy reads --deliver.
func DeliverPolicy(s string) (jetstream.DeliverPolicy, error) {
	switch strings.ToLower(s) {
	case "all", "":
		return jetstream.DeliverAllPolicy, nil
	case "new":
		return jetstream.DeliverNewPolicy, nil
	case "last":
		return jetstream.DeliverLastPolicy, nil
	}
	return 0, fmt.Errorf("--deliver must be all, new or last, got %q", s)
}

// Config is the durable consumer natsperf creates for spec, marked as its own.
func (c ConsumerSpec) Config() (jetstream.ConsumerConfig, error) {
	ack, err := AckPolicy(c.Acks)
	if err != nil {
		return jetstream.ConsumerConfig{}, err
	}
	dp, err := DeliverPolicy(c.Deliver)
	if err != nil {
		return jetstream.ConsumerConfig{}, err
	}
	if c.StartSeq > 0 {
		dp = jetstream.DeliverByStartSequencePolicy
	}
	cfg := jetstream.ConsumerConfig{
		OptStartSeq:    c.StartSeq,
		Durable:        c.Name,
		AckPolicy:      ack,
		DeliverPolicy:  dp,
		FilterSubject:  c.Filter,
		MaxAckPending:  c.MaxAckPending,
		AckWait:        c.AckWait,
		DeliverSubject: c.DeliverSubject,
		DeliverGroup:   c.DeliverGroup,
		FlowControl:    c.FlowControl,
		IdleHeartbeat:  c.Heartbeat,
		Metadata:       mark(),
	}
	if c.DeliverSubject == "" {
		cfg.MaxWaiting = 512 // pull requests of many clients
	}
	return cfg, nil
}

// CheckDurable refuses a consumer name that is taken by a consumer natsperf did not create,
// unless force. It changes nothing.
func CheckDurable(ctx context.Context, s jetstream.Stream, name string, force bool) error {
	old, err := s.Consumer(ctx, name)
	switch {
	case err == nil:
		if !Marked(old.CachedInfo().Config.Metadata) && !force {
			return fmt.Errorf("refusing to replace consumer %s on stream %s: natsperf did not create it (no %s=%s metadata); choose another --consumer or pass --force",
				name, s.CachedInfo().Config.Name, MarkKey, MarkValue)
		}
		return nil
	case errors.Is(err, jetstream.ErrConsumerNotFound):
		return nil
	}
	return fmt.Errorf("look up consumer %s: %w", name, err)
}

// EnsureDurable creates a fresh durable consumer for a run. A consumer of that name that
// natsperf created earlier is replaced (a run starts from its deliver policy); one natsperf did
// not create is left alone and the run refused, unless force.
func EnsureDurable(ctx context.Context, s jetstream.Stream, spec ConsumerSpec, force bool) error {
	cfg, err := spec.Config()
	if err != nil {
		return err
	}
	stream := s.CachedInfo().Config.Name
	if err := CheckDurable(ctx, s, spec.Name, force); err != nil {
		return err
	}
	if err := s.DeleteConsumer(ctx, spec.Name); err != nil && !errors.Is(err, jetstream.ErrConsumerNotFound) {
		return fmt.Errorf("delete old consumer %s: %w", spec.Name, err)
	}
	if cfg.DeliverSubject != "" {
		_, err = s.CreatePushConsumer(ctx, cfg)
	} else {
		_, err = s.CreateConsumer(ctx, cfg)
	}
	if err != nil {
		return fmt.Errorf("create consumer %s on stream %s: %w", spec.Name, stream, err)
	}
	return nil
}
