package cli

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

// The commands that take the stream flags: every js command and pubsub --js (the stream set),
// and kv put|get (the part about storage, which a bucket shares with a stream).
var (
	streamCommands = [][]string{
		{"js", "pub", "sync", "sf.x"}, {"js", "pub", "async", "sf.x"}, {"js", "pub", "batch", "sf.x"},
		{"js", "ordered"}, {"js", "consume"}, {"js", "fetch"}, {"js", "push"},
		{"js", "get", "sync"}, {"js", "get", "batch"},
		{"pubsub", "sf.x", "--js"},
	}
	bucketCommands = [][]string{{"kv", "put"}, {"kv", "get"}}
	storeFlagNames = []string{"storage", "replicas", "purge", "force", "ack-timeout"}
	streamOnly     = []string{"stream", "create", "maxbytes", "dedup-window", "persistasync"}
)

// TestStreamFlagsAreOneSet: every command with stream flags registers the same flags, with the
// same defaults and help.
func TestStreamFlagsAreOneSet(t *testing.T) {
	root := newRoot(&Streams{})
	type flagDoc struct{ def, usage string }
	want := map[string]flagDoc{}
	for _, args := range append(append([][]string{}, streamCommands...), bucketCommands...) {
		cmd, _, err := root.Find(args)
		if err != nil {
			t.Fatalf("%v: %v", args, err)
		}
		names := storeFlagNames
		if args[0] != "kv" {
			names = append(append([]string{}, names...), streamOnly...)
		}
		for _, name := range names {
			f := cmd.Flags().Lookup(name)
			if f == nil {
				t.Errorf("%s has no --%s", cmd.CommandPath(), name)
				continue
			}
			got := flagDoc{f.DefValue, f.Usage}
			if w, ok := want[name]; !ok {
				want[name] = got
			} else if got != w {
				t.Errorf("%s --%s: default %q, help %q; elsewhere %q, %q", cmd.CommandPath(), name, got.def, got.usage, w.def, w.usage)
			}
		}
	}
}

// TestStreamFlagsMapToTheSameSpecFields: on every command the stream flags land in the same
// fields of the Spec 'natsperf spec' prints (nats bench's spellings too).
func TestStreamFlagsMapToTheSameSpecFields(t *testing.T) {
	store := []string{"--storage", "memory", "--replicas", "3", "--purge", "--force", "--jstimeout", "7s"}
	streamSet := append([]string{"--stream", "sfstream", "--maxbytes", "2mb", "--dedupwindow", "1m"}, store...)
	for _, args := range append(append([][]string{}, streamCommands...), bucketCommands...) {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			bucket := args[0] == "kv"
			flags := streamSet
			if bucket {
				flags = store
			}
			s := specOf(t, append(append([]string{}, args...), flags...)...)
			setup := s["setup"].(map[string]any)
			key, want := "streams", map[string]any{
				"name": "sfstream", "storage": "memory", "replicas": 3.0, "purge": true, "force": true,
				"max_bytes": 2.0 * (1 << 20), "dedup_window": "1m0s",
			}
			if bucket {
				key, want = "buckets", map[string]any{"name": "benchbucket", "storage": "memory", "replicas": 3.0, "purge": true, "force": true}
			}
			list, _ := setup[key].([]any)
			if len(list) != 1 {
				t.Fatalf("setup %s: %v", key, setup)
			}
			got := list[0].(map[string]any)
			for k, v := range want {
				if got[k] != v {
					t.Errorf("setup %s[0].%s = %v, want %v", key, k, got[k], v)
				}
			}
			if at := findKey(s["workloads"], "ack_timeout"); at != "7s" {
				t.Errorf("workload ack_timeout = %v, want 7s", at)
			}
			if !bucket {
				// --create asks for every setting: the defaults are then written out too.
				more, want := []string{"--create", "--persistasync"}, map[string]any{"name": "benchstream", "create": true, "persist_async": true, "storage": "file", "max_bytes": float64(1 << 30), "dedup_window": "2m0s"}
				if strings.HasPrefix(strings.Join(args, " "), "js pub batch") { // the server refuses async persistence with atomic batches
					more, want["persist_async"] = more[:1], nil
				}
				s := specOf(t, append(append([]string{}, args...), more...)...)
				got := s["setup"].(map[string]any)["streams"].([]any)[0].(map[string]any)
				for k, v := range want {
					if got[k] != v {
						t.Errorf("with --create: setup streams[0].%s = %v, want %v", k, got[k], v)
					}
				}
			}
		})
	}
}

// specOf is the Spec 'natsperf spec ARGS --json' prints, decoded.
func specOf(t *testing.T, args ...string) map[string]any {
	t.Helper()
	r := run(context.Background(), t, nil, append([]string{"spec"}, append(args, "--json")...)...)
	var m map[string]any
	if r.code != 0 || json.Unmarshal([]byte(r.out), &m) != nil {
		t.Fatalf("natsperf spec %s: exit %d\n%s%s", strings.Join(args, " "), r.code, r.out, r.err)
	}
	return m
}
