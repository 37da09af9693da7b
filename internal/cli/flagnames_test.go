package cli

import (
	"context"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

// TestServiceRequestTimeoutNames: service request takes its reply timeout as --timeout (nats
// bench's name) and as --ack-timeout/--jstimeout (what the JetStream and KV commands call it).
// A responder that never replies makes every request wait the whole timeout.
func TestServiceRequestTimeoutNames(t *testing.T) {
	s := startServer(t, nil)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if _, err := nc.Subscribe("mute", func(*nats.Msg) {}); err != nil { // listens, never replies
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"--timeout", "--ack-timeout", "--jstimeout"} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			res, r := runJSON(context.Background(), t, "service", "request", "mute", "-s", s.ClientURL(), "--msgs", "3", "--size", "16", name, "100ms")
			if r.code != exitOK && r.code != exitFailed {
				t.Fatalf("exit %d: %s", r.code, r.err)
			}
			g := group(t, res, "request").Aggregate
			if g.Events.Timeouts != 3 {
				t.Fatalf("timeouts %d, want 3 (stderr %s)", g.Events.Timeouts, r.err)
			}
			ws, _ := decodeSettings(t, res)["workload"].(map[string]any)
			if got, _ := ws["timeout"].(float64); time.Duration(got) != 100*time.Millisecond {
				t.Errorf("the Result's timeout is %v, want 100ms", ws["timeout"])
			}
			// Three waits of 100ms, far below the 5s default each, whatever the load.
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v: %s did not set the reply timeout", d, name)
			}
		})
	}
}

// TestBatchAliases: each meaning of --batch has a name of its own that sets the same value
// (and counts as --batch given: js pub batch keeps 50, not its default of 100).
func TestBatchAliases(t *testing.T) {
	s := startServer(t, nil)
	for _, tt := range []struct {
		args []string
		key  string
		want float64
	}{
		{[]string{"js", "pub", "async", "alias.a", "--create", "--stream", "alias_a", "--msgs", "100", "--async-window", "7"}, "batch", 7},
		{[]string{"js", "pub", "batch", "alias.b", "--create", "--stream", "alias_b", "--msgs", "200", "--batch-size", "50"}, "batch", 50},
		{[]string{"js", "get", "batch", "--stream", "alias_g", "--msgs", "100", "--get-batch", "30"}, "batch_size", 30},
		{[]string{"js", "fetch", "--stream", "alias_a", "--msgs", "100", "--pull-batch", "20"}, "batch", 20},
	} {
		t.Run(tt.args[len(tt.args)-2], func(t *testing.T) {
			res, r := runJSON(context.Background(), t, at(s, tt.args...)...)
			if r.code != exitOK {
				t.Fatalf("exit %d: %s", r.code, r.err)
			}
			if got := findKey(decodeSettings(t, res)["workload"], tt.key); got != tt.want {
				t.Fatalf("the Result's %s is %v, want %v", tt.key, got, tt.want)
			}
		})
	}
}

// findKey is the first value of key anywhere in v (decoded JSON).
func findKey(v any, key string) any {
	switch v := v.(type) {
	case map[string]any:
		if x, ok := v[key]; ok {
			return x
		}
		for _, x := range v {
			if got := findKey(x, key); got != nil {
				return got
			}
		}
	case []any:
		for _, x := range v {
			if got := findKey(x, key); got != nil {
				return got
			}
		}
	}
	return nil
}

// TestSubSleepAlias: sub takes its processing time as --sub-sleep, as pubsub does.
func TestSubSleepAlias(t *testing.T) {
	res, r := subAgainst(t, "sleepy", 20, func(url string) { handPublish(t, url, "sleepy", seqRange(1, 20)) }, "--sub-sleep", "20ms")
	if r.code != exitOK {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	if got := findKey(decodeSettings(t, res)["bench"], "sleep"); got != float64(20*time.Millisecond) {
		t.Fatalf("the Result's sleep is %v, want 20ms", got)
	}
}
