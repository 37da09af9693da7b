package cli

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/proctest"
)

// TestServerJSEncryptionKeyOutOfTheProcessList: `natsperf server --js-encryption aes` as a
// process of its own, its key in $NATSPERF_JS_KEY: no process's command line holds the key,
// the server's output does not show it, and the store it leaves holds neither the payload a
// client published nor the key.
func TestServerJSEncryptionKeyOutOfTheProcessList(t *testing.T) {
	if testing.Short() {
		t.Skip("builds natsperf")
	}
	bin, err := proctest.Build(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	store := t.TempDir()
	cmd := exec.Command(bin, "server", "--port", "0", "--js-encryption", "aes", "--store-dir", store)
	cmd.Env = append(os.Environ(), embedded.KeyEnv+"="+testKey)
	p := proctest.Start(t, "natsperf server", cmd)
	p.WaitFor(t, "Connect with:", 30*time.Second)
	m := regexp.MustCompile(`-s (nats://\S+)`).FindStringSubmatch(p.Out.String())
	if m == nil || !strings.Contains(p.Out.String(), "encrypted at rest (AES-GCM, the key in $"+embedded.KeyEnv+")") {
		t.Fatalf("no URL or no word on the encryption in:\n%s", p.Out.String())
	}
	marker := []byte("a-payload-natsperf-must-not-leave-in-plaintext")
	js := natstest.JetStream(t, m[1])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "P", Subjects: []string{"p"}, Storage: jetstream.FileStorage}); err != nil {
		t.Fatal(err)
	}
	for range 20 {
		if _, err := js.Publish(ctx, "p", marker); err != nil {
			t.Fatal(err)
		}
	}
	cmdlines, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	if len(cmdlines) == 0 {
		t.Skip("no /proc to read the process list from")
	}
	for _, f := range cmdlines {
		if b, err := os.ReadFile(f); err == nil && bytes.Contains(b, []byte(testKey)) {
			t.Errorf("%s holds the key: %q", f, b)
		}
	}
	p.Signal(syscall.SIGINT)
	if code := p.Wait(t, 30*time.Second); code != 0 {
		t.Fatalf("exit %d", code)
	}
	if strings.Contains(p.Out.String(), testKey) {
		t.Error("the server's output shows the key")
	}
	_ = filepath.WalkDir(store, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, _ := os.ReadFile(path)
		if bytes.Contains(b, marker) || bytes.Contains(b, []byte(testKey)) {
			t.Errorf("%s holds the payload or the key in plaintext", path)
		}
		return nil
	})
}
