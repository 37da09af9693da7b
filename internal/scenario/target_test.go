package scenario

import (
	"reflect"
	"strings"
	"testing"

	"github.com/natsperf/natsperf/spec"
)

// TestTargetIsTheSpecs: a scenario's target decodes into spec.Target. The Spec's keys and the
// spellings scenario files have used (the flags': tlscert, tls-insecure, connection-name,
// servers and monitor as one comma-separated string) give the same target; a password in
// the file is kept as the target's secret, which a Spec never writes out.
func TestTargetIsTheSpecs(t *testing.T) {
	const old = `target:
  servers: "nats://127.0.0.1:4222, nats://127.0.0.1:4223"
  user: app
  password: apppw
  tlscert: c.pem
  tlskey: k.pem
  tlsca: ca.pem
  tlsfirst: true
  tls-insecure: true
  connection-name: bench
  js-domain: hub
  inbox-prefix: _IN
  monitor: "sys"
workloads: [{command: pub a}]
`
	const now = `target:
  servers: [nats://127.0.0.1:4222, nats://127.0.0.1:4223]
  user: app
  password: apppw
  tls_cert: c.pem
  tls_key: k.pem
  tls_ca: ca.pem
  tls_first: true
  tls_insecure: true
  connection_name: bench
  js_domain: hub
  inbox_prefix: _IN
  monitor: [sys]
  connect_timeout: 3s
workloads: [{command: pub a}]
`
	target := func(file string) spec.Target {
		t.Helper()
		sc, err := Parse("t.yaml", []byte(file), Options{})
		if err != nil {
			t.Fatal(err)
		}
		return sc.Cells[0].File.Target
	}
	a, b := target(old), target(now)
	if b.ConnectTimeout.D().Seconds() != 3 {
		t.Errorf("connect_timeout %v, want 3s", b.ConnectTimeout.D())
	}
	b.ConnectTimeout = 0
	if !reflect.DeepEqual(a, b) {
		t.Fatalf("the flags' spellings give\n%+v\nthe Spec's\n%+v", a, b)
	}
	want := spec.Target{Servers: []string{"nats://127.0.0.1:4222", "nats://127.0.0.1:4223"}, User: "app", Password: "apppw",
		TLSCert: "c.pem", TLSKey: "k.pem", TLSCA: "ca.pem", TLSFirst: true, TLSInsecure: true, ConnectionName: "bench",
		JSDomain: "hub", InboxPrefix: "_IN", Monitor: []string{"sys"}}
	if !reflect.DeepEqual(a, want) {
		t.Fatalf("target %+v, want %+v", a, want)
	}
	j, err := (&spec.Spec{Version: spec.Version, Target: a}).JSON()
	if err != nil || strings.Contains(string(j), "apppw") {
		t.Errorf("the target written as a Spec shows the password (or failed: %v):\n%s", err, j)
	}
}

// TestTargetAndSetupRefusals: what the Spec refuses in a target or a setup item, a scenario
// refuses at its line with the field's path; an unknown key is named with the closest
// known one; a key given in two spellings, and a setup item's lifecycle (natsperf run's to
// decide), are refused.
func TestTargetAndSetupRefusals(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown key", "target: {servers: \"nats://a:4222\", tlscertt: c.pem}\n", "t.yaml:1:36: target.tlscertt: unknown field (did you mean tls_cert?)"},
		{"two spellings", "target:\n  tlscert: a\n  tls_cert: b\n", "t.yaml:3:3: target.tls_cert: given twice (tlscert and tls_cert)"},
		{"cert without key", "target:\n  servers: nats://a:4222\n  tlscert: c.pem\n", "t.yaml:3:12: target.tls_cert: tls_cert and tls_key go together"},
		{"sys creds and user", "target:\n  servers: nats://a:4222\n  sys_creds: s.creds\n  sys_user: sys\n", "t.yaml:3:14: target.sys_creds: sys_creds and sys_user exclude each other"},
		{"monitor URL", "target:\n  servers: nats://a:4222\n  monitor: ftp://x\n", `target.monitor[0]: "ftp://x" is not a monitoring URL`},
		{"embedded and servers", "target: {embedded: {nodes: 1}, servers: nats://a:4222}\n", "t.yaml:1:9: target: give one of embedded, servers or context"},
		{"lifecycle", "setup:\n  streams:\n    - {name: s, subjects: [a], delete_after: false}\n", "t.yaml:3:32: setup.streams[0].delete_after: natsperf run decides it"},
		{"bucket max bytes", "setup:\n  buckets:\n    - {name: b, max_bytes: -1}\n", "setup.buckets[0].max_bytes: must not be negative"},
		{"no subjects", "setup:\n  streams:\n    - {name: s}\n", "setup.streams[0].subjects: a stream needs subjects"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.yaml", []byte(tc.yaml+"workloads: [{command: pub a}]\n"), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error\n%v\nlacks %q", err, tc.want)
			}
		})
	}
}
