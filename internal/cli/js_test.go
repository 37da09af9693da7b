package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

// at points natsperf args at s; js commands create streams small enough for the test server.
func at(s *server.Server, args ...string) []string {
	args = append(args, "-s", s.ClientURL())
	if args[0] == "js" {
		args = append(args, "--maxbytes", "16MiB")
	}
	return args
}

// userStream creates a stream natsperf did not create, holding n messages.
func userStream(t *testing.T, js jetstream.JetStream, name, subject string, n int) jetstream.Stream {
	t.Helper()
	ctx := context.Background()
	st, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: name, Subjects: []string{subject, subject + ".>"}, Storage: jetstream.MemoryStorage, AllowDirect: true})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i < n; i++ {
		if _, err := js.Publish(ctx, subject, []byte("user data")); err != nil {
			t.Fatal(err)
		}
	}
	return st
}

func streamMsgs(t *testing.T, js jetstream.JetStream, name string) uint64 {
	t.Helper()
	st, err := js.Stream(context.Background(), name)
	if err != nil {
		t.Fatalf("stream %s: %v", name, err)
	}
	return st.CachedInfo().State.Msgs
}

func streamNames(t *testing.T, s *server.Server) []string {
	t.Helper()
	var names []string
	l := natstest.JetStream(t, s.ClientURL()).StreamNames(context.Background())
	for n := range l.Name() {
		names = append(names, n)
	}
	return names
}

func streamState(t *testing.T, res *result.Result, name string) result.StreamState {
	t.Helper()
	for _, st := range res.Streams {
		if st.Name == name {
			return st
		}
	}
	t.Fatalf("no stream %s in the result (%+v)", name, res.Streams)
	return result.StreamState{}
}

func TestJSPubModes(t *testing.T) {
	s := startServer(t, nil)
	js := natstest.JetStream(t, s.ClientURL())
	for _, mode := range []string{"sync", "async", "batch"} {
		for _, storage := range []string{"file", "memory"} {
			t.Run(mode+"/"+storage, func(t *testing.T) {
				stream := "pub_" + mode + "_" + storage
				res, r := runJSON(context.Background(), t, at(s, "js", "pub", mode, "sub."+stream,
					"--stream", stream, "--create", "--storage", storage, "--clients", "2", "--msgs", "2000",
					"--size", "64", "--batch", "100")...)
				ackedAndStored(t, js, res, r, stream, 2000)
				st := streamState(t, res, stream)
				if st.Messages != 2000 || st.Storage != storage || st.Published != 2000 ||
					st.ExpectedBytes != 2000*64 || !st.CreatedByNatsperf || st.StoredBytes < 2000*64 {
					t.Fatalf("stream state %+v", st)
				}
			})
		}
	}
}

func TestJSPubDedupAndMultiSubject(t *testing.T) {
	s := startServer(t, nil)
	js := natstest.JetStream(t, s.ClientURL())
	res, r := runJSON(context.Background(), t, at(s, "js", "pub", "async", "multi",
		"--create", "--msgs", "3000", "--dedup", "--multisubject", "--multisubject-max", "10")...)
	if r.code != 0 || !res.Complete() {
		t.Fatalf("exit %d, stop %+v, stderr %s", r.code, res.Stop, r.err)
	}
	st, err := js.Stream(context.Background(), "benchstream")
	if err != nil {
		t.Fatal(err)
	}
	info, err := st.Info(context.Background(), jetstream.WithSubjectFilter("multi.>"))
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != 3000 || len(info.State.Subjects) != 10 {
		t.Fatalf("%d messages on %d subjects, want 3000 on 10", info.State.Msgs, len(info.State.Subjects))
	}
}

func TestJSPubNeedsCreateOnAUserServer(t *testing.T) {
	s := startServer(t, nil)
	r := run(context.Background(), t, nil, at(s, "js", "pub", "sync", "foo", "--msgs", "10")...)
	if r.code != exitFailed || !strings.Contains(r.err, "pass --create") {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
	if n := len(streamNames(t, s)); n != 0 {
		t.Fatalf("%d streams created without --create", n)
	}
}

func TestJSBatchRefusedByStream(t *testing.T) {
	s := startServer(t, nil)
	js := natstest.JetStream(t, s.ClientURL())
	userStream(t, js, "plain", "plain", 0)
	r := run(context.Background(), t, nil, at(s, "js", "pub", "batch", "plain", "--stream", "plain", "--msgs", "10")...)
	if r.code != exitFailed || !strings.Contains(r.err, "does not allow atomic batch publish") {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
	if got := streamMsgs(t, js, "plain"); got != 0 {
		t.Fatalf("stream got %d messages", got)
	}
}

func TestJSPurgeRefusal(t *testing.T) {
	s := startServer(t, nil)
	js := natstest.JetStream(t, s.ClientURL())
	userStream(t, js, "orders", "orders", 25)
	tests := []struct {
		name string
		args []string
	}{
		{"js pub", []string{"js", "pub", "sync", "orders", "--stream", "orders", "--purge", "--msgs", "10"}},
		{"js ordered", []string{"js", "ordered", "--stream", "orders", "--purge", "--msgs", "10"}},
		{"js consume", []string{"js", "consume", "--stream", "orders", "--purge", "--msgs", "10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := run(context.Background(), t, nil, at(s, tt.args...)...)
			if r.code != exitFailed || !strings.Contains(r.err, "refusing to purge stream orders") || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.err)
			}
			if strings.Contains(r.out+r.err, "Purging") {
				t.Fatalf("announced a purge it then refused: %q", r.out)
			}
			if got := streamMsgs(t, js, "orders"); got != 25 {
				t.Fatalf("user stream holds %d messages after a refused purge, want 25", got)
			}
		})
	}
	t.Run("force", func(t *testing.T) {
		res, r := runJSON(context.Background(), t, at(s, "js", "pub", "sync", "orders", "--stream", "orders", "--purge", "--force", "--msgs", "10")...)
		if r.code != 0 {
			t.Fatalf("exit %d, stderr %q", r.code, r.err)
		}
		if st := streamState(t, res, "orders"); st.Messages != 10 || st.CreatedByNatsperf {
			t.Fatalf("after --force purge and 10 publishes: %+v", st)
		}
	})
}

func TestJSConsumerRefusal(t *testing.T) {
	s := startServer(t, nil)
	js := natstest.JetStream(t, s.ClientURL())
	st := userStream(t, js, "events", "events", 5)
	if _, err := st.CreateConsumer(context.Background(), jetstream.ConsumerConfig{Durable: "natsperf", AckPolicy: jetstream.AckExplicitPolicy}); err != nil {
		t.Fatal(err)
	}
	r := run(context.Background(), t, nil, at(s, "js", "fetch", "--stream", "events", "--msgs", "5")...)
	if r.code != exitFailed || !strings.Contains(r.err, "refusing to replace consumer natsperf") {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
	c, err := st.Consumer(context.Background(), "natsperf")
	if err != nil || c.CachedInfo().NumPending != 5 {
		t.Fatalf("user consumer changed: %v", err)
	}
}

// TestJSConsumers runs every consumer kind on a fresh server: the stream is created and filled
// first, and the consumers get exactly --msgs.
func TestJSConsumers(t *testing.T) {
	tests := []struct {
		kind   string
		args   []string
		fanout bool
	}{
		{"ordered", nil, true},
		{"consume", []string{"--acks", "explicit"}, false},
		{"consume", []string{"--acks", "all", "--double-ack"}, false},
		{"fetch", []string{"--acks", "none", "--batch", "100"}, false},
		{"fetch", []string{"--max-ack-pending", "200", "--ack-wait", "10s"}, false},
		{"push", []string{"--acks", "explicit"}, false},
		{"push", []string{"--deliver-group", "workers", "--flow-control=false"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.kind+strings.Join(tt.args, ""), func(t *testing.T) {
			s := startServer(t, nil)
			js := natstest.JetStream(t, s.ClientURL())
			args := append(at(s, "js", tt.kind, "--clients", "2", "--msgs", "4000", "--size", "32"), tt.args...)
			res, r := runJSON(context.Background(), t, args...)
			if r.code != 0 || !res.Complete() {
				t.Fatalf("exit %d, stop %+v, stderr %s", r.code, res.Stop, r.err)
			}
			if !strings.Contains(r.err, "Filling stream benchstream with 4,000 messages") {
				t.Fatalf("no fill setup line in %q", r.err)
			}
			g := group(t, res, "sub")
			want := int64(4000)
			if tt.fanout {
				want = 8000
				for _, c := range g.Clients {
					if c.Msgs != 4000 {
						t.Fatalf("client %d got %d, want 4000 each", c.ID, c.Msgs)
					}
				}
			}
			if g.Aggregate.Msgs != want || g.Aggregate.Events.Errors != 0 {
				t.Fatalf("aggregate %d msgs (want %d), events %+v", g.Aggregate.Msgs, want, g.Aggregate.Events)
			}
			if st := streamState(t, res, "benchstream"); st.Messages != 4000 {
				t.Fatalf("stream state %+v", st)
			}
			if got := streamMsgs(t, js, "benchstream"); got != 4000 {
				t.Fatalf("stream holds %d", got)
			}
		})
	}
}

func TestJSIdleTimeoutOnEmptyFilter(t *testing.T) {
	s := startServer(t, nil)
	for _, kind := range []string{"ordered", "consume", "fetch", "push"} {
		t.Run(kind, func(t *testing.T) {
			start := time.Now()
			res, r := runJSON(context.Background(), t, at(s, "js", kind, "--msgs", "100",
				"--filter", "benchstream.nothing", "--idle-timeout", "300ms", "--stream", "idle_"+kind)...)
			// Readers that received none of what they expected have not succeeded: exit 1.
			if res.Stop.Reason != result.StopIdle || r.code != exitFailed || !strings.Contains(r.err, "received none of the 100 messages") {
				t.Fatalf("exit %d, stop %+v, stderr %q", r.code, res.Stop, r.err)
			}
			if g := group(t, res, "sub"); g.Aggregate.Msgs != 0 {
				t.Fatalf("got %d messages on an empty filter", g.Aggregate.Msgs)
			}
			if d := time.Since(start); d > 10*time.Second {
				t.Fatalf("took %v", d)
			}
		})
	}
}

func TestJSGet(t *testing.T) {
	s := startServer(t, nil)
	for _, mode := range []string{"sync", "batch"} {
		t.Run(mode, func(t *testing.T) {
			res, r := runJSON(context.Background(), t, at(s, "js", "get", mode, "--stream", "get_"+mode,
				"--clients", "2", "--msgs", "3000", "--batch", "256")...)
			if r.code != 0 || !res.Complete() {
				t.Fatalf("exit %d, stop %+v, stderr %s", r.code, res.Stop, r.err)
			}
			g := group(t, res, "get")
			for _, c := range g.Clients {
				if c.Msgs != 3000 || c.Latency == nil || c.Latency.Count != 3000 || c.Events.Errors != 0 {
					t.Fatalf("client %+v", c)
				}
			}
		})
	}
	t.Run("filter", func(t *testing.T) {
		js := natstest.JetStream(t, s.ClientURL())
		userStream(t, js, "mixed", "mixed", 0)
		ctx := context.Background()
		for i := 0; i < 200; i++ {
			subj := "mixed.a"
			if i%2 == 1 {
				subj = "mixed.b"
			}
			if _, err := js.Publish(ctx, subj, []byte(fmt.Sprint(i))); err != nil {
				t.Fatal(err)
			}
		}
		for _, mode := range []string{"sync", "batch"} {
			res, r := runJSON(ctx, t, at(s, "js", "get", mode, "--stream", "mixed", "--filter", "mixed.b", "--msgs", "100", "--batch", "30")...)
			if r.code != 0 || group(t, res, "get").Aggregate.Msgs != 100 {
				t.Fatalf("%s: exit %d, stop %+v, stderr %s", mode, r.code, res.Stop, r.err)
			}
		}
	})
}

func TestKV(t *testing.T) {
	s := startServer(t, nil)
	js := natstest.JetStream(t, s.ClientURL())
	res, r := runJSON(context.Background(), t, at(s, "kv", "put", "--clients", "2", "--msgs", "2000", "--size", "32", "--storage", "memory", "--history", "2")...)
	if r.code != 0 || !res.Complete() {
		t.Fatalf("put: exit %d, stop %+v, stderr %s", r.code, res.Stop, r.err)
	}
	if st := streamState(t, res, "KV_benchbucket"); st.Messages != 2000 || st.Bucket != "benchbucket" || st.Storage != "memory" || st.Published != 2000 {
		t.Fatalf("bucket state %+v", st)
	}
	kv, err := js.KeyValue(context.Background(), "benchbucket")
	if err != nil {
		t.Fatal(err)
	}
	if e, err := kv.Get(context.Background(), "1999"); err != nil || len(e.Value()) != 32 {
		t.Fatalf("key 1999: %v", err)
	}
	res, r = runJSON(context.Background(), t, at(s, "kv", "get", "--clients", "4", "--msgs", "2000", "--randomize", "2000", "--size", "32")...)
	if r.code != 0 || !res.Complete() || strings.Contains(r.err, "Filling") {
		t.Fatalf("get: exit %d, stop %+v, stderr %s", r.code, res.Stop, r.err)
	}
	if g := group(t, res, "get"); g.Aggregate.Msgs != 2000 || g.Aggregate.Events.Errors != 0 || g.Aggregate.Bytes != 2000*32 {
		t.Fatalf("get found %d of 2000 (%d errors, %d bytes)", g.Aggregate.Msgs, g.Aggregate.Events.Errors, g.Aggregate.Bytes)
	}
	t.Run("fill before get", func(t *testing.T) {
		res, r := runJSON(context.Background(), t, at(s, "kv", "get", "--bucket", "fresh", "--msgs", "500")...)
		if r.code != 0 || !strings.Contains(r.err, "Filling KV bucket fresh with 500 keys") {
			t.Fatalf("exit %d, stderr %s", r.code, r.err)
		}
		if g := group(t, res, "get"); g.Aggregate.Msgs != 500 || g.Aggregate.Events.Errors != 0 {
			t.Fatalf("get %d, errors %d", g.Aggregate.Msgs, g.Aggregate.Events.Errors)
		}
	})
}

func TestJSPubSub(t *testing.T) {
	for _, kind := range []string{"ordered", "pull", "push"} {
		t.Run(kind, func(t *testing.T) {
			s := startServer(t, nil)
			res, r := runJSON(context.Background(), t, at(s, "pubsub", "ps", "--js", "--pub", "2", "--sub", "2",
				"--msgs", "4000", "--consumer-kind", kind, "--storage", "memory")...)
			if r.code != 0 || !res.Complete() {
				t.Fatalf("exit %d, stop %+v, stderr %s", r.code, res.Stop, r.err)
			}
			sub := group(t, res, "sub")
			want := int64(4000)
			if kind == "ordered" {
				want = 8000
			}
			c := sub.Aggregate.Correctness
			if sub.Aggregate.Msgs != want || c == nil || c.Lost != 0 || c.Duplicated != 0 || sub.Aggregate.Latency == nil || sub.Aggregate.Latency.Count != want {
				t.Fatalf("subs got %d (want %d), correctness %+v", sub.Aggregate.Msgs, want, c)
			}
			if st := streamState(t, res, "benchstream"); st.Messages != 4000 || st.Published != 4000 {
				t.Fatalf("stream state %+v", st)
			}
		})
	}
}

func TestJSExistingConfigDifference(t *testing.T) {
	s := startServer(t, nil)
	js := natstest.JetStream(t, s.ClientURL())
	userStream(t, js, "mem", "mem", 0)
	res, r := runJSON(context.Background(), t, at(s, "js", "pub", "async", "mem", "--stream", "mem", "--storage", "file", "--msgs", "100")...)
	if r.code != 0 {
		t.Fatalf("exit %d, stderr %s", r.code, r.err)
	}
	if len(res.Warnings) != 2 || !strings.Contains(res.Warnings[0], "storage memory (asked file)") || !hasWarning(res, "natsperf did not create") {
		t.Fatalf("warnings %q", res.Warnings)
	}
	if st := streamState(t, res, "mem"); st.Storage != "memory" || st.Messages != 100 {
		t.Fatalf("stream changed: %+v", st)
	}
}

func TestClean(t *testing.T) {
	s := startServer(t, nil)
	js := natstest.JetStream(t, s.ClientURL())
	ctx := context.Background()
	user := userStream(t, js, "keep", "keep", 3)
	if _, err := user.CreateConsumer(ctx, jetstream.ConsumerConfig{Durable: "theirs"}); err != nil {
		t.Fatal(err)
	}
	if _, err := user.CreateConsumer(ctx, jetstream.ConsumerConfig{Durable: "ours", Metadata: map[string]string{"created-by": "natsperf"}}); err != nil {
		t.Fatal(err)
	}
	if r := run(ctx, t, nil, at(s, "js", "pub", "async", "mine", "--create", "--msgs", "10")...); r.code != 0 {
		t.Fatalf("pub: %s", r.err)
	}
	if r := run(ctx, t, nil, at(s, "kv", "put", "--msgs", "10")...); r.code != 0 {
		t.Fatalf("kv put: %s", r.err)
	}
	dry := run(ctx, t, nil, at(s, "clean", "--dry-run")...)
	for _, want := range []string{"Would remove stream benchstream", "Would remove KV bucket benchbucket", "Would remove consumer ours on stream keep", "3 item(s) would be removed"} {
		if !strings.Contains(dry.out, want) {
			t.Fatalf("dry run output lacks %q:\n%s", want, dry.out)
		}
	}
	if n := len(streamNames(t, s)); n != 3 {
		t.Fatalf("dry run changed streams: %d left", n)
	}
	r := run(ctx, t, nil, at(s, "clean")...)
	if r.code != 0 || !strings.Contains(r.out, "Removed 3 item(s)") {
		t.Fatalf("clean: exit %d\n%s%s", r.code, r.out, r.err)
	}
	if names := streamNames(t, s); len(names) != 1 || names[0] != "keep" {
		t.Fatalf("streams left %v, want [keep]", names)
	}
	if got := streamMsgs(t, js, "keep"); got != 3 {
		t.Fatalf("user stream holds %d", got)
	}
	if _, err := user.Consumer(ctx, "theirs"); err != nil {
		t.Fatalf("user consumer removed: %v", err)
	}
	if _, err := user.Consumer(ctx, "ours"); err == nil {
		t.Fatal("marked consumer not removed")
	}
}

func TestJSUsage(t *testing.T) {
	tests := [][]string{
		{"js", "pub", "batch", "x", "--batch", "5000"},
		{"js", "pub", "sync", "x.*"},
		{"js", "consume", "--acks", "sometimes"},
		{"js", "ordered", "--deliver", "yesterday"},
		{"js", "pub", "async", "x", "--storage", "tape"},
		{"kv", "get", "--history", "0"},
		{"pubsub", "x", "--js", "--consumer-kind", "carrier-pigeon"},
	}
	for _, args := range tests {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			r := run(context.Background(), t, nil, append(args, "-s", "nats://127.0.0.1:1")...)
			if r.code != exitUsage {
				t.Fatalf("exit %d, stderr %q", r.code, r.err)
			}
		})
	}
}

// TestMoreClientsThanMessages: clients whose share is 0 do nothing and end at once; they do
// not run open-ended (a share of 0 is not "until stopped").
func TestMoreClientsThanMessages(t *testing.T) {
	s := startServer(t, nil)
	for _, args := range [][]string{
		{"js", "pub", "sync", "few.sync", "--create", "--stream", "fewsync"},
		{"js", "pub", "async", "few.async", "--create", "--stream", "fewasync"},
		{"js", "pub", "batch", "few.batch", "--create", "--stream", "fewbatch"},
		{"kv", "put", "--bucket", "fewkv"},
	} {
		t.Run(strings.Join(args[:3], " "), func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			res, r := runJSON(ctx, t, at(s, append(args, "--clients", "4", "--msgs", "2")...)...)
			if r.code != 0 || res.Stop.Reason != result.StopCompleted {
				t.Fatalf("exit %d, stop %+v: %s", r.code, res.Stop, r.err)
			}
			g := res.Groups[0]
			if g.Aggregate.Msgs != 2 {
				t.Fatalf("published %d messages, want 2 (per client %v)", g.Aggregate.Msgs, g.Clients)
			}
		})
	}
}

// TestKVPutRefusesUserBucket: putting benchmark keys into a bucket natsperf did not create would
// overwrite the user's values; it is refused unless --force, and the refusal changes nothing.
func TestKVPutRefusesUserBucket(t *testing.T) {
	s := startServer(t, nil)
	js := natstest.JetStream(t, s.ClientURL())
	ctx := context.Background()
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "userkv", Storage: jetstream.MemoryStorage})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "0", []byte("mine")); err != nil {
		t.Fatal(err)
	}
	r := run(ctx, t, nil, at(s, "kv", "put", "--bucket", "userkv", "--msgs", "5")...)
	if r.code != exitFailed || !strings.Contains(r.err, "refusing to put keys") || !strings.Contains(r.err, "--force") {
		t.Fatalf("exit %d, stderr %q", r.code, r.err)
	}
	if e, err := kv.Get(ctx, "0"); err != nil || string(e.Value()) != "mine" {
		t.Fatalf("the user's value changed: %v %q", err, e.Value())
	}
	if r := run(ctx, t, nil, at(s, "kv", "put", "--bucket", "userkv", "--msgs", "5", "--force")...); r.code != 0 {
		t.Fatalf("--force: exit %d, stderr %q", r.code, r.err)
	}
}

// TestJSPubRefusesUserData: publishing into a stream natsperf did not create is refused when it
// could push the user's messages out (limits that discard old ones) or overwrite their keys (a
// KV bucket's stream), and the refusal changes nothing; --force allows it with a warning, and
// a stream that cannot lose anything gets only the warning.
func TestJSPubRefusesUserData(t *testing.T) {
	s := startServer(t, nil)
	js := natstest.JetStream(t, s.ClientURL())
	ctx := context.Background()
	limited := func(name string, set func(*jetstream.StreamConfig)) {
		cfg := jetstream.StreamConfig{Name: name, Subjects: []string{strings.ToLower(name) + ".>"}, Storage: jetstream.MemoryStorage, Discard: jetstream.DiscardOld}
		set(&cfg)
		if _, err := js.CreateStream(ctx, cfg); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < 100; i++ {
			if _, err := js.Publish(ctx, strings.ToLower(name)+".user", []byte("user data")); err != nil {
				t.Fatal(err)
			}
		}
	}
	limited("LIMITED", func(c *jetstream.StreamConfig) { c.MaxMsgs = 100 })
	limited("BYBYTES", func(c *jetstream.StreamConfig) { c.MaxBytes = 1 << 20 })
	limited("BYAGE", func(c *jetstream.StreamConfig) { c.MaxAge = time.Hour })
	limited("PERSUBJECT", func(c *jetstream.StreamConfig) { c.MaxMsgsPerSubject = 100 })
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "CONFIG", Storage: jetstream.MemoryStorage})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "0", []byte("mine")); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, stream, want string
		args               []string
	}{
		{"max_msgs", "LIMITED", "refusing to publish into stream LIMITED", []string{"js", "pub", "async", "limited.x", "--stream", "LIMITED", "--msgs", "100"}},
		{"max_bytes", "BYBYTES", "refusing to publish into stream BYBYTES", []string{"js", "pub", "sync", "bybytes.x", "--stream", "BYBYTES", "--msgs", "10"}},
		{"max_age", "BYAGE", "refusing to publish into stream BYAGE", []string{"js", "pub", "async", "byage.x", "--stream", "BYAGE", "--msgs", "10"}},
		{"max_msgs_per_subject", "PERSUBJECT", "refusing to publish into stream PERSUBJECT", []string{"js", "pub", "async", "persubject.user", "--stream", "PERSUBJECT", "--msgs", "10"}},
		{"pubsub --js", "LIMITED", "refusing to publish into stream LIMITED", []string{"pubsub", "limited.y", "--js", "--stream", "LIMITED", "--msgs", "100"}},
		{"a KV bucket's stream", "KV_CONFIG", "refusing to publish into stream KV_CONFIG", []string{"js", "pub", "async", "$KV.CONFIG.0", "--stream", "KV_CONFIG", "--msgs", "10"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := streamMsgs(t, js, tt.stream)
			r := run(ctx, t, nil, at(s, tt.args...)...)
			if r.code != exitFailed || !strings.Contains(r.err, tt.want) || !strings.Contains(r.err, "--force") || strings.Count(strings.TrimSpace(r.err), "\n") != 0 {
				t.Fatalf("exit %d, stderr %q", r.code, r.err)
			}
			st, err := js.Stream(ctx, tt.stream)
			if err != nil {
				t.Fatal(err)
			}
			if got := st.CachedInfo().State; got.Msgs != before || got.FirstSeq != 1 {
				t.Fatalf("refused run changed the stream: %d msgs from seq %d, had %d from 1", got.Msgs, got.FirstSeq, before)
			}
		})
	}
	if e, err := kv.Get(ctx, "0"); err != nil || string(e.Value()) != "mine" || e.Revision() != 1 {
		t.Fatalf("the user's key changed: %v", err)
	}
	t.Run("force", func(t *testing.T) {
		res, r := runJSON(ctx, t, at(s, "js", "pub", "async", "limited.x", "--stream", "LIMITED", "--msgs", "50", "--force")...)
		if r.code != 0 || streamState(t, res, "LIMITED").Messages != 100 || !hasWarning(res, "LIMITED") {
			t.Fatalf("exit %d, warnings %q, stderr %q", r.code, res.Warnings, r.err)
		}
		st, err := js.Stream(ctx, "LIMITED")
		if err != nil || st.CachedInfo().State.FirstSeq != 51 {
			t.Fatalf("after --force with 50 messages the user's oldest 50 are gone: %v %+v", err, st.CachedInfo().State)
		}
	})
	t.Run("unlimited stream warns", func(t *testing.T) {
		userStream(t, js, "OPEN", "open", 10)
		res, r := runJSON(ctx, t, at(s, "js", "pub", "async", "open", "--stream", "OPEN", "--msgs", "20")...)
		if r.code != 0 || streamState(t, res, "OPEN").Messages != 30 || !hasWarning(res, "natsperf did not create") {
			t.Fatalf("exit %d, warnings %q, stderr %q", r.code, res.Warnings, r.err)
		}
	})
}

func hasWarning(res *result.Result, part string) bool {
	for _, w := range res.Warnings {
		if strings.Contains(w, part) {
			return true
		}
	}
	return false
}
