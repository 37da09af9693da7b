package embedded

import (
	"context"
	"errors"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestStartFails covers impossible configurations: each must fail with a
// clear error well within ReadyTimeout and leave no temporary store behind.
func TestStartFails(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	busyPort := busy.Addr().(*net.TCPAddr).Port

	canceled, cancel := context.WithCancel(context.Background())
	cancel()

	tests := []struct {
		name    string
		ctx     context.Context
		opts    func(*Options)
		want    string // in the error text
		wantErr error  // errors.Is target, if any
		fast    bool   // must fail long before ReadyTimeout
	}{
		{name: "single port in use", opts: func(o *Options) { o.Port = busyPort },
			want: strconv.Itoa(busyPort), fast: true},
		{name: "cluster port in use", opts: func(o *Options) { o.Nodes, o.Port = 3, busyPort },
			want: "address already in use", fast: true},
		{name: "pausable port in use", opts: func(o *Options) { o.Pausable, o.Port = true, busyPort },
			want: "address already in use", fast: true},
		// Not a local address: only the server itself finds out, and its
		// fatal log line must end the wait.
		{name: "server cannot listen", opts: func(o *Options) { o.Host = "192.0.2.1" },
			want: "natsperf-n1 failed", fast: true},
		{name: "negative nodes", opts: func(o *Options) { o.Nodes = -1 }, want: "Nodes", fast: true},
		{name: "ctx canceled", ctx: canceled, opts: func(o *Options) { o.Nodes = 3 },
			wantErr: context.Canceled, fast: true},
		{name: "ready timeout", opts: func(o *Options) { o.Nodes, o.ReadyTimeout = 3, 50*time.Millisecond },
			want: "within 50ms", wantErr: ErrNotReady},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			t.Setenv("TMPDIR", tmp) // Start's temp store lands here
			opts := testOptions(1)
			opts.ReadyTimeout = 5 * time.Second
			tt.opts(&opts)
			ctx := tt.ctx
			if ctx == nil {
				ctx = context.Background()
			}

			begin := time.Now()
			c, err := Start(ctx, opts)
			took := time.Since(begin)
			if err == nil {
				c.Shutdown()
				t.Fatal("Start succeeded")
			}
			t.Logf("error after %s: %v", took.Round(time.Millisecond), err)
			if !strings.HasPrefix(err.Error(), "embedded: ") || strings.Contains(err.Error(), "\n") {
				t.Errorf("want a one-line error starting with \"embedded: \", got %q", err)
			}
			if !strings.Contains(err.Error(), tt.want) {
				t.Errorf("error %q does not mention %q", err, tt.want)
			}
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("error %v is not %v", err, tt.wantErr)
			}
			if tt.fast && took > time.Second {
				t.Errorf("took %s, want a fast failure", took)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Errorf("left behind in TMPDIR: %v", left)
			}
		})
	}
}
