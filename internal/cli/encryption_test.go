package cli

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/internal/embedded"
	"github.com/natsperf/natsperf/internal/scenario"
	"github.com/natsperf/natsperf/result"
)

// testKey is a JetStream key handed over in the environment, as a user would.
const testKey = "natsperf-test-key-4f1c9e2b7a6d"

// TestJSEncryptionOnTheEmbeddedServer: --js-encryption aes with the key in $NATSPERF_JS_KEY:
// the Result says the server encrypts with aes, the output names the cipher, and the key
// appears in no output, no Result file and no Spec.
func TestJSEncryptionOnTheEmbeddedServer(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "r.json")
	env := map[string]string{embedded.KeyEnv: testKey}
	for _, args := range [][]string{
		{"js", "pub", "async", "enc", "--msgs", "300", "--size", "256", "--compression", "s2", "--js-encryption", "aes", "-o", file, "--no-progress"},
		{"pubsub", "enc", "--js", "--msgs", "300", "--js-encryption", "chacha", "-o", file, "--json"},
		{"kv", "put", "--msgs", "50", "--js-encryption", "aes", "--compression", "s2", "-o", file, "--no-progress"},
	} {
		t.Run(strings.Join(args[:2], " "), func(t *testing.T) {
			r := run(ctx, t, env, args...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.err)
			}
			want := args[indexOf(args, "--js-encryption")+1]
			if !strings.Contains(r.err, "encrypted at rest") {
				t.Errorf("the embedded server's line does not say it encrypts:\n%s", r.err)
			}
			saved, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			for where, text := range map[string]string{"stdout": r.out, "stderr": r.err, "Result file": string(saved)} {
				if strings.Contains(text, testKey) {
					t.Errorf("the key is in %s", where)
				}
			}
			res, err := result.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Servers) == 0 {
				t.Fatal("no servers in the Result")
			}
			for _, s := range res.Servers {
				if !s.Embedded || s.Encryption != want {
					t.Errorf("server %s: embedded %v, encryption %q; want embedded, %s", s.Name, s.Embedded, s.Encryption, want)
				}
			}
			if len(res.Streams) != 1 || res.Streams[0].DiskBytes == 0 {
				t.Fatalf("streams %+v: want one with its bytes on disk", res.Streams)
			}
		})
	}
	t.Run("spec", func(t *testing.T) {
		r := run(ctx, t, env, "spec", "js", "pub", "async", "enc", "--js-encryption", "aes")
		if r.code != 0 || !strings.Contains(r.out, "encryption: aes") || strings.Contains(r.out+r.err, testKey) {
			t.Fatalf("exit %d: want a target that asks for aes and no key:\n%s%s", r.code, r.out, r.err)
		}
	})
}

func indexOf(args []string, s string) int {
	for i, a := range args {
		if a == s {
			return i
		}
	}
	return -1
}

// TestJSEncryptionBadInput: an unknown cipher, or --js-encryption with a server it cannot
// configure, is one line and exit 2.
func TestJSEncryptionBadInput(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"pub", "x", "--js-encryption", "rot13"}, "none, aes or chacha"},
		{[]string{"js", "pub", "async", "x", "--js-encryption", "aes", "-s", "nats://127.0.0.1:1"}, "configures natsperf's embedded server"},
		{[]string{"server", "--js-encryption", "des"}, "none, aes or chacha"},
		{[]string{"js", "pub", "sync", "x", "--compression", "zstd"}, "--compression must be s2 or none"},
		{[]string{"js", "pub", "sync", "x", "--payload-fill", "random"}, "--payload-fill must be text or zeros"},
		{[]string{"js", "pub", "async", "x", "--client", "rust", "--payload-fill", "zeros"}, "not in natsperf-rust yet"},
		{[]string{"js", "pub", "async", "x", "--client", "rust", "--compression", "s2"}, "natsperf-rust creates its stream uncompressed"},
		{[]string{"run", "x.yaml", "-s", "nats://127.0.0.1:1", "--js-encryption", "aes"}, "configures natsperf's embedded server"},
	} {
		r := run(ctx, t, nil, tc.args...)
		if r.code != exitUsage || !strings.Contains(r.err, tc.want) || strings.Count(strings.TrimSpace(r.err), "\n") > 0 {
			t.Errorf("natsperf %s: exit %d, stderr %q; want exit %d and one line with %q", strings.Join(tc.args, " "), r.code, r.err, exitUsage, tc.want)
		}
	}
}

const encryptionScenario = `name: enc
matrix:
  encryption: [none, aes]
  compression: [none, s2]
target: {embedded: {nodes: 1, encryption: "${encryption}"}}
setup:
  streams:
    - {name: "E", subjects: ["e.>"], compression: "${compression}", maxbytes: 120kb}
workloads:
  - name: w
    command: js pub async e.x --stream E
    flags: {msgs: 100, size: 1kb, payload-fill: zeros}
`

// TestScenarioEncryptionAndCompressionAxes: encryption and compression as matrix axes. Each
// cell's Result says what it ran on (the server's encryption, the stream's compression and
// bytes on disk), s2 cells hold far fewer bytes on disk, and the report states both axes'
// effects; the key, given in the environment, is nowhere in the output or the files.
func TestScenarioEncryptionAndCompressionAxes(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(file, []byte(encryptionScenario), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := run(ctx, t, map[string]string{embedded.KeyEnv: testKey}, "run", file, "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d\n%s\n%s", r.code, r.out, r.err)
	}
	ix, err := scenario.ReadIndex(out)
	if err != nil {
		t.Fatal(err)
	}
	if len(ix.Cells) != 4 {
		t.Fatalf("%d cells, want 4", len(ix.Cells))
	}
	disk := map[string]uint64{}
	for _, c := range ix.Cells {
		res, err := result.ReadFile(filepath.Join(out, c.Runs[0].Result))
		if err != nil {
			t.Fatal(err)
		}
		enc, comp := c.Values["encryption"], c.Values["compression"]
		if res.Servers[0].Encryption != enc {
			t.Errorf("cell %s: server encryption %q, want %q", c.Name, res.Servers[0].Encryption, enc)
		}
		st := streamState(t, res, "E")
		if st.Compression != comp || st.DiskBytes == 0 || st.Messages != 100 {
			t.Errorf("cell %s: stream %+v: want compression %s, 100 messages, bytes on disk", c.Name, st, comp)
		}
		disk[enc+"/"+comp] = st.DiskBytes
	}
	for _, enc := range []string{"none", "aes"} {
		plain, s2 := disk[enc+"/none"], disk[enc+"/s2"]
		if s2*3 > plain {
			t.Errorf("encryption %s: %d bytes on disk with s2, not under a third of %d without", enc, s2, plain)
		}
	}
	rep := run(ctx, t, nil, "report", out)
	if rep.code != 0 {
		t.Fatalf("report: exit %d\n%s", rep.code, rep.err)
	}
	for _, want := range []string{"| encryption |", "| aes vs none |", "| compression |", "| s2 vs none |", "on disk/expected", "on disk / expected"} {
		if !strings.Contains(rep.out, want) {
			t.Errorf("report lacks %q:\n%s", want, rep.out)
		}
	}
	var files strings.Builder
	_ = filepath.WalkDir(out, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			b, _ := os.ReadFile(p)
			files.Write(b)
		}
		return nil
	})
	if strings.Contains(r.out+r.err+rep.out+files.String(), testKey) {
		t.Error("the key is in the output or the run directory")
	}
}
