package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/spec"
)

// TestJSSpecsRunAsTheCommand: each JetStream and KV kind's command line and the Spec 'natsperf spec'
// prints for it run to the same settings; readers receive what the stream holds and the server
// counted going out, publishers' messages are in the stream and counted coming in.
func TestJSSpecsRunAsTheCommand(t *testing.T) {
	s := startServer(t, nil)
	jsc := natstest.JetStream(t, s.ClientURL())
	cases := []struct {
		args      []string
		group     string
		want      int64 // messages the group receives in all
		consumers bool  // a durable consumer that must be gone after the run
	}{
		{[]string{"js", "pub", "sync", "ps", "--stream", "sps", "--msgs", "300", "--size", "32", "--verify", "--create"}, "pub", 300, false},
		{[]string{"js", "pub", "async", "pa", "--stream", "spa", "--clients", "2", "--msgs", "4000", "--batch", "100", "--purge", "--create", "--dedup"}, "pub", 4000, false},
		{[]string{"js", "pub", "batch", "pb", "--stream", "spb", "--msgs", "1000", "--batch", "50", "--multisubject", "--multisubject-max", "7", "--create"}, "pub", 1000, false},
		{[]string{"js", "ordered", "--stream", "sord", "--clients", "2", "--msgs", "1500", "--size", "64"}, "sub", 3000, false},
		{[]string{"js", "consume", "--stream", "scon", "--clients", "2", "--msgs", "2000", "--acks", "all", "--batch", "50", "--storage", "memory", "--create"}, "sub", 2000, true},
		{[]string{"js", "fetch", "--stream", "sfet", "--msgs", "1200", "--acks", "none", "--consumer", "f1", "--pull-batch", "100"}, "sub", 1200, true},
		{[]string{"js", "push", "--stream", "spus", "--clients", "2", "--msgs", "1000", "--heartbeat", "2s"}, "sub", 1000, true},
		{[]string{"js", "get", "sync", "--stream", "sgs", "--msgs", "300"}, "get", 300, false},
		{[]string{"js", "get", "batch", "--stream", "sgb", "--clients", "2", "--msgs", "900", "--batch", "100"}, "get", 1800, false},
		{[]string{"pubsub", "psj", "--js", "--stream", "spsj", "--sub", "2", "--msgs", "1000", "--size", "32", "--verify"}, "sub", 2000, false},
		{[]string{"pubsub", "psp", "--js", "--stream", "spsp", "--pub", "2", "--sub", "2", "--msgs", "1000", "--consumer-kind", "pull", "--syncpub"}, "sub", 1000, true},
		{[]string{"kv", "put", "--bucket", "kvp", "--clients", "2", "--msgs", "600", "--storage", "memory"}, "put", 600, false},
		{[]string{"kv", "get", "--bucket", "kvg", "--msgs", "400", "--history", "2"}, "get", 400, false},
	}
	for _, c := range cases {
		words := c.args[:len(c.args)-countFlags(c.args)]
		switch {
		case words[0] == "pubsub":
			words = words[:1] // pubsub SUBJECT
		case words[1] == "pub":
			words = words[:3] // js pub MODE SUBJECT
		}
		kind := strings.Join(words, " ")
		t.Run(kind, func(t *testing.T) {
			// The test server has little storage: a stream natsperf creates must be small.
			args := append(c.args, "-s", s.ClientURL(), "--no-progress")
			if c.args[0] == "js" {
				args = append(args, "--maxbytes", "16MiB")
			}
			r := run(context.Background(), t, nil, append([]string{"spec"}, args...)...)
			if r.code != 0 {
				t.Fatalf("spec: exit %d: %s", r.code, r.err)
			}
			sp, err := spec.Parse([]byte(r.out))
			if err != nil || sp.Workloads[0].Kind() != kind {
				t.Fatalf("printed spec: %v\n%s", err, r.out)
			}
			path := filepath.Join(t.TempDir(), "run.yaml")
			if err := os.WriteFile(path, []byte(r.out), 0o600); err != nil {
				t.Fatal(err)
			}
			var stream string
			if len(sp.Setup.Streams) > 0 {
				stream = sp.Setup.Streams[0].Name
			} else {
				stream = "KV_" + sp.Setup.Buckets[0].Name
			}
			before, _ := s.Varz(nil)
			fromSpec, rr := runJSON(context.Background(), t, "run", path, "--no-progress")
			after, _ := s.Varz(nil)
			if rr.code != 0 || fromSpec.Command != sp.Workloads[0].Kind() {
				t.Fatalf("run SPEC: exit %d, command %q: %s", rr.code, fromSpec.Command, rr.err)
			}
			got := group(t, fromSpec, c.group).Aggregate.Msgs
			held := int64(streamMsgs(t, jsc, stream))
			counted := after.OutMsgs - before.OutMsgs
			if c.group == "pub" || c.group == "put" {
				counted = after.InMsgs - before.InMsgs
				if held != c.want {
					t.Fatalf("the stream holds %d messages after publishing %d", held, c.want)
				}
			}
			if got != c.want || counted < c.want || len(fromSpec.Streams) != 1 || fromSpec.Streams[0].Messages != uint64(held) || held == 0 {
				t.Fatalf("got %d, want %d; server counted %d; stream holds %d, Result says %+v", got, c.want, counted, held, fromSpec.Streams)
			}
			if sp.Verify {
				v, sent := fromSpec.Verify, group(t, fromSpec, "pub").Aggregate.Msgs
				if v == nil || v.Acked != sent || v.Stored != sent || v.AckedButMissing != 0 {
					t.Fatalf("verify: %+v, want all %d sent acked and stored", v, sent)
				}
			}
			if c.consumers {
				st, err := jsc.Stream(context.Background(), stream)
				if err != nil {
					t.Fatal(err)
				}
				if n := st.CachedInfo().State.Consumers; n != 0 {
					t.Fatalf("%d consumer(s) left on %s after the run", n, stream)
				}
			}
			direct, dr := runJSON(context.Background(), t, args...)
			if dr.code != 0 || group(t, direct, c.group).Aggregate.Msgs != c.want {
				t.Fatalf("command: exit %d: %s", dr.code, dr.err)
			}
			if a, b := settingsWithoutInbox(t, direct.Settings), settingsWithoutInbox(t, fromSpec.Settings); !reflect.DeepEqual(a, b) {
				t.Fatalf("settings differ:\ncommand %s\nspec    %s", direct.Settings, fromSpec.Settings)
			}
		})
	}
}

// countFlags is how many of args are flags and their values (every flag here takes one).
func countFlags(args []string) int {
	for i, a := range args {
		if strings.HasPrefix(a, "--") {
			return len(args) - i
		}
	}
	return 0
}

// settingsWithoutInbox is a Result's settings without what differs by design between two runs:
// the consumers' fresh names and deliver subjects.
func settingsWithoutInbox(t *testing.T, raw json.RawMessage) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	// pubsub --js names its consumer afresh and starts it at the stream's next sequence.
	if w, ok := m["workload"].(map[string]any); ok {
		for _, part := range []string{"consumer", "sub"} {
			if c, ok := w[part].(map[string]any); ok {
				if cs, ok := c["consumer"].(map[string]any); ok {
					for _, k := range []string{"deliver_subject", "deliver_group", "name", "start_seq"} {
						delete(cs, k)
					}
				}
			}
		}
	}
	return m
}
