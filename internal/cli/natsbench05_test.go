package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/stamp"
)

// TestKVPutThroughputDuration: kv put takes nats bench 0.5's --throughput and --duration: 100
// puts a second for 1s are 100 puts, and the bucket's stream holds 100 values.
func TestKVPutThroughputDuration(t *testing.T) {
	s := startServer(t, nil)
	res, r := runJSON(context.Background(), t, "kv", "put", "-s", s.ClientURL(), "--bucket", "paced", "--storage", "memory", "--throughput", "100", "--duration", "1s")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if g := res.Groups[0].Aggregate; g.Msgs != 100 {
		t.Fatalf("%d puts, want 100 (100/s for 1s)", g.Msgs)
	}
	if len(res.Streams) != 1 || res.Streams[0].Messages != 100 {
		t.Fatalf("bucket stream %+v: want 100 values", res.Streams)
	}
}

// TestMultiSubjectRandomize: with --multisubject-randomize each message of pub's and of
// pubsub's publishers goes to a random one of --multisubject-max subjects (a plain subscriber
// sees them out of turn), without it to the next one in turn.
func TestMultiSubjectRandomize(t *testing.T) {
	s := startServer(t, nil)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	for _, tt := range []struct {
		cmd    string
		random bool
	}{{"pub", false}, {"pub", true}, {"pubsub", false}, {"pubsub", true}} {
		random := tt.random
		subject := fmt.Sprintf("%s%v", tt.cmd, random)
		sub, err := nc.SubscribeSync(subject + ".>")
		if err != nil {
			t.Fatal(err)
		}
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
		args := []string{tt.cmd, subject, "-s", s.ClientURL(), "--msgs", "200", "--multisubject", "--multisubjectmax", "10"}
		if random {
			args = append(args, "--multisubjectrandomize")
		}
		if r := run(context.Background(), t, nil, args...); r.code != exitOK {
			t.Fatalf("exit %d: %s", r.code, r.err)
		}
		inTurn, seen := 0, map[string]bool{}
		for i := 0; i < 200; i++ {
			m, err := sub.NextMsg(5e9)
			if err != nil {
				t.Fatal(err)
			}
			seen[m.Subject] = true
			if m.Subject == fmt.Sprintf("%s.%d", subject, i%10) {
				inTurn++
			}
		}
		_ = sub.Unsubscribe()
		switch {
		case len(seen) != 10:
			t.Errorf("%s random %v: %d subjects, want 10", tt.cmd, random, len(seen))
		case !random && inTurn != 200:
			t.Errorf("%s in turn: %d of 200 on the next subject", tt.cmd, inTurn)
		case random && inTurn > 100: // in turn by chance: 1 in 10 each, about 20
			t.Errorf("%s random: %d of 200 happened to be in turn", tt.cmd, inTurn)
		}
	}
}

// TestServiceRequestPayload: service request --payload FILE -H K:V sends the file's bytes and
// the header (a plain nats.go responder checks both and answers), one reply per request.
func TestServiceRequestPayload(t *testing.T) {
	s := startServer(t, nil)
	file := filepath.Join(t.TempDir(), "req.json")
	body := []byte(`{"q":"price","sku":7}`)
	if err := os.WriteFile(file, body, 0o600); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	var good atomic.Int64
	if _, err := nc.Subscribe("svc.real", func(m *nats.Msg) {
		if bytes.Equal(m.Data, body) && m.Header.Get("X-Tenant") == "a" && m.Header.Get(stamp.Header) != "" {
			good.Add(1)
		}
		_ = m.Respond([]byte("ok"))
	}); err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	res, r := runJSON(context.Background(), t, "service", "request", "svc.real", "-s", s.ClientURL(), "--msgs", "100", "--payload", file, "-H", "X-Tenant:a")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	g := res.Groups[0].Aggregate
	if g.Msgs != 100 || g.Events.Timeouts != 0 || good.Load() != 100 {
		t.Fatalf("%d requests answered, %d timeouts, %d arrived as the file with its header; want 100, 0, 100", g.Msgs, g.Events.Timeouts, good.Load())
	}
}

// TestAtomicThroughputAndTrace: js pub atomic takes --throughput (200/s for 1s: 200 messages
// in batches of 20, all stored), and --trace prints the JetStream API calls on stderr.
func TestAtomicThroughputAndTrace(t *testing.T) {
	s := startServer(t, nil)
	// The trace goes to the process's stderr (the JetStream contexts are opened far below the
	// command's streams): read it from a pipe while the command runs.
	pr, pw, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := os.Stderr
	os.Stderr = pw
	t.Cleanup(func() { os.Stderr = stderr; pw.Close() })
	traced := make(chan string)
	go func() {
		b, _ := io.ReadAll(pr)
		traced <- string(b)
	}()
	res, r := runJSON(context.Background(), t, at(s, "js", "pub", "atomic", "paced.atomic", "--create", "--stream", "paced_atomic", "--storage", "memory",
		"--throughput", "200", "--duration", "1s", "--batch", "20", "--trace")...)
	os.Stderr = stderr
	pw.Close()
	trace := <-traced
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if g := res.Groups[0].Aggregate; g.Msgs != 200 || len(res.Streams) != 1 || res.Streams[0].Messages != 200 {
		t.Fatalf("%d acked, streams %+v: want 200 acked and stored", g.Msgs, res.Streams)
	}
	if !strings.Contains(trace, ">>> $JS.API.STREAM.CREATE.paced_atomic") || !strings.Contains(trace, "<<< $JS.API.STREAM.CREATE.paced_atomic") {
		t.Fatalf("--trace printed no API calls: %q", trace)
	}
}
