package connect

import (
	"testing"

	"github.com/natsperf/natsperf/spec"
)

// TestWithSettings: a target given an agent's own connection takes its servers and
// credentials (out of the URL, as a Spec keeps them) and keeps what is not a connection:
// monitoring endpoints and the system account user.
func TestWithSettings(t *testing.T) {
	base := spec.Target{JSDomain: "old", Monitor: []string{"http://m:8222"}, SysUser: "sys", SysPassword: "s3"}
	got := WithSettings(base, Settings{Servers: "nats://u:p@h:4222", JS: JS{Domain: "hub"}})
	if len(got.Servers) != 1 || got.Servers[0] != "nats://h:4222" || got.User != "u" || got.Password != "p" {
		t.Errorf("connection %+v, want nats://h:4222 with u/p in the fields", got)
	}
	if got.JSDomain != "hub" || len(got.Monitor) != 1 || got.SysUser != "sys" || got.SysPassword != "s3" {
		t.Errorf("target %+v: want the settings' domain, the target's monitor and system user", got)
	}
	if back := FromSpec(got); back.User != "u" || back.Password != "p" || back.Domain != "hub" {
		t.Errorf("settings read back %+v", back)
	}
}
