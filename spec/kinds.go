package spec

import "sort"

// Config is a workload kind's own settings. The kinds are the types of this file; Kind
// returns the command's path, which is also the Result's command.
type Config interface {
	Kind() string
	check(c *checker, w *Workload)
}

// kind is what the codec and Validate know of a kind.
type kind struct {
	new func() Config
	// sender kinds take pacing.rate and pacing.duration.
	sender bool
}

var kinds = map[string]kind{
	"pub":             {func() Config { return new(Pub) }, true},
	"sub":             {func() Config { return new(Sub) }, false},
	"pubsub":          {func() Config { return new(PubSub) }, true},
	"service serve":   {func() Config { return new(ServiceServe) }, false},
	"service request": {func() Config { return new(ServiceRequest) }, true},
	"js pub sync":     {func() Config { return new(JSPubSync) }, true},
	"js pub async":    {func() Config { return new(JSPubAsync) }, true},
	"js pub batch":    {func() Config { return new(JSPubBatch) }, true},
	"js pub fast":     {func() Config { return new(JSPubFast) }, true},
	"js ordered":      {func() Config { return new(JSOrdered) }, false},
	"js consume":      {func() Config { return new(JSConsume) }, false},
	"js fetch":        {func() Config { return new(JSFetch) }, false},
	"js push":         {func() Config { return new(JSPush) }, false},
	"js get sync":     {func() Config { return new(JSGetSync) }, false},
	"js get batch":    {func() Config { return new(JSGetBatch) }, false},
	"kv put":          {func() Config { return new(KVPut) }, true},
	"kv get":          {func() Config { return new(KVGet) }, false},
	"latency":         {func() Config { return new(Latency) }, true},
}

// Kinds lists every workload kind, sorted.
func Kinds() []string {
	out := make([]string, 0, len(kinds))
	for k := range kinds {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Pub is `natsperf pub SUBJECT`: core NATS publishers.
type Pub struct {
	Subject string `json:"subject"`
	Size    Size   `json:"size,omitempty"` // --size (0: 128 B)
	// MultiSubject publishes to SUBJECT.N, N the message number modulo MultiSubjectMax
	// (--multisubject, --multisubject-max; 0: 100,000).
	MultiSubject    bool `json:"multisubject,omitempty"`
	MultiSubjectMax int  `json:"multisubject_max,omitempty"`
	// MultiSubjectRandomize sends each message to a random one of the subjects
	// (--multisubject-randomize).
	MultiSubjectRandomize bool `json:"multisubject_randomize,omitempty"`
	// Payload is what the messages carry beyond Size.
	Payload Payload `json:"payload,omitzero"`
}

// Payload is a publisher's message body and headers (--payload, --payload-random, --header,
// --stamp). The zero value is Size bytes starting with the stamp.
type Payload struct {
	// File's bytes are sent unchanged as every message's payload (--payload); the stamp rides
	// in the Natsperf-Stamp header. Read by each process that publishes (each agent).
	File string `json:"file,omitempty"`
	// Random fills the payload with random, incompressible bytes (--payload-random).
	Random bool `json:"random,omitempty"`
	// Headers are added to every message, "KEY:VALUE" each (--header).
	Headers []string `json:"headers,omitempty"`
	// Stamp is where the latency/loss stamp rides: payload (default, unless File) or header.
	Stamp string `json:"stamp,omitempty"`
}

// Sub is `natsperf sub SUBJECT`: core NATS subscribers, each expecting pacing.msgs (with a
// queue group, sharing them).
type Sub struct {
	Subject string `json:"subject"`
	// Size is the message size the publishers send (--size): it only labels the run (start
	// line, settings), as nats bench's subscriber takes it.
	Size         Size   `json:"size,omitempty"`
	Queue        string `json:"queue,omitempty"`        // --queue
	MultiSubject bool   `json:"multisubject,omitempty"` // subscribe to SUBJECT.>
	// IdleTimeout ends a subscriber that gets nothing for this long once messages started
	// (--idle-timeout; 0: 3s).
	IdleTimeout Duration `json:"idle_timeout,omitempty"`
	// PendingMsgs and PendingBytes bound the client library's buffer (--pending-msgs,
	// --pending-bytes; 0 or -1: unlimited).
	PendingMsgs  int  `json:"pending_msgs,omitempty"`
	PendingBytes Size `json:"pending_bytes,omitempty"`
}

// PubSub is `natsperf pubsub SUBJECT`: publishers and subscribers in one process; every
// subscriber expects everything the publishers send (with a queue group, they share it).
type PubSub struct {
	Subject         string `json:"subject"`
	Size            Size   `json:"size,omitempty"`
	Pubs            int    `json:"pubs,omitempty"` // --pub (0: 1)
	Subs            int    `json:"subs,omitempty"` // --sub (0: 1)
	Queue           string `json:"queue,omitempty"`
	MultiSubject    bool   `json:"multisubject,omitempty"`
	MultiSubjectMax int    `json:"multisubject_max,omitempty"`
	// MultiSubjectRandomize sends each message to a random one of the subjects
	// (--multisubject-randomize).
	MultiSubjectRandomize bool     `json:"multisubject_randomize,omitempty"`
	IdleTimeout           Duration `json:"idle_timeout,omitempty"`
	PendingMsgs           int      `json:"pending_msgs,omitempty"`
	PendingBytes          Size     `json:"pending_bytes,omitempty"`
	// SubSleep is each core subscriber's simulated processing time per message (--sub-sleep).
	SubSleep Duration `json:"sub_sleep,omitempty"`
	// JS, when set, publishes to a stream and consumes it (--js).
	JS *PubSubJS `json:"js,omitempty"`
	// Payload is what the publishers' messages carry beyond Size.
	Payload Payload `json:"payload,omitzero"`
}

// PubSubJS is pubsub --js: the stream (created when missing; its storage and replicas are in
// Setup) and how it is published to and consumed.
type PubSubJS struct {
	Stream  string `json:"stream,omitempty"`  // --stream (default benchstream)
	SyncPub bool   `json:"syncpub,omitempty"` // --syncpub: publish synchronously
	// ConsumerKind is ordered (default: every subscriber gets every message), pull or push
	// (the subscribers share a durable consumer) (--consumer-kind).
	ConsumerKind string   `json:"consumer_kind,omitempty"`
	Batch        int      `json:"batch,omitempty"`       // --batch: async window and pull size (0: 500)
	AckTimeout   Duration `json:"ack_timeout,omitempty"` // --ack-timeout (0: 5s)
}

// ServiceServe is `natsperf service serve SUBJECT`: responders in the queue group
// "natsperf-service", echoing each request after pacing.sleep.
type ServiceServe struct {
	Subject string `json:"subject"`
	Size    Size   `json:"size,omitempty"` // --size: labels the run only, as for Sub
}

// ServiceRequest is `natsperf service request SUBJECT`: synchronous requesters.
type ServiceRequest struct {
	Subject string   `json:"subject"`
	Size    Size     `json:"size,omitempty"`
	Timeout Duration `json:"timeout,omitempty"` // per request (--timeout; 0: 5s)
	// Payload is what the requests carry beyond Size.
	Payload Payload `json:"payload,omitzero"`
}

// JSPublish is what the three JetStream publisher kinds share.
type JSPublish struct {
	Stream          string `json:"stream,omitempty"` // --stream (default benchstream)
	Subject         string `json:"subject"`
	Size            Size   `json:"size,omitempty"`
	MultiSubject    bool   `json:"multisubject,omitempty"`
	MultiSubjectMax int    `json:"multisubject_max,omitempty"`
	// MultiSubjectRandomize: a random one of the subjects per message (--multisubject-randomize).
	MultiSubjectRandomize bool     `json:"multisubject_randomize,omitempty"`
	Dedup                 bool     `json:"dedup,omitempty"`       // --dedup: a Nats-Msg-Id on every message
	AckTimeout            Duration `json:"ack_timeout,omitempty"` // --ack-timeout (0: 5s)
	// Payload is what the messages carry beyond Size.
	Payload Payload `json:"payload,omitzero"`
}

// JSPubSync is `natsperf js pub sync SUBJECT`: one message at a time, waiting for its ack.
type JSPubSync struct {
	JSPublish
}

// JSPubAsync is `natsperf js pub async SUBJECT`: windows of asynchronous publishes.
type JSPubAsync struct {
	JSPublish
	// Batch is the window: publishes sent before waiting for their acks (--batch; 0: 500).
	Batch int `json:"batch,omitempty"`
}

// JSPubBatch is `natsperf js pub batch SUBJECT`: atomic batches (nats-server 2.12+).
type JSPubBatch struct {
	JSPublish
	// Batch is the messages per atomic batch (--batch; 0: 100, at most 1000).
	Batch int `json:"batch,omitempty"`
}

// JSPubFast is `natsperf js pub fast SUBJECT`: each client publishes its share as one fast
// batch (orbit.go's jetstreamext.FastPublisher; nats-server 2.14+).
type JSPubFast struct {
	JSPublish
	// Batch is the flow window: the server acks every this many messages (--batch; 0: 500,
	// at most 65535).
	Batch int `json:"batch,omitempty"`
	// MaxOutstandingAcks is how many acks may be missing before the publisher stalls
	// (--max-outstanding-acks; 0: 1, at most 65535).
	MaxOutstandingAcks int `json:"max_outstanding_acks,omitempty"`
}

// JSConsumer is what the four JetStream consumer kinds share. A stream natsperf created that
// is missing or short is filled with pacing.msgs messages of Size first (not measured).
type JSConsumer struct {
	Stream string `json:"stream,omitempty"` // --stream (default benchstream)
	Size   Size   `json:"size,omitempty"`   // of the messages a fill publishes
	// Batch is the messages per pull (fetch size, or buffered by consume); with acks all, ack
	// every this many (--batch; 0: 500).
	Batch   int    `json:"batch,omitempty"`
	Filter  string `json:"filter,omitempty"`  // --filter
	Deliver string `json:"deliver,omitempty"` // all (default), new or last (--deliver)
	// IdleTimeout ends a client that gets nothing for this long (--idle-timeout; 0: 3s).
	IdleTimeout Duration `json:"idle_timeout,omitempty"`
	AckTimeout  Duration `json:"ack_timeout,omitempty"` // --ack-timeout (0: 5s)
}

// JSDurable is the durable consumer the consume, fetch and push kinds share among clients.
type JSDurable struct {
	Consumer      string   `json:"consumer,omitempty"`        // --consumer (default natsperf)
	Acks          string   `json:"acks,omitempty"`            // explicit (default), none or all
	DoubleAck     bool     `json:"double_ack,omitempty"`      // --double-ack
	MaxAckPending int      `json:"max_ack_pending,omitempty"` // --max-ack-pending (0: server default)
	AckWait       Duration `json:"ack_wait,omitempty"`        // --ack-wait (0: server default)
	// Force replaces a consumer of that name natsperf did not create (--force).
	Force bool `json:"force,omitempty"`
}

// JSOrdered is `natsperf js ordered`: an ordered ephemeral consumer per client, each
// expecting pacing.msgs.
type JSOrdered struct {
	JSConsumer
}

// JSConsume is `natsperf js consume`: a durable pull consumer through the Consume callback.
type JSConsume struct {
	JSConsumer
	JSDurable
}

// JSFetch is `natsperf js fetch`: a durable pull consumer in Fetch batches.
type JSFetch struct {
	JSConsumer
	JSDurable
}

// JSPush is `natsperf js push`: a durable push consumer.
type JSPush struct {
	JSConsumer
	JSDurable
	// DeliverGroup is the queue the clients share (--deliver-group; default: the consumer's
	// name when there is more than one client).
	DeliverGroup string `json:"deliver_group,omitempty"`
	// FlowControl (--flow-control; absent: on) needs a Heartbeat (--heartbeat; absent: 5s).
	FlowControl *bool     `json:"flow_control,omitempty"`
	Heartbeat   *Duration `json:"heartbeat,omitempty"`
}

// JSGetSync is `natsperf js get sync`: one direct get per message; every client reads
// pacing.msgs messages from the stream's first.
type JSGetSync struct {
	Stream     string   `json:"stream,omitempty"`
	Size       Size     `json:"size,omitempty"`   // of the messages a fill publishes
	Filter     string   `json:"filter,omitempty"` // --filter
	AckTimeout Duration `json:"ack_timeout,omitempty"`
}

// JSGetBatch is `natsperf js get batch`: batched direct gets.
type JSGetBatch struct {
	JSGetSync
	Batch int `json:"batch,omitempty"` // messages per batched get (--batch; 0: 500)
}

// KV is what the two KV kinds share; the bucket's settings are in Setup.
type KV struct {
	Bucket string `json:"bucket,omitempty"` // --bucket (default benchbucket)
	Size   Size   `json:"size,omitempty"`
	// Randomize picks random keys among this many instead of the message number (--randomize).
	Randomize  int64    `json:"randomize,omitempty"`
	AckTimeout Duration `json:"ack_timeout,omitempty"` // --ack-timeout (0: 5s)
}

// KVPut is `natsperf kv put`.
type KVPut struct {
	KV
}

// KVGet is `natsperf kv get`; a bucket natsperf created that lacks the keys is filled first.
type KVGet struct {
	KV
}

// Latency is `natsperf latency`: one fixed-rate publisher on the target and one subscriber on
// ServerB (pacing.rate and pacing.duration are required).
type Latency struct {
	Subject string `json:"subject,omitempty"` // --subject (default: a fresh inbox)
	Size    Size   `json:"size,omitempty"`    // --size (0: 16 B, at least 16)
	// ServerB is where the subscriber connects (--server-b; default the target), with the
	// target's credentials; credentials in the URL are refused.
	ServerB string `json:"server_b,omitempty"`
}

// Kind implementations.

func (*Pub) Kind() string            { return "pub" }
func (*Sub) Kind() string            { return "sub" }
func (*PubSub) Kind() string         { return "pubsub" }
func (*ServiceServe) Kind() string   { return "service serve" }
func (*ServiceRequest) Kind() string { return "service request" }
func (*JSPubSync) Kind() string      { return "js pub sync" }
func (*JSPubAsync) Kind() string     { return "js pub async" }
func (*JSPubBatch) Kind() string     { return "js pub batch" }
func (*JSPubFast) Kind() string      { return "js pub fast" }
func (*JSOrdered) Kind() string      { return "js ordered" }
func (*JSConsume) Kind() string      { return "js consume" }
func (*JSFetch) Kind() string        { return "js fetch" }
func (*JSPush) Kind() string         { return "js push" }
func (*JSGetSync) Kind() string      { return "js get sync" }
func (*JSGetBatch) Kind() string     { return "js get batch" }
func (*KVPut) Kind() string          { return "kv put" }
func (*KVGet) Kind() string          { return "kv get" }
func (*Latency) Kind() string        { return "latency" }
