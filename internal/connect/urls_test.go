package connect

import (
	"reflect"
	"strings"
	"testing"
)

func TestURLs(t *testing.T) {
	tests := []struct {
		servers string
		want    []string
		errHas  string // "" means success
	}{
		{servers: "nats://h:4222", want: []string{"nats://h:4222"}},
		{servers: "h", want: []string{"nats://h:4222"}},
		{servers: "h:5000", want: []string{"nats://h:5000"}},
		{servers: "tls://h", want: []string{"tls://h:4222"}},
		{servers: "NATS://h", want: []string{"nats://h:4222"}},
		{servers: "ws://h", want: []string{"ws://h:80"}},
		{servers: "wss://h", want: []string{"wss://h:443"}},
		{servers: "nats://[::1]", want: []string{"nats://[::1]:4222"}},
		{servers: "nats://u:p@h", want: []string{"nats://u:p@h:4222"}},
		{servers: " nats://a:1 , ,nats://b:2 ", want: []string{"nats://a:1", "nats://b:2"}},
		{servers: "nats://h:4222/", want: []string{"nats://h:4222"}},

		{servers: "", errHas: "no server URL given"},
		{servers: " , ", errHas: "no server URL given"},
		{servers: "http://h:4222", errHas: `unsupported scheme "http"`},
		{servers: "nats://h:abc", errHas: `invalid server URL "nats://h:abc"`},
		{servers: "nats://h:0", errHas: `invalid port "0"`},
		{servers: "nats://h:70000", errHas: `invalid port "70000"`},
		{servers: "nats://:4222", errHas: "missing host"},
		{servers: "nats://h:4222/path", errHas: "no path"},
		{servers: "nats://h?x=1", errHas: "no path, query"},
		{servers: "nats://a, ws://b", errHas: "cannot mix websocket"},
		{servers: "nats://u:hunter2@h:bad", errHas: `"nats://[redacted]@h:bad"`},
	}
	for _, tt := range tests {
		t.Run(tt.servers, func(t *testing.T) {
			got, err := Settings{Servers: tt.servers}.URLs()
			if tt.errHas == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
				if !reflect.DeepEqual(got, tt.want) {
					t.Fatalf("got %q, want %q", got, tt.want)
				}
				return
			}
			if err == nil {
				t.Fatalf("want error containing %q, got %q", tt.errHas, got)
			}
			msg := err.Error()
			if !strings.Contains(msg, tt.errHas) || !strings.HasPrefix(msg, "--server: ") {
				t.Errorf("error %q should start with --server and contain %q", msg, tt.errHas)
			}
			if strings.Contains(msg, "hunter2") || strings.Contains(msg, "\n") {
				t.Errorf("error leaks a secret or spans lines: %q", msg)
			}
		})
	}
}
