package embedded

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
)

// storeHolds reports whether any file under dir contains b.
func storeHolds(t *testing.T, dir string, b []byte) bool {
	t.Helper()
	found := false
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || found {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil // a block swapped meanwhile
		}
		found = bytes.Contains(data, b)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return found
}

// publishMarked stores msgs messages whose payload holds marker in a new file stream of the
// given replicas, and reads each back intact.
func publishMarked(t *testing.T, c *Cluster, replicas, msgs int, marker []byte) {
	t.Helper()
	js := newJS(t, connect(t, c.URL()))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "SECRET", Subjects: []string{"secret"}, Storage: jetstream.FileStorage, Replicas: replicas})
	if err != nil {
		t.Fatal(err)
	}
	for i := range msgs {
		if _, err := js.Publish(ctx, "secret", fmt.Appendf(nil, "%d:%s", i, marker)); err != nil {
			t.Fatalf("publish %d: %v", i, err)
		}
	}
	for i := range msgs {
		m, err := s.GetMsg(ctx, uint64(i+1))
		if err != nil {
			t.Fatalf("get %d: %v", i+1, err)
		}
		if want := fmt.Appendf(nil, "%d:%s", i, marker); !bytes.Equal(m.Data, want) {
			t.Fatalf("message %d reads back as %q, want %q", i+1, m.Data, want)
		}
	}
}

// With encryption at rest, no file of the store holds a message's payload bytes; without it,
// the message blocks do. Every message still reads back intact.
func TestEncryptionKeepsPayloadsOffTheDisk(t *testing.T) {
	marker := []byte("natsperf-plaintext-marker-" + strings.Repeat("x", 40))
	for _, tc := range []struct {
		enc     string
		nodes   int
		onDisk  bool
		keyFrom string
	}{
		{enc: "none", nodes: 1, onDisk: true},
		{enc: "aes", nodes: 1},
		{enc: "chacha", nodes: 1, keyFrom: "given"},
		{enc: "aes", nodes: 3},
	} {
		t.Run(fmt.Sprintf("%s-%dnode-%s", tc.enc, tc.nodes, tc.keyFrom), func(t *testing.T) {
			o := testOptions(tc.nodes)
			o.StoreDir, o.Encryption = t.TempDir(), tc.enc
			if tc.keyFrom == "given" {
				o.EncryptionKey = "a-key-the-test-gives-0123456789"
			}
			c := startT(t, o)
			if got := c.Encryption(); got != tc.enc {
				t.Fatalf("Encryption() = %q, want %q", got, tc.enc)
			}
			const msgs = 50
			publishMarked(t, c, tc.nodes, msgs, marker)
			// The server writes its blocks through a buffer: look once every replica's blocks
			// on disk hold at least the payloads' size.
			natstest.Eventually(t, 10*time.Second, 50*time.Millisecond, func() error {
				n, err := c.StreamDiskBytes("SECRET")
				if want := uint64(tc.nodes * msgs * len(marker)); err != nil || n < want {
					return fmt.Errorf("%d bytes of blocks on disk (%v), want at least %d", n, err, want)
				}
				return nil
			})
			if got := storeHolds(t, o.StoreDir, marker); got != tc.onDisk {
				t.Fatalf("store holds the payload: %v, want %v", got, tc.onDisk)
			}
			if tc.onDisk {
				return
			}
			if d := c.Describe(); !strings.Contains(d, "encrypted at rest") || strings.Contains(d, c.opts.EncryptionKey) {
				t.Fatalf("Describe() = %q: want the encryption named and no key", d)
			}
			if storeHolds(t, o.StoreDir, []byte(c.opts.EncryptionKey)) {
				t.Fatal("the key is written into the store")
			}
		})
	}
}

// A key is generated per start when none is given: two servers get different keys.
func TestEncryptionKeyGeneratedPerStart(t *testing.T) {
	a, err := Options{Encryption: "aes"}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	b, err := Options{Encryption: "aes"}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if len(a.EncryptionKey) != 64 || a.EncryptionKey == b.EncryptionKey {
		t.Fatalf("generated keys %q and %q: want two different 32-byte hex keys", a.EncryptionKey, b.EncryptionKey)
	}
	if _, err := (Options{Encryption: "rot13"}).withDefaults(); err == nil || !strings.Contains(err.Error(), "none, aes or chacha") {
		t.Fatalf("an unknown cipher: err = %v", err)
	}
	off, _ := Options{Encryption: "none", EncryptionKey: "k"}.withDefaults()
	if off.Encryption != "" || off.EncryptionKey != "" {
		t.Fatalf("encryption none keeps %+v", off)
	}
}
