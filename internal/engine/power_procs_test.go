package engine

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/natsperf/natsperf/internal/powerfs"
	"github.com/natsperf/natsperf/internal/procs"
)

// TestPowerFailVerdictProcesses: on three nats-server processes, a power failure of every
// node (SIGKILL at one instant, unsynced writes dropped) loses acknowledged messages under the
// default sync interval, as many as a client of the test then finds missing from the stream
// (or the stream is gone: all lost); with sync_interval always it loses none. Every node's
// own copy is read.
func TestPowerFailVerdictProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("two 8 s runs on 3-process clusters")
	}
	bin := procs.Cached(os.Getenv, "v2.15.3")
	if bin == "" {
		bin = procs.Cached(os.Getenv, "v2.14.10")
	}
	if bin == "" {
		if os.Getenv("CI") != "" {
			t.Fatal("no nats-server v2.15.3 or v2.14.10 release (CI builds them)")
		}
		t.Skip("no nats-server v2.15.3 or v2.14.10 release")
	}
	if err := powerfs.Check(); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal(err)
		}
		t.Skip(err) // FUSE or root missing: the run would be refused the same way
	}
	for _, tc := range []struct {
		name, sync string
		loss       bool
	}{
		{"default sync", "", true},
		{"sync always", "always", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			yaml := fmt.Sprintf(durabilitySpec, "3s:power-fail:all, 4s:restart")
			yaml = strings.Replace(yaml, "duration: 6s", "duration: 8s", 1)
			yaml += fmt.Sprintf("target:\n  embedded: {nodes: 3, server_bin: %q, sync_interval: %q}\n", bin, tc.sync)
			s := parseSpec(t, yaml)
			ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
			defer cancel()
			target, err := OpenSpecTarget(ctx, s, Options{})
			if err != nil {
				t.Fatal(err)
			}
			defer target.Close()
			if target.Procs == nil {
				t.Fatal("the target is not nats-server processes")
			}
			res, err := Execute(ctx, s, Options{Target: target})
			if err != nil {
				t.Fatal(err)
			}
			for _, ev := range res.Faults.Timeline {
				if ev.Error != "" || ev.Skipped {
					t.Fatalf("fault %s: %s", ev.Spec, ev.Error)
				}
				t.Logf("fault %s: %s took %s", ev.Spec, ev.Detail, ev.Took)
			}
			v := res.Verify
			if v == nil || v.Error != "" || v.Acked == 0 || len(v.Unreadable) > 0 {
				t.Fatalf("verify %+v", v)
			}
			t.Logf("acked %d, stored %d, acked-but-missing %d, replicas %+v", v.Acked, v.Stored, v.AckedButMissing, v.Replicas)
			if len(v.Replicas) != 3 {
				t.Errorf("read %d nodes' copies, want 3: %+v", len(v.Replicas), v.Replicas)
			}
			if tc.loss && v.AckedButMissing == 0 {
				t.Errorf("default sync: 0 of %d acknowledged messages lost by a power failure, want some", v.Acked)
			}
			if !tc.loss && v.AckedButMissing != 0 {
				t.Errorf("%d of %d acknowledged messages lost, want none", v.AckedButMissing, v.Acked)
			}
			if own := ownRead(t, target.Procs.URL(), "dur"); own != v.Stored {
				t.Errorf("the verdict found %d stored, a client of the test reads %d", v.Stored, own)
			}
		})
	}
}
