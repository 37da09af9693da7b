package rustclient

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"

	"github.com/natsperf/natsperf/internal/natstest"
)

func must[T any](t *testing.T, f func() (T, error)) T {
	t.Helper()
	v, err := f()
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// authServer is a server without JetStream configured by opts.
func authServer(t *testing.T, opts func(*server.Options)) *server.Server {
	return natstest.Server(t, func(o *server.Options) {
		o.JetStream = false
		opts(o)
	})
}

// TestRustConnectionOptions: natsperf-rust reaches servers that demand a token, a user and
// password, an NKey, a creds file (operator mode), a client certificate over TLS, and TLS
// before INFO (--tlsfirst); the server counts the messages it published; wrong credentials
// fail with exit 1; no secret appears in its output or Result.
func TestRustConnectionOptions(t *testing.T) {
	bin := rustBin(t)
	pki := natstest.NewPKI(t)
	ukp := must(t, nkeys.CreateUser)
	seed := writeFile(t, "user.nk", must(t, ukp.Seed))
	other := writeFile(t, "other.nk", must(t, must(t, nkeys.CreateUser).Seed))
	op, creds := natstest.Operator(t)
	_, otherCreds := natstest.Operator(t)
	const secret = "Secret-9f3"
	tests := []struct {
		name   string
		server func(*server.Options)
		scheme string
		args   []string
		ok     bool
	}{
		{"token", func(o *server.Options) { o.Authorization = "tok-" + secret }, "nats", []string{"--token", "tok-" + secret}, true},
		{"wrong token", func(o *server.Options) { o.Authorization = "tok-" + secret }, "nats", []string{"--token", "tok-wrong-" + secret}, false},
		{"user and password", func(o *server.Options) { o.Username, o.Password = "alice", "pw-"+secret }, "nats", []string{"--user", "alice", "--password", "pw-" + secret}, true},
		{"wrong password", func(o *server.Options) { o.Username, o.Password = "alice", "pw-"+secret }, "nats", []string{"--user", "alice", "--password", "pw-wrong-" + secret}, false},
		{"nkey", func(o *server.Options) { o.Nkeys = []*server.NkeyUser{{Nkey: must(t, ukp.PublicKey)}} }, "nats", []string{"--nkey", seed}, true},
		{"unknown nkey", func(o *server.Options) { o.Nkeys = []*server.NkeyUser{{Nkey: must(t, ukp.PublicKey)}} }, "nats", []string{"--nkey", other}, false},
		{"creds", op, "nats", []string{"--creds", creds}, true},
		{"another operator's creds", op, "nats", []string{"--creds", otherCreds}, false},
		{"client certificate", pki.TLS(t, true, false), "tls", []string{"--tls-ca", pki.CA, "--tls-cert", pki.ClientCert, "--tls-key", pki.ClientKey}, true},
		{"no client certificate", pki.TLS(t, true, false), "tls", []string{"--tls-ca", pki.CA}, false},
		{"tls first", pki.TLS(t, false, true), "tls", []string{"--tls-ca", pki.CA, "--tlsfirst"}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := authServer(t, tt.server)
			_, hostPort, _ := strings.Cut(s.ClientURL(), "://")
			url := tt.scheme + "://" + hostPort
			args := append([]string{"pub", "x.auth", "-s", url, "--msgs", "100", "--size", "32", "--connect-timeout", "3s"}, tt.args...)
			p := startRust(t, bin, args...)
			err := <-p.done
			p.done <- err
			out := p.stdout.String() + p.stderr.String()
			if b, rerr := os.ReadFile(p.out); rerr == nil {
				out += string(b)
			}
			if strings.Contains(out, secret) {
				t.Fatalf("a secret leaked into the output or Result:\n%s", out)
			}
			if !tt.ok {
				if err == nil || p.cmd.ProcessState.ExitCode() != 1 {
					t.Fatalf("connected with bad credentials: %v; stderr %s", err, p.stderr.String())
				}
				if lines := strings.Count(strings.TrimSpace(p.stderr.String()), "\n"); lines != 0 {
					t.Fatalf("want one error line, got:\n%s", p.stderr.String())
				}
				return
			}
			code, res, doc := p.wait(t)
			checkSchema(t, doc)
			in, _ := rustConns(t, s)
			if code != 0 || res.Groups[0].Aggregate.Msgs != 100 || in != 100 {
				t.Fatalf("exit %d, sent %d, server received %d from natsperf-rust; want 0, 100, 100; stderr %s", code, res.Groups[0].Aggregate.Msgs, in, p.stderr.String())
			}
		})
	}
}
