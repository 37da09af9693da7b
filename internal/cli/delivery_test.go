package cli

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/natsperf/natsperf/internal/report"
	"github.com/natsperf/natsperf/internal/stamp"
	"github.com/natsperf/natsperf/result"
)

// handPublish is a publisher natsperf did not write: plain nats.go sending stamped payloads
// with the given sequence numbers in the given order, so the receiver's counts can be checked
// against what is known to have been sent.
func handPublish(t *testing.T, url, subject string, seqs []uint64) {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	buf := stamp.Payload(32)
	const id = 4242
	for _, seq := range seqs {
		stamp.Put(buf, id, seq, time.Now().UnixNano())
		if err := nc.Publish(subject, buf); err != nil {
			t.Fatal(err)
		}
	}
	if err := nc.FlushTimeout(30 * time.Second); err != nil {
		t.Fatal(err)
	}
}

// seqRange is first..last in order.
func seqRange(first, last uint64) []uint64 {
	out := make([]uint64, 0, last-first+1)
	for s := first; s <= last; s++ {
		out = append(out, s)
	}
	return out
}

// subAgainst runs `sub subject --msgs msgs` while send publishes, and returns its Result.
func subAgainst(t *testing.T, subject string, msgs int, send func(url string), extra ...string) (*result.Result, cliRun) {
	t.Helper()
	return subAgainstServer(t, subject, msgs, func(s *server.Server) { send(s.ClientURL()) }, extra...)
}

func subAgainstServer(t *testing.T, subject string, msgs int, send func(*server.Server), extra ...string) (*result.Result, cliRun) {
	t.Helper()
	s := startServer(t, nil)
	type out struct {
		res *result.Result
		r   cliRun
	}
	done := make(chan out, 1)
	go func() {
		args := append([]string{"sub", subject, "-s", s.ClientURL(), "--msgs", fmt.Sprint(msgs), "--size", "32", "--idle-timeout", "1s"}, extra...)
		res, r := runJSON(context.Background(), t, args...)
		done <- out{res, r}
	}()
	waitForSubs(t, s, subject, 1)
	send(s)
	select {
	case o := <-done:
		return o.res, o.r
	case <-time.After(60 * time.Second):
		t.Fatal("subscriber did not end")
		return nil, cliRun{}
	}
}

// TestDuplicatesAreNotLosses: every 50th of 10,000 messages sent twice is 200 duplicates and
// no loss, whether the subscriber asks for the unique count or for the deliveries.
func TestDuplicatesAreNotLosses(t *testing.T) {
	var seqs []uint64
	for s := uint64(1); s <= 10000; s++ {
		seqs = append(seqs, s)
		if s%50 == 0 {
			seqs = append(seqs, s)
		}
	}
	t.Run("msgs is the unique count", func(t *testing.T) {
		// 1..5000 each twice fills a count of deliveries; 5001..10000 follow once the
		// subscriber has had time to (wrongly) stop.
		var twice []uint64
		for s := uint64(1); s <= 5000; s++ {
			twice = append(twice, s, s)
		}
		var srv *server.Server
		res, r := subAgainstServer(t, "dup.a", 10000, func(s *server.Server) {
			srv = s
			handPublish(t, s.ClientURL(), "dup.a", twice)
			deadline := time.Now().Add(2 * time.Second)
			for time.Now().Before(deadline) && srv.GlobalAccount().Interest("dup.a") > 0 {
				time.Sleep(10 * time.Millisecond)
			}
			handPublish(t, s.ClientURL(), "dup.a", seqRange(5001, 10000))
		}, "--idle-timeout", "20s")
		c := group(t, res, "sub").Aggregate.Correctness
		if c == nil || c.Lost != 0 || c.Duplicated != 5000 || c.Received != 15000 || c.OutOfOrder != 0 {
			t.Fatalf("correctness %+v (exit %d)", c, r.code)
		}
		if !res.Complete() || r.code != 0 {
			t.Fatalf("stop %+v exit %d: the 10,000 unique messages all arrived", res.Stop, r.code)
		}
	})
	t.Run("msgs counts the duplicates too", func(t *testing.T) {
		res, _ := subAgainst(t, "dup.b", 10200, func(url string) { handPublish(t, url, "dup.b", seqs) })
		c := group(t, res, "sub").Aggregate.Correctness
		// 10,200 asked, 10,000 unique exist: the 200 beyond are not received, not lost.
		if c == nil || c.Lost != 0 || c.Duplicated != 200 || c.Received != 10200 || c.NotReceived != 200 {
			t.Fatalf("correctness %+v", c)
		}
	})
}

// TestDuplicatesAfterTheShare: copies arriving once the share is complete are recorded and
// end nothing twice (they once closed the subscriber's done channel again: a panic).
func TestDuplicatesAfterTheShare(t *testing.T) {
	seqs := append(seqRange(1, 1000), 1000, 1000, 999, 1000)
	res, r := subAgainst(t, "dup.after", 1000, func(url string) { handPublish(t, url, "dup.after", seqs) })
	if r.code != 0 || !res.Complete() {
		t.Fatalf("exit %d stop %+v\n%s", r.code, res.Stop, r.err)
	}
	if c := group(t, res, "sub").Aggregate.Correctness; c == nil || c.Lost != 0 || c.NotReceived != 0 {
		t.Fatalf("correctness %+v", c)
	}
}

// TestKnownGapsSwapsAndDuplicates checks exact counts against a sequence with known faults:
// 1..5000 with 7 sequences never sent, 30 adjacent swaps and 11 duplicates.
func TestKnownGapsSwapsAndDuplicates(t *testing.T) {
	skip := map[uint64]bool{100: true, 200: true, 201: true, 202: true, 3000: true, 4000: true, 4999: true}
	var seqs []uint64
	for s := uint64(1); s <= 5000; s++ {
		if !skip[s] {
			seqs = append(seqs, s)
		}
	}
	swaps := 0
	for i := 500; swaps < 30; i += 100 {
		seqs[i], seqs[i+1] = seqs[i+1], seqs[i]
		swaps++
	}
	for i := 0; i < 11; i++ {
		seqs = append(seqs, uint64(1000+i*290)) // late copies of messages already seen
	}
	res, _ := subAgainst(t, "known", 5000, func(url string) { handPublish(t, url, "known", seqs) }, "--idle-timeout", "500ms")
	c := group(t, res, "sub").Aggregate.Correctness
	if c == nil || c.Lost != 7 || c.Duplicated != 11 || c.OutOfOrder != 30 || c.Received != int64(len(seqs)) {
		t.Fatalf("correctness %+v, want lost 7 dup 11 out of order 30 received %d", c, len(seqs))
	}
}

// TestSilentPublisherIsNotLoss: a publisher that stops at 6,000 of the 10,000 the subscriber
// expects (killed) left 4,000 messages that were never sent: they are "not received", with
// the sequence it went silent at, and only the 5 real gaps below it are lost.
func TestSilentPublisherIsNotLoss(t *testing.T) {
	var seqs []uint64
	for s := uint64(1); s <= 6000; s++ {
		if s%1000 != 500 { // 500, 1500, ..., 5500: 6 gaps
			seqs = append(seqs, s)
		}
	}
	res, r := subAgainst(t, "silent", 10000, func(url string) { handPublish(t, url, "silent", seqs) }, "--idle-timeout", "500ms")
	c := group(t, res, "sub").Aggregate.Correctness
	if c == nil || c.Lost != 6 || c.NotReceived != 4000 || c.Expected != 10000 || c.HighestSeqMin != 6000 || c.HighestSeqMax != 6000 {
		t.Fatalf("correctness %+v, want lost 6, not received 4000, expected 10000, highest seq 6000", c)
	}
	if res.Stop.Reason != result.StopIdle {
		t.Fatalf("stop %+v", res.Stop)
	}
	inst, err := jsonschema.UnmarshalJSON(strings.NewReader(r.out))
	if err != nil {
		t.Fatal(err)
	}
	if err := resultSchema(t).Validate(inst); err != nil {
		t.Fatalf("the Result with not_received does not match the schema: %v", err)
	}
	var text strings.Builder
	if err := report.Text(&text, res); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"lost 6 ", "not received 4,000", "expected 10,000, saw 5,994, publisher went silent at seq 6,000"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, text.String())
		}
	}
}

// TestQueueGroupGapsOnTheUnion: members of a queue group each see part of the sequence; the
// gaps are judged on the union (10 never sent), and the tail after the last sequence (a
// publisher stopped at 3,000 of 4,000) is not received.
func TestQueueGroupGapsOnTheUnion(t *testing.T) {
	var seqs []uint64
	for s := uint64(1); s <= 3000; s++ {
		if s%300 != 7 {
			seqs = append(seqs, s)
		}
	}
	s := startServer(t, nil)
	done := make(chan *result.Result, 1)
	go func() {
		res, _ := runJSON(context.Background(), t, "sub", "qgap", "-s", s.ClientURL(), "--clients", "3", "--queue", "q", "--msgs", "4000", "--idle-timeout", "500ms")
		done <- res
	}()
	waitForSubs(t, s, "qgap", 3)
	handPublish(t, s.ClientURL(), "qgap", seqs)
	res := <-done
	c := group(t, res, "sub").Aggregate.Correctness
	if c == nil || c.Lost != 10 || c.NotReceived != 1000 || c.Received != 2990 || c.Expected != 4000 || c.HighestSeqMax != 3000 {
		t.Fatalf("correctness %+v, want lost 10, not received 1000", c)
	}
}
