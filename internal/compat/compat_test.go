package compat_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/cli"
	"github.com/natsperf/natsperf/internal/engine"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/serverver"
)

// n is each case's message count: enough that a count off by a window or a batch shows.
const n = 600

// kase is one command line of the suite. A case with a need runs on a server that has it
// and is refused up front (exit 2, one line, nothing created) on one that does not.
type kase struct {
	kind string // the engine kind it exercises
	name string // the subtest; kind when empty
	need *need
	run  func(t *testing.T, s *server)
	// refused is the command line that must be refused, and the stream it must not create.
	refused []string
	stream  string
}

// need is the release a case needs, written out here (not taken from serverver) so the
// refusal's wording is checked too.
type need struct {
	who, what string
	since     serverver.Version
}

func (nd *need) line(have serverver.Version) string {
	return fmt.Sprintf("natsperf: %s (%s) needs nats-server %d.%d or later; the server is %s",
		nd.who, nd.what, nd.since.Major, nd.since.Minor, have)
}

var (
	needFast   = &need{"js pub fast", "fast batch publish, allow_batched", serverver.Version{Major: 2, Minor: 14}}
	needAtomic = &need{"js pub atomic", "atomic batch publish, allow_atomic", serverver.Version{Major: 2, Minor: 12}}
	needGet    = &need{"js get batch", "batched direct get", serverver.Version{Major: 2, Minor: 11}}
	needAsync  = &need{"--persistasync", "asynchronous flushes, persist_mode async", serverver.Version{Major: 2, Minor: 12}}
)

func cases() []kase {
	num := fmt.Sprint(n)
	jsPub := func(mode, stream string, extra ...string) []string {
		return append([]string{"js", "pub", mode, "cmp." + stream, "--stream", stream, "--create", "--msgs", num}, extra...)
	}
	return []kase{
		{kind: "pub", run: func(t *testing.T, s *server) {
			before := s.varz(t)
			s.ok(t, "pub", "cmp.pub", "--msgs", num)
			s.grew(t, "in_msgs", before, inMsgs, n)
		}},
		{kind: "sub", run: func(t *testing.T, s *server) {
			before := s.varz(t)
			// A generous idle timeout: the publisher below may start late on a busy machine.
			done := s.background(t, "sub", "cmp.sub", "--msgs", num, "--idle-timeout", "1m")
			s.waitSubscribed(t, "cmp.sub")
			s.ok(t, "pub", "cmp.sub", "--msgs", num)
			s.wait(t, done)
			s.grew(t, "out_msgs", before, outMsgs, n)
		}},
		{kind: "pubsub", run: func(t *testing.T, s *server) {
			before := s.varz(t)
			s.ok(t, "pubsub", "cmp.pubsub", "--pub", "1", "--sub", "2", "--msgs", num, "--idle-timeout", "1m")
			s.grew(t, "out_msgs", before, outMsgs, 2*n)
		}},
		{kind: "pubsub", name: "pubsub --js", run: func(t *testing.T, s *server) {
			before := s.varz(t)
			s.ok(t, "pubsub", "cmp.pj", "--js", "--stream", "CMP_PJ", "--create", "--msgs", num, "--idle-timeout", "1m")
			s.streamHolds(t, "CMP_PJ", n)
			s.grew(t, "out_msgs", before, outMsgs, n)
		}},
		{kind: "service serve", run: func(t *testing.T, s *server) {
			before := s.varz(t)
			done := s.background(t, "service", "serve", "cmp.svc", "--msgs", num)
			s.waitSubscribed(t, "cmp.svc")
			s.ok(t, "service", "request", "cmp.svc", "--msgs", num)
			s.wait(t, done)
			s.grew(t, "in_msgs (requests and replies)", before, inMsgs, 2*n)
		}},
		{kind: "service request", run: func(t *testing.T, s *server) {
			// Answered by a plain nats.go responder: the request side on its own.
			sub, err := s.nc.Subscribe("cmp.req", func(m *nats.Msg) { _ = m.Respond(m.Data) })
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = sub.Unsubscribe() }()
			if err := s.nc.Flush(); err != nil {
				t.Fatal(err)
			}
			before := s.varz(t)
			s.ok(t, "service", "request", "cmp.req", "--msgs", num)
			s.grew(t, "in_msgs (requests and replies)", before, inMsgs, 2*n)
		}},
		{kind: "latency", run: func(t *testing.T, s *server) {
			before := s.varz(t)
			s.ok(t, "latency", "--rate", "500", "--duration", "1s")
			s.grew(t, "out_msgs", before, outMsgs, 500)
		}},
		{kind: "js pub sync", run: func(t *testing.T, s *server) {
			s.ok(t, jsPub("sync", "CMP_SYNC")...)
			s.streamHolds(t, "CMP_SYNC", n)
			s.batchSettings(t, "CMP_SYNC", false)
		}},
		{kind: "js pub async", run: func(t *testing.T, s *server) {
			s.ok(t, jsPub("async", "CMP_ASYNC")...)
			s.streamHolds(t, "CMP_ASYNC", n)
			s.batchSettings(t, "CMP_ASYNC", false)
		}},
		{kind: "js pub async", name: "js pub async --persistasync", need: needAsync, stream: "CMP_PA",
			refused: jsPub("async", "CMP_PA", "--persistasync"),
			run: func(t *testing.T, s *server) {
				s.ok(t, jsPub("async", "CMP_PA", "--persistasync")...)
				s.streamHolds(t, "CMP_PA", n)
				if pm := s.config(t, "CMP_PA").PersistMode; pm != jetstream.AsyncPersistMode {
					t.Errorf("stream CMP_PA: persist_mode %v, want async", pm)
				}
				s.batchSettings(t, "CMP_PA", true)
			}},
		{kind: "js pub batch", name: "js pub atomic", need: needAtomic, stream: "CMP_ATOMIC",
			refused: jsPub("atomic", "CMP_ATOMIC", "--batch", "50"),
			run: func(t *testing.T, s *server) {
				s.ok(t, jsPub("atomic", "CMP_ATOMIC", "--batch", "50")...)
				s.streamHolds(t, "CMP_ATOMIC", n)
				s.batchSettings(t, "CMP_ATOMIC", false)
			}},
		{kind: "js pub fast", need: needFast, stream: "CMP_FAST",
			refused: jsPub("fast", "CMP_FAST", "--batch", "50"),
			run: func(t *testing.T, s *server) {
				s.ok(t, jsPub("fast", "CMP_FAST", "--batch", "50")...)
				s.streamHolds(t, "CMP_FAST", n)
				s.batchSettings(t, "CMP_FAST", false)
			}},
		reader("js ordered"), reader("js consume"), reader("js fetch"), reader("js push"),
		reader("js get sync"),
		{kind: "js get batch", need: needGet, stream: "CMP_GETB",
			refused: []string{"js", "get", "batch", "--stream", "CMP_GETB", "--create", "--msgs", num},
			run:     reader("js get batch").run},
		{kind: "kv put", run: func(t *testing.T, s *server) {
			s.ok(t, "kv", "put", "--bucket", "CMP_KVP", "--msgs", num)
			s.streamHolds(t, "KV_CMP_KVP", n) // one key per message, history 1
		}},
		{kind: "kv get", run: func(t *testing.T, s *server) {
			before := s.varz(t)
			s.ok(t, "kv", "get", "--bucket", "CMP_KVG", "--msgs", num)
			s.streamHolds(t, "KV_CMP_KVG", n) // filled first
			s.grew(t, "out_msgs", before, outMsgs, n)
		}},
	}
}

// reader is a read benchmark's case: it creates and fills its stream, then reads it.
func reader(kind string) kase {
	stream := "CMP_" + strings.ToUpper(strings.ReplaceAll(strings.TrimPrefix(kind, "js "), " ", "_"))
	args := append(strings.Fields(kind), "--stream", stream, "--create", "--msgs", fmt.Sprint(n))
	if !strings.HasPrefix(kind, "js get") { // consumers: a stall on a busy machine is not the end
		args = append(args, "--idle-timeout", "1m")
	}
	return kase{kind: kind, run: func(t *testing.T, s *server) {
		before := s.varz(t)
		s.ok(t, args...)
		s.streamHolds(t, stream, n)
		s.grew(t, "out_msgs (deliveries)", before, outMsgs, n)
	}}
}

// Every kind the engine runs has a case: a new kind cannot be forgotten here.
func TestEveryKindHasACase(t *testing.T) {
	covered := map[string]bool{}
	for _, c := range cases() {
		if !slices.Contains(engine.Kinds(), c.kind) {
			t.Errorf("case %q names kind %q, which the engine does not run", c.name, c.kind)
		}
		covered[c.kind] = true
	}
	for _, k := range engine.Kinds() {
		if !covered[k] {
			t.Errorf("kind %q has no case in the compatibility suite", k)
		}
	}
}

// TestReleases runs every case on every supported release, the releases in parallel and
// each release's cases one after another (each /varz difference is its case's own).
func TestReleases(t *testing.T) {
	for _, version := range natstest.Releases {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			s := start(t, version)
			for _, c := range cases() {
				name := c.name
				if name == "" {
					name = c.kind
				}
				t.Run(name, func(t *testing.T) {
					if c.need != nil && !s.version.AtLeast(c.need.since) {
						s.refused(t, c)
						return
					}
					c.run(t, s)
				})
			}
		})
	}
}

// server is one release under test with a connection of the test's own.
type server struct {
	*natstest.Process
	version serverver.Version
	nc      *nats.Conn
	js      jetstream.JetStream
}

func start(t *testing.T, version string) *server {
	p := natstest.ServerProcess(t, version)
	nc, err := nats.Connect(p.URL)
	if err != nil {
		t.Fatalf("connect to %s: %v", version, err)
	}
	t.Cleanup(nc.Close)
	have := nc.ConnectedServerVersion()
	if have != strings.TrimPrefix(version, "v") {
		t.Fatalf("binary %s says it is %s", version, have)
	}
	v, err := serverver.Parse(have)
	if err != nil {
		t.Fatal(err)
	}
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	return &server{Process: p, version: v, nc: nc, js: js}
}

// natsperf runs a command line against the server in this process.
func (s *server) natsperf(ctx context.Context, args ...string) (code int, out, errs string) {
	var o, e natstest.Buffer
	args = append(args, "-s", s.URL)
	code = cli.Main(ctx, args, cli.Streams{Out: &o, Err: &e})
	return code, o.String(), e.String()
}

func (s *server) ok(t *testing.T, args ...string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if code, out, errs := s.natsperf(ctx, args...); code != 0 {
		t.Fatalf("natsperf %s on %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), s.Version, code, out, errs)
	}
}

// background runs a command line (a receiver) until it ends; wait collects it.
func (s *server) background(t *testing.T, args ...string) <-chan string {
	done := make(chan string, 1)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	go func() {
		defer cancel()
		code, out, errs := s.natsperf(ctx, args...)
		if code != 0 {
			done <- fmt.Sprintf("natsperf %s on %s: exit %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), s.Version, code, out, errs)
			return
		}
		done <- ""
	}()
	t.Cleanup(cancel)
	return done
}

func (s *server) wait(t *testing.T, done <-chan string) {
	t.Helper()
	if msg := <-done; msg != "" {
		t.Fatal(msg)
	}
}

// refused checks that c is refused before anything is created: exit 2, one line.
func (s *server) refused(t *testing.T, c kase) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	code, out, errs := s.natsperf(ctx, c.refused...)
	if want := c.need.line(s.version) + "\n"; code != 2 || errs != want {
		t.Fatalf("natsperf %s on %s: exit %d, stderr %q; want exit 2 and %q (stdout %q)", strings.Join(c.refused, " "), s.Version, code, errs, want, out)
	}
	if _, err := s.js.Stream(ctx, c.stream); !errors.Is(err, jetstream.ErrStreamNotFound) {
		t.Errorf("stream %s after the refusal: %v; want it never created", c.stream, err)
	}
}

type varz struct {
	InMsgs  int64 `json:"in_msgs"`
	OutMsgs int64 `json:"out_msgs"`
}

func (s *server) varz(t *testing.T) varz {
	t.Helper()
	var v varz
	s.monitor(t, "/varz", &v)
	return v
}

func (s *server) monitor(t *testing.T, path string, v any) {
	t.Helper()
	resp, err := http.Get(s.MonitorURL + path)
	if err != nil {
		t.Fatalf("%s %s: %v", s.Version, path, err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatalf("%s %s: %v", s.Version, path, err)
	}
}

// waitSubscribed waits until a connection other than the test's own subscribes to subject.
func (s *server) waitSubscribed(t *testing.T, subject string) {
	t.Helper()
	natstest.WaitFor(t, time.Minute, "a subscription to "+subject, func() bool {
		var c struct {
			Conns []struct {
				Subs []string `json:"subscriptions_list"`
			} `json:"connections"`
		}
		s.monitor(t, "/connz?subs=1", &c)
		for _, conn := range c.Conns {
			if slices.Contains(conn.Subs, subject) {
				return true
			}
		}
		return false
	})
}

func inMsgs(v varz) int64  { return v.InMsgs }
func outMsgs(v varz) int64 { return v.OutMsgs }

// grew waits until the /varz counter of has grown by at least want since before: the server
// adds a connection's counts to its totals a moment after it handled them.
func (s *server) grew(t *testing.T, what string, before varz, of func(varz) int64, want int64) {
	t.Helper()
	var got int64
	deadline := time.Now().Add(30 * time.Second)
	for {
		if got = of(s.varz(t)) - of(before); got >= want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: /varz %s grew by %d in 30s, want at least %d", s.Version, what, got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *server) config(t *testing.T, stream string) jetstream.StreamConfig {
	t.Helper()
	st, err := s.js.Stream(context.Background(), stream)
	if err != nil {
		t.Fatalf("%s: stream %s: %v", s.Version, stream, err)
	}
	return st.CachedInfo().Config
}

func (s *server) streamHolds(t *testing.T, stream string, want uint64) {
	t.Helper()
	st, err := s.js.Stream(context.Background(), stream)
	if err != nil {
		t.Fatalf("%s: stream %s: %v", s.Version, stream, err)
	}
	if got := st.CachedInfo().State.Msgs; got != want {
		t.Errorf("%s: stream %s holds %d messages, want %d", s.Version, stream, got, want)
	}
}

// batchSettings checks that a stream natsperf created allows atomic batches from 2.12 on
// (unless its flushes are asynchronous: the server forbids the two) and fast batches from 2.14
// on, as nats bench's streams do, and names neither to an older server (2.12 refuses
// allow_batched; 2.10 and 2.11 would drop what they do not know).
func (s *server) batchSettings(t *testing.T, stream string, persistAsync bool) {
	t.Helper()
	atomic := s.version.AtLeast(serverver.Version{Major: 2, Minor: 12}) && !persistAsync
	batched := s.version.AtLeast(serverver.Version{Major: 2, Minor: 14})
	if c := s.config(t, stream); c.AllowAtomicPublish != atomic || c.AllowBatchPublish != batched {
		t.Errorf("%s: stream %s: allow_atomic %v, allow_batched %v; want %v, %v", s.Version, stream, c.AllowAtomicPublish, c.AllowBatchPublish, atomic, batched)
	}
}

// .ci/run builds exactly the releases the suite runs: a release added to one and not the
// other would skip here or go untested there.
func TestCIBuildsEveryRelease(t *testing.T) {
	b, err := os.ReadFile("../../.ci/run")
	if err != nil {
		t.Fatal(err)
	}
	const key = `NATS_SERVER_RELEASES="`
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, key); ok {
			if got := strings.Fields(strings.TrimSuffix(rest, `"`)); !slices.Equal(got, natstest.Releases) {
				t.Fatalf(".ci/run builds %v, the suite runs %v", got, natstest.Releases)
			}
			return
		}
	}
	t.Fatalf(".ci/run has no %s...\" line", key)
}
