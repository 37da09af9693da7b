package connect

import (
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The contexts every Resolve case can see, under <home>/.config/nats.
const (
	ctxProd = `{"description":"prod","url":"nats://prod:4222","user":"produser","password":"prodpass",
		"ca":"~/certs/ca.pem","cert":"$CERTS/client.pem","key":"/abs/client-key.pem","tls_first":true}`
	ctxNoURL  = `{"creds":"/k/dev.creds"}`
	ctxNSC    = `{"url":"nats://x","nsc":"nsc://op/acc/user"}`
	ctxOpRef  = `{"url":"nats://x","password":"op://vault/nats/pw-do-not-echo"}`
	ctxBroken = `{"url": `
)

func TestResolve(t *testing.T) {
	tests := []struct {
		name      string
		selected  string   // content of context.txt; "" = no file
		xdg       bool     // put contexts under $XDG_CONFIG_HOME instead of ~/.config
		env       []string // extra environment
		in        Settings
		want      Settings // HOME-relative paths use the "HOME" placeholder
		specified bool
		errHas    string
	}{
		{
			name: "nothing given: embedded server",
			want: Settings{}, specified: false,
		},
		{
			name: "NATS_URL only",
			env:  []string{"NATS_URL", "nats://env:4222"},
			want: Settings{Servers: "nats://env:4222"}, specified: true,
		},
		{
			name: "server flag beats NATS_URL",
			env:  []string{"NATS_URL", "nats://env:4222"},
			in:   Settings{Servers: "nats://flag:4222"},
			want: Settings{Servers: "nats://flag:4222"}, specified: true,
		},
		{
			name: "named context is loaded with paths expanded",
			env:  []string{"CERTS", "/certs"},
			in:   Settings{Context: "prod"},
			want: Settings{
				Servers: "nats://prod:4222", Context: "prod", User: "produser", Password: "prodpass",
				TLSCA: "HOME/certs/ca.pem", TLSCert: "/certs/client.pem", TLSKey: "/abs/client-key.pem", TLSFirst: true,
			},
			specified: true,
		},
		{
			name: "contexts under XDG_CONFIG_HOME",
			xdg:  true,
			in:   Settings{Context: "nourl"},
			want: Settings{Servers: "nats://127.0.0.1:4222", Context: "nourl", Creds: "/k/dev.creds"}, specified: true,
		},
		{
			name: "context without url means the default server",
			in:   Settings{Context: "nourl"},
			want: Settings{Servers: "nats://127.0.0.1:4222", Context: "nourl", Creds: "/k/dev.creds"}, specified: true,
		},
		{
			name:     "selected context used when nothing else names a server",
			selected: "prod\n",
			env:      []string{"CERTS", "/c"},
			want: Settings{
				Servers: "nats://prod:4222", Context: "prod", User: "produser", Password: "prodpass",
				TLSCA: "HOME/certs/ca.pem", TLSCert: "/c/client.pem", TLSKey: "/abs/client-key.pem", TLSFirst: true,
			},
			specified: true,
		},
		{
			name:     "selected context ignored with a server flag",
			selected: "prod",
			in:       Settings{Servers: "nats://flag:4222"},
			want:     Settings{Servers: "nats://flag:4222"}, specified: true,
		},
		{
			name:     "selected context ignored with NATS_URL",
			selected: "prod",
			env:      []string{"NATS_URL", "nats://env:4222"},
			want:     Settings{Servers: "nats://env:4222"}, specified: true,
		},
		{
			name: "NATS_URL overrides the named context's url only",
			env:  []string{"NATS_URL", "nats://env:4222"},
			in:   Settings{Context: "nourl"},
			want: Settings{Servers: "nats://env:4222", Context: "nourl", Creds: "/k/dev.creds"}, specified: true,
		},
		{
			name: "explicit auth replaces the context's auth as a whole",
			in:   Settings{Context: "prod", Creds: "/flag.creds"},
			want: Settings{
				Servers: "nats://prod:4222", Context: "prod", Creds: "/flag.creds",
				TLSCA: "HOME/certs/ca.pem", TLSCert: "/client.pem", TLSKey: "/abs/client-key.pem", TLSFirst: true,
			},
			specified: true,
		},
		{
			name: "explicit TLS fields and timeout override one by one",
			in:   Settings{Context: "prod", Servers: "tls://flag", TLSCA: "/flag-ca.pem", TLSInsecure: true, ConnectTimeout: time.Second},
			want: Settings{
				Servers: "tls://flag", Context: "prod", User: "produser", Password: "prodpass",
				TLSCA: "/flag-ca.pem", TLSCert: "/client.pem", TLSKey: "/abs/client-key.pem", TLSFirst: true,
				TLSInsecure: true, ConnectTimeout: time.Second,
			},
			specified: true,
		},
		{
			name:   "missing named context",
			in:     Settings{Context: "nope"},
			errHas: "--context nope: no such context (looked in HOME/.config/nats/context/nope.json)",
		},
		{name: "context name with separator", in: Settings{Context: "../prod"}, errHas: "invalid context name"},
		{name: "context name with dots", in: Settings{Context: "a..b"}, errHas: "invalid context name"},
		{
			name:     "dangling selected context",
			selected: "gone",
			errHas:   "selected context gone (from HOME/.config/nats/context.txt): no such context",
		},
		{name: "unsupported nsc lookup", in: Settings{Context: "nsc"}, errHas: `field "nsc" is not supported`},
		{name: "secret-store reference", in: Settings{Context: "opref"}, errHas: `field "password" is a secret-store reference`},
		{name: "broken context JSON", in: Settings{Context: "broken"}, errHas: "--context broken: parse HOME/.config/nats/context/broken.json"},
		{name: "bad NATS_URL", env: []string{"NATS_URL", "http://x"}, errHas: `unsupported scheme "http"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			cfg := filepath.Join(home, ".config")
			env := tt.env
			if tt.xdg {
				cfg = filepath.Join(t.TempDir(), "xdg")
				env = append(env, "XDG_CONFIG_HOME", cfg)
			}
			for name, body := range map[string]string{
				"prod": ctxProd, "nourl": ctxNoURL, "nsc": ctxNSC, "opref": ctxOpRef, "broken": ctxBroken,
			} {
				writeFile(t, filepath.Join(cfg, "nats", "context", name+".json"), []byte(body))
			}
			if tt.selected != "" {
				writeFile(t, filepath.Join(cfg, "nats", "context.txt"), []byte(tt.selected))
			}

			got, specified, err := Resolve(tt.in, envOf(home, env...))
			if tt.errHas != "" {
				want := strings.ReplaceAll(tt.errHas, "HOME", home)
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("error %v, want it to contain %q", err, want)
				}
				if strings.Contains(err.Error(), "pw-do-not-echo") {
					t.Errorf("error echoes a secret: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error: %v", err)
			}
			want := tt.want
			for _, p := range []*string{&want.TLSCA, &want.TLSCert, &want.TLSKey} {
				*p = strings.ReplaceAll(*p, "HOME", home)
			}
			if got != want {
				t.Errorf("resolved\n got %+v\nwant %+v", got, want)
			}
			if specified != tt.specified {
				t.Errorf("specified = %v, want %v", specified, tt.specified)
			}
		})
	}
}

func TestResolveWithoutHome(t *testing.T) {
	_, _, err := Resolve(Settings{Context: "prod"}, Env{})
	if err == nil || !strings.Contains(err.Error(), "cannot locate the nats config directory") {
		t.Fatalf("got %v, want a config directory error", err)
	}
	got, specified, err := Resolve(Settings{}, Env{})
	if err != nil || specified || got != (Settings{}) {
		t.Fatalf("empty env: got %+v %v %v, want nothing specified", got, specified, err)
	}
}
