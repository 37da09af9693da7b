package cli

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
)

// TestServerCluster: 'server --cluster 3' prints its client URLs only once JetStream can place
// an R3 stream, and Ctrl-C leaves no port or store behind.
func TestServerCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a 3-node cluster")
	}
	t.Setenv("TMPDIR", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"server", "--cluster", "3", "--port", "0"}, Streams{Out: &out, Err: &errb, Env: envWithHome(t.TempDir())})
	}()
	urlLine := regexp.MustCompile(`Connect with: -s (\S+)`)
	var urls string
	natstest.Eventually(t, 30*time.Second, 20*time.Millisecond, func() error {
		m := urlLine.FindStringSubmatch(out.String())
		if m == nil {
			return fmt.Errorf("no URLs printed: %q %q", out.String(), errb.String())
		}
		urls = m[1]
		return nil
	})
	list := strings.Split(urls, ",")
	if len(list) != 3 {
		t.Fatalf("want 3 client URLs, got %q", urls)
	}
	nc, err := nats.Connect(list[2])
	if err != nil {
		t.Fatal(err)
	}
	js, _ := jetstream.New(nc)
	sctx, scancel := context.WithTimeout(ctx, 5*time.Second)
	_, err = js.CreateStream(sctx, jetstream.StreamConfig{Name: "R3", Replicas: 3, Storage: jetstream.MemoryStorage, MaxBytes: 1 << 20})
	scancel()
	nc.Close()
	if err != nil {
		t.Fatalf("R3 stream right after the URLs were printed: %v", err)
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
	case <-time.After(20 * time.Second):
		t.Fatal("server did not stop")
	}
	for _, u := range list {
		if c, err := net.DialTimeout("tcp", strings.TrimPrefix(u, "nats://"), time.Second); err == nil {
			c.Close()
			t.Fatalf("%s still accepts connections after stop", u)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "natsperf-*")); len(left) > 0 {
		t.Fatalf("store left behind: %v", left)
	}
}

// TestServerClusterCannotForm: a cluster that is not ready within --ready-timeout fails with a
// clear error and leaves nothing behind.
func TestServerClusterCannotForm(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	start := time.Now()
	r := run(context.Background(), t, nil, "server", "--cluster", "3", "--port", "0", "--ready-timeout", "1ms")
	if r.code != exitFailed || !strings.Contains(r.err, "start embedded server") || strings.Contains(r.out, "Connect with") {
		t.Fatalf("exit %d, out %q, err %q: want a start failure", r.code, r.out, r.err)
	}
	if time.Since(start) > 10*time.Second {
		t.Fatalf("took %s to give up", time.Since(start))
	}
	if left, _ := filepath.Glob(filepath.Join(os.Getenv("TMPDIR"), "natsperf-*")); len(left) > 0 {
		t.Fatalf("store left behind: %v", left)
	}
}
