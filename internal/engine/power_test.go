package engine

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/powerfs"
)

// durabilitySpec: R3 async publishing at 2,000/s for 6 s, --verify, with the given faults.
const durabilitySpec = `
version: natsperf.spec/v1
setup:
  streams:
    - {name: dur, subjects: [dur], storage: file, replicas: 3, create: true}
workloads:
  - kind: js pub async
    pacing: {rate: 2000, duration: 6s}
    config: {stream: dur, subject: dur, size: 64}
verify: true
faults:
  inject: [%s]
`

// TestPowerFailVerdict: a power failure of every node loses acknowledged messages under the
// default sync interval, and the verdict counts exactly what a client of its own then reads
// from the stream; with sync_interval always nothing acknowledged is lost; a plain kill of
// the leader (a clean shutdown, its page cache kept) loses nothing either.
func TestPowerFailVerdict(t *testing.T) {
	if testing.Short() {
		t.Skip("three 6 s runs on 3-node clusters")
	}
	if err := powerfs.Check(); err != nil {
		t.Skip(err) // FUSE or root missing: the run would be refused the same way
	}
	for _, tc := range []struct {
		name, sync, faults string
		power, loss        bool
	}{
		{"power-fail default sync", "", "3s:power-fail:all, 4s:restart", true, true},
		{"power-fail sync always", "always", "3s:power-fail:all, 4s:restart", true, false},
		{"kill-leader default sync", "", "3s:kill-leader, 4s:restart", false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			target := testTarget(t, embedded.Options{Nodes: 3, PowerFail: tc.power, Pausable: true, Sync: tc.sync})
			res, err := Execute(context.Background(), parseSpec(t, fmt.Sprintf(durabilitySpec, tc.faults)), Options{Target: target})
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range res.Faults.Timeline {
				if ev.Error != "" || ev.Skipped {
					t.Fatalf("fault %s: %s", ev.Spec, ev.Error)
				}
			}
			v := res.Verify
			if v == nil || v.Error != "" || v.Acked == 0 || len(v.Unreadable) > 0 {
				t.Fatalf("verify %+v", v)
			}
			if tc.loss && v.AckedButMissing == 0 {
				t.Errorf("default sync: 0 of %d acknowledged messages lost by a power failure, want some", v.Acked)
			}
			if !tc.loss && v.AckedButMissing != 0 {
				t.Errorf("%d of %d acknowledged messages lost, want none", v.AckedButMissing, v.Acked)
			}
			if own := ownRead(t, target.Embedded.URL(), "dur"); own != v.Stored {
				t.Errorf("the verdict found %d stored, a client of the test reads %d", v.Stored, own)
			}
			if len(v.Diverged) > 0 {
				t.Errorf("diverged %v: %+v", v.Diverged, v.Replicas)
			}
		})
	}
}

// ownRead counts the messages a plain client reads from the stream after the run, 0 when the
// stream is gone.
func ownRead(t *testing.T, url, stream string) int64 {
	t.Helper()
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	s, err := js.Stream(ctx, stream)
	if err == jetstream.ErrStreamNotFound {
		return 0
	}
	if err != nil {
		t.Fatal(err)
	}
	info := s.CachedInfo()
	if info.State.Msgs == 0 {
		return 0
	}
	c, err := js.OrderedConsumer(ctx, stream, jetstream.OrderedConsumerConfig{})
	if err != nil {
		t.Fatal(err)
	}
	// Distinct stream sequences up to the last one: a consumer reset just after the recovery
	// may pause or deliver again.
	seen := map[uint64]bool{}
	for last := info.State.LastSeq; ; {
		batch, err := c.Fetch(500, jetstream.FetchMaxWait(2*time.Second))
		if err != nil && ctx.Err() != nil {
			t.Fatalf("read %d of %d messages: %v", len(seen), info.State.Msgs, err)
		}
		if err != nil {
			continue
		}
		for m := range batch.Messages() {
			if md, err := m.Metadata(); err == nil {
				seen[md.Sequence.Stream] = true
				if md.Sequence.Stream >= last {
					return int64(len(seen))
				}
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("read %d of %d messages, then nothing", len(seen), info.State.Msgs)
		}
	}
}
