package cli

import (
	"context"
	"testing"
)

// TestJSConsumerRateFromStart: a JetStream consumer's rate covers the time from when it started
// consuming (the start barrier), so a client handed its share in one buffered burst (async
// publishers send every message at once; the stream stores them, then delivers them together)
// does not report the burst's drain speed as its rate. The invariant, which holds on any
// machine: a client cannot receive faster than its messages over the time from the run's start
// to its last message (the run's start is taken before the barrier is released). Before the
// fix, push consumers on file storage showed up to 800 times that, and the sub total of the
// evaluation's async cells was as inflated.
func TestJSConsumerRateFromStart(t *testing.T) {
	for _, kind := range []string{"push", "pull", "ordered"} {
		t.Run(kind, func(t *testing.T) {
			s := startServer(t, nil)
			res, r := runJSON(context.Background(), t, at(s, "pubsub", "burst", "--js", "--pub", "2", "--sub", "10",
				"--msgs", "1000", "--size", "1kb", "--consumer-kind", kind, "--storage", "file")...)
			if r.code != 0 || !res.Complete() {
				t.Fatalf("exit %d, stop %+v, stderr %s", r.code, res.Stop, r.err)
			}
			sub := group(t, res, "sub")
			if sub.Aggregate.Msgs < 1000 { // every published message at least once, or the bounds below hold vacuously
				t.Fatalf("subscribers received %d messages of 1000", sub.Aggregate.Msgs)
			}
			for _, c := range sub.Clients {
				if c.Msgs == 0 {
					continue
				}
				// 1.01: rounding of the times in the JSON; nothing else may make up the difference.
				bound := float64(c.Msgs) / c.End.Sub(res.Start).Seconds() * 1.01
				if c.MsgsPerSec > bound {
					t.Errorf("sub %d: %.0f msgs/s from %d msgs ending %v after the run's start: at most %.0f", c.ID, c.MsgsPerSec, c.Msgs, c.End.Sub(res.Start), bound)
				}
				if c.Start.After(res.Start) {
					t.Errorf("sub %d starts %v after the run's start: its interval is only its messages' tail", c.ID, c.Start.Sub(res.Start))
				}
			}
			a := sub.Aggregate
			if bound := float64(a.Msgs) / a.End.Sub(res.Start).Seconds() * 1.01; a.MsgsPerSec > bound {
				t.Errorf("sub total %.0f msgs/s from %d msgs ending %v after the run's start: at most %.0f", a.MsgsPerSec, a.Msgs, a.End.Sub(res.Start), bound)
			}
		})
	}
}
