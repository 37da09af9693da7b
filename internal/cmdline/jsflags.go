package cmdline

import (
	"time"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/js"
)

// storeFlags are what every JetStream command (js, kv, pubsub --js) asks of the stream or
// bucket it uses: one definition, so the names, defaults and help are the same everywhere.
type storeFlags struct {
	Storage     string
	Replicas    int
	Purge       bool
	Force       bool
	AckTimeout  time.Duration
	Compression string
}

func (s *storeFlags) register(f *pflag.FlagSet) {
	f.StringVar(&s.Storage, "storage", "file", "storage of a stream or bucket natsperf creates: file or memory")
	f.IntVar(&s.Replicas, "replicas", 1, "replicas of a stream or bucket natsperf creates (above 1 with no server given: an embedded cluster)")
	f.BoolVar(&s.Purge, "purge", false, "purge the stream or bucket first (only one natsperf created, unless --force)")
	f.BoolVar(&s.Force, "force", false, "allow purging or writing into a stream or bucket, or replacing a consumer, that natsperf did not create")
	f.DurationVar(&s.AckTimeout, "ack-timeout", js.DefaultAckTimeout, "how long to wait for each acknowledgement, reply or KV operation; a timeout is counted")
	f.StringVar(&s.Compression, "compression", "none", "compression at rest of a stream or bucket natsperf creates: s2 or none (file storage; the Result gives the bytes on disk of an embedded server)")
	registerPayloadFill(f)
}

func (s *storeFlags) validate() error {
	switch {
	case s.Replicas < 1 || s.Replicas > 5:
		return usagef("--replicas must be 1 to 5, got %d", s.Replicas)
	case s.AckTimeout <= 0:
		return usagef("--ack-timeout must be positive")
	}
	if _, err := js.ParseStorage(s.Storage); err != nil {
		return usageError{err}
	}
	if _, err := js.ParseCompression(s.Compression); err != nil {
		return usageError{err}
	}
	return nil
}

// streamFlags choose the stream and how natsperf creates it when it is missing: the stream
// flags of every js command and of pubsub --js.
type streamFlags struct {
	Stream       string
	Create       bool
	MaxBytes     int64
	DedupWindow  time.Duration
	PersistAsync bool
	storeFlags
}

func (s *streamFlags) register(f *pflag.FlagSet) {
	f.StringVar(&s.Stream, "stream", "benchstream", "stream to use")
	f.BoolVar(&s.Create, "create", false, "create the stream if it does not exist (always done on the embedded server, for read benchmarks and for pubsub --js)")
	s.storeFlags.register(f)
	s.MaxBytes = 1 << 30
	f.Var((*sizeValue)(&s.MaxBytes), "maxbytes", "maximum size of a stream natsperf creates (size units; 0: unlimited; pubsub --js: unlimited unless given)")
	f.DurationVar(&s.DedupWindow, "dedup-window", 2*time.Minute, "duplicate detection window of a stream natsperf creates")
	f.BoolVar(&s.PersistAsync, "persistasync", false, "a stream natsperf creates flushes to disk asynchronously (file storage, R1; nats-server 2.12+)")
}

func (s *streamFlags) validate() error {
	if err := checkStreamName("--stream", s.Stream); err != nil {
		return err
	}
	if err := s.storeFlags.validate(); err != nil {
		return err
	}
	switch {
	case s.MaxBytes < 0:
		return usagef("--maxbytes must not be negative")
	case s.DedupWindow < 0:
		return usagef("--dedup-window must not be negative")
	}
	if s.PersistAsync && (s.Replicas > 1 || s.Storage == "memory") {
		return usagef("--persistasync needs file storage and --replicas 1")
	}
	return nil
}

// consumerFlags are the consumer settings of every consumer workload.
type consumerFlags struct {
	Consumer      string
	Acks          string
	DoubleAck     bool
	Batch         int
	Filter        string
	Deliver       string
	MaxAckPending int
	AckWait       time.Duration
	DeliverGroup  string
	FlowControl   bool
	Heartbeat     time.Duration
}

func (c *consumerFlags) register(f *pflag.FlagSet, durable, push bool) {
	f.IntVar(&c.Batch, "batch", 500, "messages per pull (fetch size, or messages buffered by Consume); with --acks all, ack every this many (also --pull-batch)")
	aliasFlag(f, "pull-batch", "batch")
	f.StringVar(&c.Filter, "filter", "", "consume only this subject (wildcards allowed)")
	f.StringVar(&c.Deliver, "deliver", "all", "where delivery starts: all, new or last")
	if durable {
		f.StringVar(&c.Consumer, "consumer", "natsperf", "durable consumer name (natsperf creates it fresh and deletes it after the run)")
		f.StringVar(&c.Acks, "acks", "explicit", "ack policy: explicit, none or all")
		f.BoolVar(&c.DoubleAck, "double-ack", false, "wait for the server to confirm each ack")
		f.BoolFunc("no-double-ack", "nats bench's --no-doubleack: do not wait for ack confirmations (the default)", func(string) error { c.DoubleAck = false; return nil })
		_ = f.MarkHidden("no-double-ack")
		f.IntVar(&c.MaxAckPending, "max-ack-pending", 0, "consumer's maximum of unacknowledged messages (0: server default)")
		f.DurationVar(&c.AckWait, "ack-wait", 0, "consumer's ack wait before redelivery (0: server default)")
	}
	if push {
		f.StringVar(&c.DeliverGroup, "deliver-group", "", "deliver group (queue) the clients share; default: the consumer name when --clients > 1")
		f.BoolVar(&c.FlowControl, "flow-control", true, "push consumer flow control")
		f.DurationVar(&c.Heartbeat, "heartbeat", 5*time.Second, "push consumer idle heartbeat")
	}
}

func (c *consumerFlags) validate() error {
	if c.Filter != "" {
		if err := checkSubject("--filter", c.Filter); err != nil {
			return err
		}
	}
	if c.Batch < 1 {
		return usagef("--batch must be at least 1, got %d", c.Batch)
	}
	if _, err := js.DeliverPolicy(c.Deliver); err != nil {
		return usageError{err}
	}
	if c.Acks != "" {
		if _, err := js.AckPolicy(c.Acks); err != nil {
			return usageError{err}
		}
	}
	if c.MaxAckPending < 0 || c.AckWait < 0 || c.Heartbeat < 0 {
		return usagef("--max-ack-pending, --ack-wait and --heartbeat must not be negative")
	}
	if c.FlowControl && c.Heartbeat == 0 {
		return usagef("--flow-control needs a --heartbeat")
	}
	return nil
}
