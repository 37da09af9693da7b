package js

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/serverver"
	"github.com/natsperf/natsperf/internal/units"
)

// Mark is the metadata natsperf puts on every stream, bucket and consumer it creates. Only what
// carries it may be purged or deleted without --force.
const (
	MarkKey   = "created-by"
	MarkValue = "natsperf"
)

// Marked reports whether metadata carries natsperf's mark.
func Marked(md map[string]string) bool { return md[MarkKey] == MarkValue }

func mark() map[string]string { return map[string]string{MarkKey: MarkValue} }

// StreamSpec is the stream a command asks for.
type StreamSpec struct {
	Name        string
	Subjects    []string // on creation
	Storage     jetstream.StorageType
	Replicas    int
	MaxBytes    int64
	DedupWindow time.Duration
	// PersistAsync asks for asynchronous flushes (file storage, R1, no atomic batches).
	PersistAsync bool
	// Atomic and Batched: the workload publishes atomic batches (js pub atomic) or fast
	// batches (js pub fast) into a stream it creates. The run refused such a workload up front
	// on a server that lacks them (engine.CheckServerVersion).
	Atomic, Batched bool
	// Compression is S2 or none (jetstream.NoCompression).
	Compression jetstream.StoreCompression
	// Create allows creating the stream when it is missing.
	Create bool
	// Asked names the settings the user gave explicitly: "storage", "replicas", "maxbytes",
	// "dedup-window", "persistasync", "compression". Only those are compared with an existing stream.
	Asked map[string]bool
}

// Stream is a stream ready for a run.
type Stream struct {
	jetstream.Stream
	Info    *jetstream.StreamInfo
	Created bool // by this run
	Ours    bool // carries natsperf's mark
}

// ErrStreamMissing is returned when a stream does not exist and may not be created.
var ErrStreamMissing = errors.New("stream not found")

// EnsureStream opens spec.Name, creating it (marked) when it is missing and creation is
// allowed. An existing stream is used as it is: its differences from what was asked are
// returned as one line each, never applied.
func EnsureStream(ctx context.Context, js jetstream.JetStream, spec StreamSpec) (*Stream, []string, error) {
	s, err := js.Stream(ctx, spec.Name)
	switch {
	case err == nil:
		info := s.CachedInfo()
		st := &Stream{Stream: s, Info: info, Ours: Marked(info.Config.Metadata)}
		return st, Differences(info.Config, spec), nil
	case errors.Is(err, jetstream.ErrStreamNotFound):
	default:
		return nil, nil, fmt.Errorf("look up stream %s: %w", spec.Name, err)
	}
	if !spec.Create {
		return nil, nil, fmt.Errorf("%w: %s", ErrStreamMissing, spec.Name)
	}
	s, err = createStream(ctx, js, spec.Config(js.Conn().ConnectedServerVersion()))
	if err != nil {
		return nil, nil, fmt.Errorf("create stream %s: %w", spec.Name, err)
	}
	return &Stream{Stream: s, Info: s.CachedInfo(), Created: true, Ours: true}, nil, nil
}

// createAttempt bounds one stream creation request: on a loaded cluster a request can go
// unanswered (a meta leader change, a proposal dropped) and is then sent again.
const createAttempt = 10 * time.Second

// createStream creates cfg, asking again while the cluster does not answer or says JetStream is
// not ready, until ctx ends. A stream found after an attempt that went unanswered is the one
// that attempt created when it carries natsperf's mark.
func createStream(ctx context.Context, js jetstream.JetStream, cfg jetstream.StreamConfig) (jetstream.Stream, error) {
	for {
		actx, cancel := context.WithTimeout(ctx, createAttempt)
		s, err := js.CreateStream(actx, cfg)
		cancel()
		if err == nil {
			return s, nil
		}
		if errors.Is(err, jetstream.ErrStreamNameAlreadyInUse) {
			if s, lerr := js.Stream(ctx, cfg.Name); lerr == nil && Marked(s.CachedInfo().Config.Metadata) {
				return s, nil
			}
			return nil, err
		}
		if ctx.Err() != nil || !retryable(err) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, err
		case <-time.After(250 * time.Millisecond):
		}
	}
}

// retryable tells the errors of a cluster that is busy or between meta leaders.
func retryable(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) || errors.Is(err, nats.ErrNoResponders) {
		return true
	}
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) && apiErr.Code == 503 // JetStream temporarily unavailable
}

// Config is the stream natsperf creates for spec on a server of version server (its INFO):
// marked, direct gets allowed, and atomic and fast batches allowed when the workload publishes
// so or the server has them, as nats bench's streams do (so one stream serves every js pub
// mode); atomic never with asynchronous flushes (the server forbids the two together). A
// setting the server does not know is left out: 2.12 refuses a stream naming allow_batched.
func (spec StreamSpec) Config(server string) jetstream.StreamConfig {
	cfg := jetstream.StreamConfig{
		Name:               spec.Name,
		Subjects:           spec.Subjects,
		Storage:            spec.Storage,
		Replicas:           max(spec.Replicas, 1),
		MaxBytes:           spec.MaxBytes,
		Duplicates:         spec.DedupWindow,
		AllowDirect:        true,
		AllowAtomicPublish: (spec.Atomic || serverver.AtomicBatch.In(server)) && !spec.PersistAsync,
		Compression:        spec.Compression,
		AllowBatchPublish:  spec.Batched || serverver.FastBatch.In(server),
		Metadata:           mark(),
	}
	if cfg.MaxBytes == 0 {
		cfg.MaxBytes = -1
	}
	if spec.PersistAsync {
		cfg.PersistMode = jetstream.AsyncPersistMode
	}
	return cfg
}

// Differences lists, one line each, where an existing stream differs from the settings the user
// asked for explicitly.
func Differences(have jetstream.StreamConfig, spec StreamSpec) []string {
	var out []string
	diff := func(key, got, want string) {
		if spec.Asked[key] && got != want {
			out = append(out, fmt.Sprintf("%s %s (asked %s)", key, got, want))
		}
	}
	diff("storage", StorageName(have.Storage), StorageName(spec.Storage))
	diff("replicas", fmt.Sprint(have.Replicas), fmt.Sprint(max(spec.Replicas, 1)))
	diff("maxbytes", sizeOrUnlimited(have.MaxBytes), sizeOrUnlimited(spec.MaxBytes))
	diff("dedup-window", have.Duplicates.String(), spec.DedupWindow.String())
	diff("persistasync", fmt.Sprint(have.PersistMode == jetstream.AsyncPersistMode), fmt.Sprint(spec.PersistAsync))
	diff("compression", CompressionName(have.Compression), CompressionName(spec.Compression))
	return out
}

func sizeOrUnlimited(n int64) string {
	if n <= 0 {
		return "unlimited"
	}
	return units.FormatSize(n)
}

// StorageName is "file" or "memory".
func StorageName(t jetstream.StorageType) string {
	if t == jetstream.MemoryStorage {
		return "memory"
	}
	return "file"
}

// CompressionName is "s2" or "none".
func CompressionName(c jetstream.StoreCompression) string {
	if c == jetstream.S2Compression {
		return "s2"
	}
	return "none"
}

// ParseCompression reads --compression: s2, or none (also empty).
func ParseCompression(s string) (jetstream.StoreCompression, error) {
	switch strings.ToLower(s) {
	case "none", "":
		return jetstream.NoCompression, nil
	case "s2":
		return jetstream.S2Compression, nil
	}
	return 0, fmt.Errorf("--compression must be s2 or none, got %q", s)
}

// ParseStorage reads --storage.
func ParseStorage(s string) (jetstream.StorageType, error) {
	switch strings.ToLower(s) {
	case "file", "":
		return jetstream.FileStorage, nil
	case "memory", "mem":
		return jetstream.MemoryStorage, nil
	}
	return 0, fmt.Errorf("--storage must be file or memory, got %q", s)
}

// RefusePurge explains why a stream may not be purged, or returns nil when it may.
func (s *Stream) RefusePurge(force bool) error {
	if s.Ours || force {
		return nil
	}
	return fmt.Errorf("refusing to purge stream %s: natsperf did not create it (no %s=%s metadata); pass --force to purge it anyway",
		s.Info.Config.Name, MarkKey, MarkValue)
}

// Purge empties the stream after RefusePurge allowed it, and refreshes Info.
func (s *Stream) Purge(ctx context.Context, force bool) error {
	if err := s.RefusePurge(force); err != nil {
		return err
	}
	if err := s.Stream.Purge(ctx); err != nil {
		return fmt.Errorf("purge stream %s: %w", s.Info.Config.Name, err)
	}
	return s.Refresh(ctx)
}

// Refresh reloads Info.
func (s *Stream) Refresh(ctx context.Context) error {
	info, err := s.Stream.Info(ctx)
	if err != nil {
		return fmt.Errorf("stream info %s: %w", s.Info.Config.Name, err)
	}
	s.Info = info
	return nil
}

// Takes reports whether a literal subject is stored by the stream.
func (s *Stream) Takes(subject string) bool {
	for _, f := range s.Info.Config.Subjects {
		if server.SubjectMatchesFilter(subject, f) {
			return true
		}
	}
	return false
}

// FillSubject is a literal subject the stream stores, for filling it: its first literal subject,
// or its first filter with the wildcards replaced by "natsperf".
func (s *Stream) FillSubject() (string, error) {
	for _, f := range s.Info.Config.Subjects {
		if !strings.ContainsAny(f, "*>") {
			return f, nil
		}
	}
	if len(s.Info.Config.Subjects) == 0 {
		return "", fmt.Errorf("stream %s has no subjects to fill it through", s.Info.Config.Name)
	}
	toks := strings.Split(s.Info.Config.Subjects[0], ".")
	for i, t := range toks {
		if t == "*" || t == ">" {
			toks[i] = "natsperf"
		}
	}
	return strings.Join(toks, "."), nil
}

// RefusePublish decides whether a run may publish into the stream. A stream natsperf created is
// always fine. Someone else's is refused without force when publishing could destroy what it
// holds: a KV bucket's or object store's stream (their keys and objects would be overwritten),
// or a stream holding messages whose limits discard the oldest to make room. Otherwise, or with
// force, the returned warning says whose stream the run writes into.
func (s *Stream) RefusePublish(force bool) (warning string, err error) {
	if s.Ours {
		return "", nil
	}
	c, held := s.Info.Config, s.Info.State.Msgs
	noMark := fmt.Sprintf("(no %s=%s metadata)", MarkKey, MarkValue)
	var risk string
	switch {
	case strings.HasPrefix(c.Name, "KV_"):
		risk = fmt.Sprintf("it holds KV bucket %s, whose keys would be overwritten", strings.TrimPrefix(c.Name, "KV_"))
	case strings.HasPrefix(c.Name, "OBJ_"):
		risk = fmt.Sprintf("it holds object store %s, whose objects would be overwritten", strings.TrimPrefix(c.Name, "OBJ_"))
	case held > 0 && c.Discard == jetstream.DiscardOld && len(EvictingLimits(c)) > 0:
		risk = fmt.Sprintf("its %s messages could be removed by its limits (%s, discard old) as the run adds its own",
			units.Comma(int64(held)), strings.Join(EvictingLimits(c), ", "))
	}
	if risk == "" {
		return fmt.Sprintf("Publishing into stream %s, which natsperf did not create %s: the run adds its messages to the %s it holds", c.Name, noMark, units.Comma(int64(held))), nil
	}
	if !force {
		return "", fmt.Errorf("refusing to publish into stream %s: natsperf did not create it %s and %s; pass --force to publish anyway", c.Name, noMark, risk)
	}
	return fmt.Sprintf("Publishing into stream %s with --force: natsperf did not create it %s and %s", c.Name, noMark, risk), nil
}

// EvictingLimits names the limits of a stream that remove old messages as new ones arrive (or,
// for max_age, as time passes during the run).
func EvictingLimits(c jetstream.StreamConfig) []string {
	var out []string
	if c.MaxMsgs > 0 {
		out = append(out, "max_msgs "+units.Comma(c.MaxMsgs))
	}
	if c.MaxBytes > 0 {
		out = append(out, "max_bytes "+units.FormatSize(c.MaxBytes))
	}
	if c.MaxMsgsPerSubject > 0 {
		out = append(out, "max_msgs_per_subject "+units.Comma(c.MaxMsgsPerSubject))
	}
	if c.MaxAge > 0 {
		out = append(out, "max_age "+c.MaxAge.String())
	}
	return out
}
