package rustclient

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/natsperf/natsperf/internal/agentproto"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/proctest"
	"github.com/natsperf/natsperf/spec"
)

// TestRustAgentRefusesSpecsAsGoDoes: a Spec that Go's spec package refuses (an unknown key
// at any depth, another version, a secret) is refused by a natsperf-rust agent's prepare with
// 400 and the same message, path included, as Go's spec.ParseJSON gives.
func TestRustAgentRefusesSpecsAsGoDoes(t *testing.T) {
	bin := rustBin(t)
	s := natstest.Server(t, nil)
	proctest.StartRustAgents(t, bin, s.ClientURL(), "natsperf-run=spec", 1)
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	found := proctest.WaitForAgents(t, nc, 1)
	for _, bad := range []string{
		`{"version":"natsperf.spec/v1","workloads":[{"kind":"pub","config":{"subject":"foo","sizee":16}}]}`,
		`{"version":"natsperf.spec/v1","workloads":[{"kind":"sub","config":{"subject":"foo"}},{"kind":"js pub async","config":{"subject":"foo","window":10}}]}`,
		`{"version":"natsperf.spec/v1","workloads":[{"kind":"pub","pacing":{"msg":5},"config":{"subject":"foo"}}]}`,
		`{"version":"natsperf.spec/v1","target":{"servers":["nats://127.0.0.1:4222"],"passwd":"x"},"workloads":[]}`,
		`{"version":"natsperf.spec/v1","setup":{"streams":[{"name":"s","replica":3}]},"workloads":[]}`,
		`{"version":"natsperf.spec/v1","workloads":[],"colour":1}`,
		`{"version":"natsperf.spec/v2","workloads":[]}`,
	} {
		_, goErr := spec.ParseJSON([]byte(bad))
		if goErr == nil {
			t.Fatalf("Go's spec accepts %s", bad)
		}
		body := `{"protocol":"` + agentproto.Protocol + `","version":"x","run":"R1","spec":` + bad + `,"part":{"index":0,"count":1}}`
		m, err := nc.Request("natsperf.agent."+found[0].ID+".prepare", []byte(body), 10*time.Second)
		if err != nil {
			t.Fatal(err)
		}
		var e agentproto.ErrorReply
		if err := json.Unmarshal(m.Data, &e); err != nil || e.Code != "400" {
			t.Fatalf("prepare of %s: %s (%v): want a 400", bad, m.Data, err)
		}
		// Go: `spec: workloads[0].config: unknown field "sizee"`; Rust: `agent NAME: spec: ...`.
		if !strings.HasSuffix(e.Error, ": "+goErr.Error()) {
			t.Errorf("spec %s:\n Rust: %s\n   Go: %s", bad, e.Error, goErr)
		}
	}
}
