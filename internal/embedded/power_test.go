package embedded

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/powerfs"
)

// powerOptions is a 3-node cluster with its stores on powerfs, or a skip without FUSE
// (a failure under CI).
func powerOptions(t *testing.T, sync string) Options {
	t.Helper()
	if err := powerfs.Check(); err != nil {
		t.Skip(err) // FUSE or root missing: the run would be refused the same way
	}
	o := testOptions(3)
	o.PowerFail, o.Sync = true, sync
	return o
}

// TestPowerFail: with the default 2-minute sync interval a power failure of every node drops
// acknowledged messages of an R3 stream, and RestartAll brings the cluster back.
func TestPowerFail(t *testing.T) {
	if testing.Short() {
		t.Skip("starts two 3-node clusters")
	}
	for _, tc := range []struct {
		sync     string
		wantLoss bool
	}{{"", true}} { // always: TestPowerFailVerdict (internal/engine), end to end
		t.Run("sync="+tc.sync, func(t *testing.T) {
			c := startT(t, powerOptions(t, tc.sync))
			js := newJS(t, connect(t, c.URL()))
			ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
			defer cancel()
			if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "P", Subjects: []string{"p"}, Replicas: 3}); err != nil {
				t.Fatal(err)
			}
			const n = 200
			for i := range n {
				if _, err := js.Publish(ctx, "p", []byte{byte(i)}); err != nil {
					t.Fatal(err)
				}
			}
			detail, err := c.PowerFail([]int{1, 2, 3})
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(detail, "dropped ") {
				t.Errorf("detail %q", detail)
			}
			if u := c.ClientURLs(); len(u) != 0 {
				t.Fatalf("nodes still running after the power failure: %v", u)
			}
			if err := c.RestartAll([]int{1, 2, 3}); err != nil {
				t.Fatal(err)
			}
			js = newJS(t, connect(t, c.URL()))
			stored := storedAfter(ctx, t, js, "P")
			if tc.wantLoss && stored >= n {
				t.Errorf("default sync: %d of %d acknowledged messages after the power failure, want some lost", stored, n)
			}
			if !tc.wantLoss && stored != n {
				t.Errorf("sync always: %d of %d acknowledged messages after the power failure, want all", stored, n)
			}
		})
	}
}

// storedAfter is how many messages the stream holds once it answers again: 0 when it is gone.
func storedAfter(ctx context.Context, t *testing.T, js jetstream.JetStream, name string) uint64 {
	t.Helper()
	for {
		s, err := js.Stream(ctx, name)
		if errors.Is(err, jetstream.ErrStreamNotFound) {
			return 0
		}
		if err == nil {
			if info, err := s.Info(ctx); err == nil && info.Cluster != nil && info.Cluster.Leader != "" {
				return info.State.Msgs
			}
		}
		if ctx.Err() != nil {
			t.Fatalf("stream %s never answered: %v", name, err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestPowerFailRefusedWithoutFUSE(t *testing.T) {
	t.Setenv(powerfs.DeviceEnv, "/nonexistent/fuse")
	o := testOptions(3)
	o.PowerFail = true
	_, err := Start(context.Background(), o)
	if !errors.Is(err, powerfs.ErrNoFUSE) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("Start without FUSE: %v", err)
	}
}
