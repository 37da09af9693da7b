package embedded

import (
	"testing"
	"time"
)

func TestOptionsDefaults(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		in      Options
		want    Options
		wantErr bool
	}{
		{name: "zero value is a single node",
			want: Options{Nodes: 1, Host: "127.0.0.1", JetStreamMaxMemory: 1 << 30, JetStreamMaxStore: 10 << 30, ReadyTimeout: 10 * time.Second}},
		{name: "clusters wait longer", in: Options{Nodes: 3},
			want: Options{Nodes: 3, Host: "127.0.0.1", JetStreamMaxMemory: 1 << 30, JetStreamMaxStore: 10 << 30, ReadyTimeout: 30 * time.Second}},
		{name: "given values stay", in: Options{Nodes: 2, Host: "::1", Port: 4222, JetStreamMaxMemory: 5, JetStreamMaxStore: 6, ReadyTimeout: time.Second},
			want: Options{Nodes: 2, Host: "::1", Port: 4222, JetStreamMaxMemory: 5, JetStreamMaxStore: 6, ReadyTimeout: time.Second}},
		{name: "negative nodes", in: Options{Nodes: -1}, wantErr: true},
		{name: "port out of range", in: Options{Port: 70000}, wantErr: true},
		{name: "monitor port out of range", in: Options{HTTPPort: -2}, wantErr: true},
		{name: "negative limit", in: Options{JetStreamMaxStore: -1}, wantErr: true},
		{name: "negative timeout", in: Options{ReadyTimeout: -time.Second}, wantErr: true},
	}
	for _, tt := range tests {
		got, err := tt.in.withDefaults()
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v, wantErr %v", tt.name, err, tt.wantErr)
			continue
		}
		if err == nil && got != tt.want {
			t.Errorf("%s: got %+v, want %+v", tt.name, got, tt.want)
		}
	}
}

func TestDialHost(t *testing.T) {
	t.Parallel()
	for host, want := range map[string]string{
		"127.0.0.1": "127.0.0.1",
		"0.0.0.0":   "127.0.0.1",
		"::":        "127.0.0.1",
		"localhost": "localhost",
	} {
		if got := (Options{Host: host}).dialHost(); got != want {
			t.Errorf("dialHost(%q) = %q, want %q", host, got, want)
		}
	}
}
