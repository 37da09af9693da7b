package cli

import (
	"context"
	"regexp"
	"testing"
	"time"
)

// TestLatencyLastSendMeasured: latency's report says when the last message was sent, not the
// publisher's End (the slot after it): every message arrived, so the last send comes before
// the last receive (it printed "Last Recv Wall Time: 2.999092s" before "Last Sent ...: 3s").
func TestLatencyLastSendMeasured(t *testing.T) {
	r := run(context.Background(), t, nil, "latency", "--rate", "1000", "--duration", "500ms", "--no-server-metrics")
	if r.code != 0 {
		t.Fatalf("exit %d\n%s", r.code, r.err)
	}
	wall := func(name string) time.Duration {
		m := regexp.MustCompile(name + ` Wall Time *: (\S+)`).FindStringSubmatch(r.out)
		if m == nil {
			t.Fatalf("no %q line in:\n%s", name, r.out)
		}
		d, err := time.ParseDuration(m[1])
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		return d
	}
	if !regexp.MustCompile(`Lost Messages  : 0\n`).MatchString(r.out) {
		t.Skipf("messages were lost on a busy machine: the last send need not precede the last receive\n%s", r.out)
	}
	if sent, recv := wall("Last Sent"), wall("Last Recv"); sent <= 0 || sent > recv {
		t.Errorf("Last Sent %v, Last Recv %v: a receive before the last send\n%s", sent, recv, r.out)
	}
}
