package connect

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

func TestOptionsErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing")
	notPEM := writeFile(t, filepath.Join(dir, "not.pem"), []byte("hello"))
	noSeed := writeFile(t, filepath.Join(dir, "bad.creds"), []byte("-----BEGIN NATS USER JWT-----\neyJ0\n------END NATS USER JWT------\n"))
	p := newPKI(t)

	tests := []struct {
		name   string
		in     Settings
		prefix string // the error must start with this
	}{
		{"missing creds", Settings{Creds: missing}, "--creds: open " + missing + ": no such file or directory"},
		{"creds without seed", Settings{Creds: noSeed}, "--creds: " + noSeed + ": "},
		{"creds is a directory", Settings{Creds: dir}, "--creds: read " + dir + ": is a directory"},
		{"missing nkey", Settings{NKey: missing}, "--nkey: open " + missing + ": no such file or directory"},
		{"nkey not a seed", Settings{NKey: notPEM}, "--nkey: " + notPEM + ": "},
		{"missing tlsca", Settings{TLSCA: missing}, "--tlsca: open " + missing + ": no such file or directory"},
		{"tlsca not PEM", Settings{TLSCA: notPEM}, "--tlsca: " + notPEM + ": no PEM certificate found"},
		{"missing tlscert", Settings{TLSCert: missing, TLSKey: p.ClientKey}, "--tlscert: open " + missing},
		{"missing tlskey", Settings{TLSCert: p.ClientCert, TLSKey: missing}, "--tlskey: open " + missing},
		{"cert and key mismatch", Settings{TLSCert: p.ClientCert, TLSKey: p.ServerKey}, "--tlscert, --tlskey: "},
		{"cert without key", Settings{TLSCert: p.ClientCert}, "--tlscert and --tlskey must be given together"},
		{"two auth methods", Settings{User: "u", Password: "secret-pw", Creds: missing}, "--user, --creds: choose one authentication method"},
		{"token and nkey", Settings{Token: "secret-tok", NKey: missing}, "--token, --nkey: choose one"},
		{"password without user", Settings{Password: "secret-pw"}, "--password: given without --user"},
		{"negative timeout", Settings{ConnectTimeout: -time.Second}, "connect timeout must not be negative"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.in.Options()
			if err == nil {
				t.Fatalf("want error starting with %q, got nil", tt.prefix)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, tt.prefix) {
				t.Errorf("error %q does not start with %q", msg, tt.prefix)
			}
			if strings.Contains(msg, "secret-") || strings.Contains(msg, "\n") {
				t.Errorf("error leaks a secret or spans lines: %q", msg)
			}
		})
	}
}

// TestOptionsApplied applies the options to nats.Options to see they set
// what the settings say, and nothing for what they do not.
func TestOptionsApplied(t *testing.T) {
	p := newPKI(t)
	seed := writeFile(t, filepath.Join(t.TempDir(), "user.nk"), must(t, must(t, nkeys.CreateUser).Seed))

	tests := []struct {
		name  string
		in    Settings
		check func(t *testing.T, o nats.Options)
	}{
		{"defaults", Settings{}, func(t *testing.T, o nats.Options) {
			if o.Timeout != DefaultConnectTimeout || o.Secure || o.User != "" || o.Token != "" || o.TLSConfig != nil {
				t.Errorf("unexpected options: timeout %v secure %v user %q token set %v tls %v",
					o.Timeout, o.Secure, o.User, o.Token != "", o.TLSConfig != nil)
			}
		}},
		{"timeout", Settings{ConnectTimeout: 1500 * time.Millisecond}, func(t *testing.T, o nats.Options) {
			if o.Timeout != 1500*time.Millisecond {
				t.Errorf("timeout %v", o.Timeout)
			}
		}},
		{"user and password", Settings{User: "u", Password: "pw"}, func(t *testing.T, o nats.Options) {
			if o.User != "u" || o.Password != "pw" {
				t.Errorf("user %q password set %v", o.User, o.Password == "pw")
			}
		}},
		{"token", Settings{Token: "tk"}, func(t *testing.T, o nats.Options) {
			if o.Token != "tk" {
				t.Error("token not set")
			}
		}},
		{"nkey", Settings{NKey: seed}, func(t *testing.T, o nats.Options) {
			if !strings.HasPrefix(o.Nkey, "U") || o.SignatureCB == nil {
				t.Errorf("nkey %q, signature callback set %v", o.Nkey, o.SignatureCB != nil)
			}
		}},
		{"TLS files and tls first", Settings{TLSCA: p.CA, TLSCert: p.ClientCert, TLSKey: p.ClientKey, TLSFirst: true}, func(t *testing.T, o nats.Options) {
			if !o.Secure || !o.TLSHandshakeFirst || o.RootCAsCB == nil || o.TLSCertCB == nil {
				t.Errorf("secure %v first %v CA %v cert %v", o.Secure, o.TLSHandshakeFirst, o.RootCAsCB != nil, o.TLSCertCB != nil)
			}
			if o.TLSConfig == nil || o.TLSConfig.InsecureSkipVerify {
				t.Error("verification must stay on without TLSInsecure")
			}
		}},
		{"insecure keeps the CA option", Settings{TLSInsecure: true, TLSCA: p.CA}, func(t *testing.T, o nats.Options) {
			if !o.Secure || o.TLSConfig == nil || !o.TLSConfig.InsecureSkipVerify || o.RootCAsCB == nil {
				t.Errorf("secure %v insecure %v CA %v", o.Secure, o.TLSConfig != nil && o.TLSConfig.InsecureSkipVerify, o.RootCAsCB != nil)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts, err := tt.in.Options()
			if err != nil {
				t.Fatal(err)
			}
			o := nats.GetDefaultOptions()
			for _, opt := range opts {
				if err := opt(&o); err != nil {
					t.Fatal(err)
				}
			}
			tt.check(t, o)
		})
	}
}
