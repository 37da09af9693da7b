package connect

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestRedacted(t *testing.T) {
	tests := []struct {
		name    string
		in      Settings
		secrets []string // must appear nowhere in the JSON
		keep    []string // must survive: not secrets
	}{
		{
			name:    "password and token fields",
			in:      Settings{User: "alice", Password: "pw-Secret-1", Token: "tok-Secret-2", Creds: "/k/a.creds", TLSCA: "/k/ca.pem"},
			secrets: []string{"pw-Secret-1", "tok-Secret-2"},
			keep:    []string{"alice", "/k/a.creds", "/k/ca.pem", redactedMark},
		},
		{
			name:    "user and password in URLs",
			in:      Settings{Servers: "nats://bob:urlpass-3@h1:4222, tls://carol:urlpass-4@h2"},
			secrets: []string{"urlpass-3", "urlpass-4", "bob", "carol"},
			keep:    []string{"nats://[redacted]@h1:4222", "tls://[redacted]@h2"},
		},
		{
			name:    "token in URL without scheme",
			in:      Settings{Servers: "urltoken-5@h3:4222"},
			secrets: []string{"urltoken-5"},
			keep:    []string{"[redacted]@h3:4222"},
		},
		{
			name:    "unparsable URL with slash and at in password",
			in:      Settings{Servers: "nats://u:pa/ss@w0rd-6@h4:x"},
			secrets: []string{"pa/ss", "w0rd-6"},
			keep:    []string{"@h4:x"},
		},
		{
			name: "nothing secret stays identical",
			in:   Settings{Servers: "nats://h5:4222", Context: "prod", NKey: "/k/u.nk", TLSFirst: true},
			keep: []string{"nats://h5:4222", "prod", "/k/u.nk"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			orig := tt.in
			b, err := json.Marshal(tt.in.Redacted())
			if err != nil {
				t.Fatal(err)
			}
			out := string(b)
			for _, s := range tt.secrets {
				if strings.Contains(out, s) {
					t.Errorf("secret %q leaked: %s", s, out)
				}
			}
			for _, k := range tt.keep {
				if !strings.Contains(out, k) {
					t.Errorf("%q missing from %s", k, out)
				}
			}
			if tt.in != orig {
				t.Error("Redacted modified its receiver")
			}
		})
	}
}

func TestRedactedEmptyStaysEmpty(t *testing.T) {
	b, err := json.Marshal(Settings{}.Redacted())
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "{}" {
		t.Errorf("empty settings redacted to %s, want {} (no invented fields)", b)
	}
}
