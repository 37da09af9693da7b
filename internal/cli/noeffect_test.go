package cli

import (
	"context"
	"strings"
	"testing"
)

// TestNoEffectFlagsSaySo: the flags accepted only because nats bench's command lines pass
// them (TestSpecPrintsEveryFlag's ignored map) leave the Spec as it was and say so on stderr,
// once, in a run and in natsperf spec; pubsub --clients, which used to be ignored, is refused.
func TestNoEffectFlagsSaySo(t *testing.T) {
	ctx := context.Background()
	for _, tt := range []struct {
		line   []string
		flag   []string
		notice string
	}{
		{[]string{"js", "pub", "sync", "foo"}, []string{"--batch", "5"}, "natsperf: --batch has no effect on js pub sync: each publish waits for its ack"},
		{[]string{"js", "get", "sync"}, []string{"--batch", "7"}, "natsperf: --batch has no effect on js get sync: each get reads one message"},
		{[]string{"js", "get", "sync"}, []string{"--get-batch", "7"}, "natsperf: --batch has no effect on js get sync: each get reads one message"},
	} {
		without := run(ctx, t, nil, append(append([]string{"spec"}, tt.line...), "--json")...)
		with := run(ctx, t, nil, append(append(append([]string{"spec"}, tt.line...), tt.flag...), "--json")...)
		name := strings.Join(append(tt.line, tt.flag...), " ")
		if without.code != 0 || with.code != 0 {
			t.Fatalf("spec %s: exit %d and %d without it: %s", name, with.code, without.code, with.err)
		}
		if with.out != without.out {
			t.Errorf("spec %s: the Spec changed:\n%s\nwithout:\n%s", name, with.out, without.out)
		}
		if strings.Count(with.err, tt.notice) != 1 || strings.Count(with.err, "\n") != 1 {
			t.Errorf("spec %s: stderr %q, want the one line %q...", name, with.err, tt.notice)
		}
		if strings.Contains(without.err, "no effect") {
			t.Errorf("spec %s: a notice without the flag: %q", strings.Join(tt.line, " "), without.err)
		}
	}

	// A run: exit 0, the notice before the Result, the messages published one at a time.
	s := startServer(t, nil)
	res, r := runJSON(ctx, t, "js", "pub", "sync", "ne.sync", "-s", s.ClientURL(), "--create", "--storage", "memory", "--maxbytes", "16mb",
		"--msgs", "50", "--batch", "10", "--no-progress")
	if r.code != 0 {
		t.Fatalf("js pub sync --batch 10: exit %d: %s", r.code, r.err)
	}
	if !strings.Contains(r.err, "natsperf: --batch has no effect on js pub sync") {
		t.Errorf("js pub sync --batch 10: stderr %q, want the notice", r.err)
	}
	if len(res.Groups) != 1 || res.Groups[0].Aggregate.Msgs != 50 || res.Stop.Reason != "completed" {
		t.Errorf("js pub sync --batch 10: groups %+v, stop %q: want 50 published, completed", res.Groups, res.Stop.Reason)
	}

	r = run(ctx, t, nil, "spec", "pubsub", "foo", "--clients", "3")
	if r.code != exitUsage || !strings.Contains(r.err, "pubsub counts its clients with --pub and --sub") {
		t.Errorf("spec pubsub --clients 3: exit %d, stderr %q: want exit %d and the reason", r.code, r.err, exitUsage)
	}
}
