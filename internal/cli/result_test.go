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

	"github.com/natsperf/natsperf/result"
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
		{"token in the URL", func(o *server.Options) { o.Authorization = token },
			func(url string) []string { return []string{"-s", withUserinfo(url, token)} }, []string{token}},
		{"token in every URL of a list", func(o *server.Options) { o.Authorization = token },
			func(url string) []string {
				return []string{"-s", withUserinfo(url, token) + "," + withUserinfo(url, token)}
			}, []string{token}},
		{"user and password in NATS_URL", func(o *server.Options) { o.Username, o.Password = user, pass },
			func(url string) []string { return []string{"env:" + withUserinfo(url, user+":"+pass)} }, []string{pass}},
		{"token in NATS_URL", func(o *server.Options) { o.Authorization = token },
			func(url string) []string { return []string{"env:" + withUserinfo(url, token)} }, []string{token}},
		// As the nats CLI, and how the Helm chart passes them (never in argv).
		{"user and password in NATS_USER and NATS_PASSWORD", func(o *server.Options) { o.Username, o.Password = user, pass },
			func(url string) []string {
				return []string{"-s", url, "setenv:NATS_USER=" + user, "setenv:NATS_PASSWORD=" + pass}
			}, []string{pass}},
		{"token in NATS_TOKEN", func(o *server.Options) { o.Authorization = token },
			func(url string) []string { return []string{"-s", url, "setenv:NATS_TOKEN=" + token} }, []string{token}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := startServer(t, tt.configure)
			file := filepath.Join(t.TempDir(), "r.json")
			hist := filepath.Join(t.TempDir(), "r.hgrm")
			for _, format := range []string{"--json", "--no-progress"} {
				args := []string{"pubsub", "sec", "--msgs", "100", "-o", file, "--hist", hist, format}
				env := map[string]string{}
				for _, a := range tt.args(s.ClientURL()) {
					if u, ok := strings.CutPrefix(a, "env:"); ok {
						env["NATS_URL"] = u
						continue
					}
					if kv, ok := strings.CutPrefix(a, "setenv:"); ok {
						k, v, _ := strings.Cut(kv, "=")
						env[k] = v
						continue
					}
					args = append(args, a)
				}
				r := run(context.Background(), t, env, args...)
				if r.code != 0 {
					t.Fatalf("exit %d: %s", r.code, r.err)
				}
				saved, _ := os.ReadFile(file)
				savedHist, _ := os.ReadFile(hist)
				for _, secret := range tt.secrets {
					for where, text := range map[string]string{"stdout": r.out, "stderr": r.err, "file": string(saved), "hist": string(savedHist)} {
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

// withUserinfo puts userinfo (a token, a user, or user:password) into a nats:// URL.
func withUserinfo(url, userinfo string) string {
	return strings.Replace(url, "nats://", "nats://"+userinfo+"@", 1)
}

// TestSecretsNeverInErrors: a URL with a secret that cannot be reached is named, redacted,
// in the error, whatever the form of its userinfo.
func TestSecretsNeverInErrors(t *testing.T) {
	const secret = "t0ken-in-error"
	for _, servers := range []string{
		"nats://" + secret + "@127.0.0.1:1",
		"nats://u:" + secret + "@127.0.0.1:1,nats://" + secret + "@127.0.0.1:2",
		"nats://" + secret + "@127.0.0.1:bad",
	} {
		r := run(context.Background(), t, nil, "pub", "sec", "--msgs", "1", "-s", servers, "--connect-timeout", "500ms", "--json")
		if r.code == 0 || strings.Contains(r.out+r.err, secret) {
			t.Errorf("%s: exit %d, output leaks the secret:\n%s%s", servers, r.code, r.out, r.err)
		}
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
			code := Main(context.Background(), append([]string{"pub", "ctx", "--msgs", "50", "--json"}, tt.args...), Streams{
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

// TestSecretsNeverInScenarioOutput: a scenario whose target URL carries a token writes no file
// (Results, index.json, anything else under -o) and prints nothing that holds it.
func TestSecretsNeverInScenarioOutput(t *testing.T) {
	const token = "scen-t0ken-secret"
	s := startServer(t, func(o *server.Options) { o.Authorization = token })
	dir := t.TempDir()
	file := filepath.Join(dir, "s.yaml")
	yaml := "name: sec\ntarget: {servers: \"" + withUserinfo(s.ClientURL(), token) + "\"}\nworkloads:\n  - name: p\n    command: pub sec.x\n    flags: {msgs: 50}\n"
	if err := os.WriteFile(file, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	r := run(context.Background(), t, nil, "run", file, "-o", out)
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.out, r.err)
	}
	if strings.Contains(r.out+r.err, token) {
		t.Errorf("output leaks the token:\n%s%s", r.out, r.err)
	}
	files := 0
	err := filepath.WalkDir(out, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		files++
		b, err := os.ReadFile(path)
		if err == nil && strings.Contains(string(b), token) {
			t.Errorf("%s holds the token", path)
		}
		return err
	})
	if err != nil || files < 2 {
		t.Fatalf("walked %d files: %v", files, err)
	}
}

// TestSecretsNeverInOutputFromContext: a nats CLI context whose URL carries a token or a
// password leaks neither into the output nor into the -o file.
func TestSecretsNeverInOutputFromContext(t *testing.T) {
	const token = "ctx-url-t0ken"
	s := startServer(t, func(o *server.Options) { o.Authorization = token })
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "nats", "context")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	ctxJSON := `{"url":"` + withUserinfo(s.ClientURL(), token) + `"}`
	if err := os.WriteFile(filepath.Join(dir, "tok.json"), []byte(ctxJSON), 0o600); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "r.json")
	var out, errb syncBuffer
	code := Main(context.Background(), []string{"pub", "ctx", "--msgs", "50", "--json", "--context", "tok", "-o", file}, Streams{
		Out: &out, Err: &errb, Env: envWithHome(home),
	})
	saved, _ := os.ReadFile(file)
	if code != 0 || len(saved) == 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for where, text := range map[string]string{"stdout": out.String(), "stderr": errb.String(), "file": string(saved)} {
		if strings.Contains(text, token) {
			t.Errorf("%s holds the context's token", where)
		}
	}
}
