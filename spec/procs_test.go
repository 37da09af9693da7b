package spec

import (
	"strings"
	"testing"
)

func TestValidateServerProcesses(t *testing.T) {
	for _, tc := range []struct {
		name string
		e    Embedded
		want string
	}{
		{"version", Embedded{Nodes: 3, ServerVersion: "v2.12.15"}, ""},
		{"binary", Embedded{ServerBin: "/usr/local/bin/nats-server"}, ""},
		{"both", Embedded{ServerBin: "/x", ServerVersion: "v2.12.15"}, "exclude each other"},
		{"no tag", Embedded{ServerVersion: "2.12"}, "release tag"},
		{"encrypted", Embedded{ServerVersion: "v2.15.3", Encryption: "aes"}, "not yet"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := &Spec{Version: Version, Workloads: []Workload{{Config: &Pub{Subject: "foo"}}}}
			s.Target.Embedded = &tc.e
			err := s.Validate()
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("Validate: %v, want %q", err, tc.want)
			}
		})
	}
}
