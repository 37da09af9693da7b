package cli

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/result"
)

func TestResultDocumentFields(t *testing.T) {
	s := startServer(t, nil)
	file := filepath.Join(t.TempDir(), "run.json")
	res, r := runJSON(context.Background(), t, "pub", "doc", "-s", s.ClientURL(), "--msgs", "500", "--size", "1kb", "-o", file)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.err)
	}
	checks := []struct {
		name string
		ok   bool
	}{
		{"schema", res.Schema == result.Schema},
		{"tool", res.Tool.Name == "natsperf" && res.Tool.Version != "" && res.Tool.Go == runtime.Version()},
		{"command", res.Command == "pub"},
		{"server version from INFO", len(res.Servers) == 1 && res.Servers[0].Version == server.VERSION && res.Servers[0].ID == s.ID()},
		{"server jetstream", len(res.Servers) == 1 && res.Servers[0].JetStream},
		{"host", res.Host.CPUs == runtime.NumCPU() && res.Host.OS == runtime.GOOS && res.Host.Go != ""},
		{"times", !res.Start.IsZero() && !res.End.Before(res.Start)},
		{"stop", res.Stop.Reason == result.StopCompleted},
		{"rates", res.Groups[0].Aggregate.MsgsPerSec > 0 && res.Groups[0].Clients[0].BytesPerSec > 0},
		{"bytes", res.Groups[0].Aggregate.Bytes == 500*1024},
		{"series", len(res.Groups[0].Series) >= 1},
	}
	for _, c := range checks {
		if !c.ok {
			t.Errorf("%s: wrong in %+v", c.name, res)
		}
	}
	settings := decodeSettings(t, res)
	bench, _ := settings["bench"].(map[string]any)
	if bench["msgs"] != float64(500) || bench["size"] != float64(1024) {
		t.Errorf("settings not echoed: %v", settings)
	}
	saved, err := result.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if saved.Groups[0].Aggregate.Msgs != 500 || saved.Start != res.Start {
		t.Errorf("-o file differs from stdout: %+v", saved.Groups[0].Aggregate)
	}
}

func TestSecretsNeverInOutput(t *testing.T) {
	const user, pass, token = "bench", "s3cret-pass", "t0ken-secret"
	tests := []struct {
		name      string
		configure func(*server.Options)
		args      func(url string) []string
		secrets   []string
	}{
		{"user and password flags", func(o *server.Options) { o.Username, o.Password = user, pass },
			func(url string) []string { return []string{"-s", url, "--user", user, "--password", pass} }, []string{pass}},
		{"password in the URL", func(o *server.Options) { o.Username, o.Password = user, pass },
			func(url string) []string {
				return []string{"-s", strings.Replace(url, "nats://", "nats://"+user+":"+pass+"@", 1)}
			}, []string{pass}},
		{"token", func(o *server.Options) { o.Authorization = token },
			func(url string) []string { return []string{"-s", url, "--token", token} }, []string{token}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startServer(t, tt.configure)
			file := filepath.Join(t.TempDir(), "r.json")
			for _, format := range []string{"--json", "--no-progress"} {
				args := append([]string{"pub", "sec", "--msgs", "100", "-o", file, format}, tt.args(s.ClientURL())...)
				r := run(context.Background(), t, nil, args...)
				if r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.err)
				}
				saved, _ := os.ReadFile(file)
				for _, secret := range tt.secrets {
					for where, text := range map[string]string{"stdout": r.out, "stderr": r.err, "file": string(saved)} {
						if strings.Contains(text, secret) {
							t.Errorf("%s %s contains the secret", format, where)
						}
					}
				}
				if !json.Valid(saved) || !strings.Contains(string(saved), "[redacted]") {
					t.Errorf("saved result does not show the redaction")
				}
			}
		})
	}
}

func TestContextFile(t *testing.T) {
	const token = "ctx-token"
	s := startServer(t, func(o *server.Options) { o.Authorization = token })
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "nats", "context")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ctxJSON := `{"url":"` + s.ClientURL() + `","token":"` + token + `"}`
	if err := os.WriteFile(filepath.Join(dir, "bench.json"), []byte(ctxJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name     string
		args     []string
		selected string
		wantCode int
		wantErr  string
	}{
		{"named context", []string{"--context", "bench"}, "", 0, ""},
		{"selected context", nil, "bench", 0, ""},
		{"missing context", []string{"--context", "nope"}, "", exitUsage, "nope"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_ = os.Remove(filepath.Join(home, ".config", "nats", "context.txt"))
			if tt.selected != "" {
				if err := os.WriteFile(filepath.Join(home, ".config", "nats", "context.txt"), []byte(tt.selected), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var out, errb syncBuffer
			code := Run(context.Background(), append([]string{"pub", "ctx", "--msgs", "50", "--json"}, tt.args...), Streams{
				Out: &out, Err: &errb, Env: envWithHome(home),
			})
			if code != tt.wantCode || !strings.Contains(errb.String(), tt.wantErr) {
				t.Fatalf("exit %d stderr %q", code, errb.String())
			}
			if code == 0 {
				res, err := result.Read(strings.NewReader(out.String()))
				if err != nil || res.Servers[0].ID != s.ID() {
					t.Fatalf("did not run against the context's server: %v", err)
				}
				if strings.Contains(errb.String(), "No server given") || strings.Contains(out.String(), token) {
					t.Fatalf("embedded server used or token leaked")
				}
			}
		})
	}
}
