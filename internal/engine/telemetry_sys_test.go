package engine

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
)

// Telemetry through the system account ($SYS.REQ.SERVER.PING.VARZ and .JSZ, with the sys
// user's credentials while the clients connect as app) covers all 3 servers, each reading
// under that server's name; a server's messages in and out over the run are what the test's
// own /varz reads before and after it say, less only the sampler's own requests and the
// cluster's chatter outside the sampled window; the stream the test made is there with its
// leader and message count.
func TestTelemetrySysAccountCountsMatchVarz(t *testing.T) {
	nodes := natstest.SysCluster(t)
	url := nodes[0].ClientURL()
	// The test's own connection, as app (credentials in its URL, which natsperf's Spec refuses).
	js := natstest.JetStream(t, strings.Replace(url, "nats://", "nats://app:apppw@", 1))
	natstest.CreateStream(t, js, jetstream.StreamConfig{Name: "systest", Subjects: []string{"systest"}, Replicas: 3})
	for range 5 {
		if _, err := js.Publish(context.Background(), "systest", []byte("x")); err != nil {
			t.Fatal(err)
		}
	}

	s := pubsubSpec(url, 20000, 2)
	s.Target.User, s.Target.Password = "app", "apppw"
	s.Target.SysUser, s.Target.SysPassword = "sys", "syspw"
	before := map[string]*server.Varz{}
	for _, n := range nodes {
		before[n.Name()] = varz(t, n)
	}
	res, err := Execute(context.Background(), s, Options{})
	if err != nil {
		t.Fatal(err)
	}
	tel := res.Telemetry
	if tel == nil || tel.Source != "sys" {
		t.Fatalf("telemetry %+v", tel)
	}
	if len(tel.Errors) > 0 {
		t.Errorf("telemetry errors: %v", tel.Errors)
	}
	if j, err := json.Marshal(res); err != nil || strings.Contains(string(j), "syspw") {
		t.Errorf("the Result holds the system password (or did not marshal: %v)", err)
	}
	if len(tel.Servers) != 3 {
		t.Fatalf("%d servers in the telemetry, want 3: %+v", len(tel.Servers), tel.Servers)
	}
	for _, n := range nodes {
		after := varz(t, n)
		var ss = tel.Servers[0]
		for _, x := range tel.Servers {
			if x.Name == n.Name() {
				ss = x
			}
		}
		if ss.Name != n.Name() || len(ss.Samples) < 2 {
			t.Fatalf("server %s: series %+v", n.Name(), ss)
		}
		first, last := ss.Samples[0], ss.Samples[len(ss.Samples)-1]
		telIn, telOut := last.InMsgs-first.InMsgs, last.OutMsgs-first.OutMsgs
		refIn, refOut := after.InMsgs-before[n.Name()].InMsgs, after.OutMsgs-before[n.Name()].OutMsgs
		t.Logf("%s: %d samples, telemetry in %d out %d, /varz in %d out %d", n.Name(), len(ss.Samples), telIn, telOut, refIn, refOut)
		// The sampler's requests of one round and the cluster's own chatter come to a few
		// dozen messages per server; the run's are 20,000 in and 40,000 out on node 1.
		const slack = 100
		if d := refIn - telIn; d < 0 || d > slack {
			t.Errorf("%s: telemetry in_msgs %d, /varz before/after %d", n.Name(), telIn, refIn)
		}
		if d := refOut - telOut; d < 0 || d > slack {
			t.Errorf("%s: telemetry out_msgs %d, /varz before/after %d", n.Name(), telOut, refOut)
		}
		if n == nodes[0] {
			if telIn < 20000 || telOut < 40000 || telIn > 20000+slack*int64(len(ss.Samples)) {
				t.Errorf("%s, the clients' server: in %d out %d over the run, published 20000 to 2 subscribers", n.Name(), telIn, telOut)
			}
		} else if telIn >= 20000 {
			t.Errorf("%s, no client on it: in %d over the run", n.Name(), telIn)
		}
		if ss.ClockUncertaintyNS <= 0 {
			t.Errorf("%s: no clock offset estimate", n.Name())
		}
		var found bool
		for _, st := range last.Streams {
			if st.Name == "systest" {
				found = st.Msgs == 5 && strings.HasPrefix(st.Leader, "sysn")
			}
		}
		if !found {
			t.Errorf("%s: stream systest (5 msgs, a leader) not in the last sample's streams %+v", n.Name(), last.Streams)
		}
	}
}
