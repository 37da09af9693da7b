package agent

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/micro"

	"github.com/natsperf/natsperf/internal/agentproto"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/spec"
)

func startAgent(t *testing.T, url string, allowExec bool) (*Agent, *nats.Conn) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	a, err := Start(ctx, Config{
		Control: connect.Settings{Servers: url}, Target: connect.Settings{Servers: url},
		Name: "t1", Labels: map[string]string{"zone": "a"}, Version: "v9.9.9", AllowExec: allowExec,
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cancel(); a.Close() })
	nc, err := nats.Connect(url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return a, nc
}

// ask sends a request to the agent's endpoint and returns the reply's error code ("" when ok)
// and message.
func ask(t *testing.T, nc *nats.Conn, a *Agent, endpoint string, v any) (code, msg string) {
	t.Helper()
	b, _ := json.Marshal(v)
	m, err := nc.Request(agentproto.Endpoint(a.ID(), endpoint), b, 30*time.Second)
	if err != nil {
		t.Fatalf("%s: %v", endpoint, err)
	}
	if e := m.Header.Get(micro.ErrorHeader); e != "" {
		var body agentproto.ErrorReply
		if err := json.Unmarshal(m.Data, &body); err != nil || body.Error != e || body.Code != m.Header.Get(micro.ErrorCodeHeader) {
			t.Fatalf("%s: error body %q does not repeat the headers (%q, %q)", endpoint, m.Data, e, m.Header.Get(micro.ErrorCodeHeader))
		}
		return body.Code, body.Error
	}
	var ok agentproto.OK
	if endpoint != "clock" && (json.Unmarshal(m.Data, &ok) != nil || !ok.OK) {
		t.Fatalf("%s: reply %q", endpoint, m.Data)
	}
	return "", ""
}

// beat plays the coordinator's heartbeat for run until the test ends.
func beat(t *testing.T, nc *nats.Conn, run string) {
	t.Helper()
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		for {
			b, _ := json.Marshal(agentproto.CoordinatorHeartbeat{Run: run, AtNS: time.Now().UnixNano()})
			_ = nc.Publish(agentproto.CoordinatorBeat(run), b)
			select {
			case <-done:
				return
			case <-time.After(200 * time.Millisecond):
			}
		}
	}()
}

func prepareReq(t *testing.T, url, run, version string, exec bool) agentproto.Prepare {
	t.Helper()
	s := &spec.Spec{Version: spec.Version, Target: spec.Target{Servers: []string{url}},
		Workloads: []spec.Workload{{Clients: 2, Pacing: spec.Pacing{Msgs: 1000}, Config: &spec.Pub{Subject: "agent.test"}}}}
	if exec {
		s.Faults.Exec = []string{"1s:true"}
	}
	j, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return agentproto.Prepare{Protocol: agentproto.Protocol, Version: version, Run: run, Spec: j, Part: agentproto.Part{Index: 0, Count: 1}}
}

// The agent registers the micro service the protocol names, with its metadata, and answers
// micro's INFO.
func TestAgentRegistersMicroService(t *testing.T) {
	srv := natstest.Server(t, nil)
	a, nc := startAgent(t, srv.ClientURL(), false)
	subject, _ := micro.ControlSubject(micro.InfoVerb, agentproto.ServiceName, a.ID())
	m, err := nc.Request(subject, nil, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	var info micro.Info
	if err := json.Unmarshal(m.Data, &info); err != nil {
		t.Fatal(err)
	}
	md := info.Metadata
	if info.Name != agentproto.ServiceName || info.Version != "9.9.9" || md["protocol"] != agentproto.Protocol ||
		md["natsperf_version"] != "v9.9.9" || md["name"] != "t1" || md["label.zone"] != "a" || md["client"] != "go" || md["cores"] == "" {
		t.Fatalf("info %+v", info)
	}
	eps := map[string]bool{}
	for _, e := range info.Endpoints {
		eps[e.Subject] = true
	}
	for _, e := range []string{"clock", "prepare", "start", "stop"} {
		if !eps[agentproto.Endpoint(a.ID(), e)] {
			t.Fatalf("no %s endpoint in %+v", e, info.Endpoints)
		}
	}
}

// The refusals of the protocol: another version (426), --fault-exec without --allow-exec
// (403), a second run while busy (409), a start of a run it does not have (409); stop of an
// unknown run is fine, and stop frees the agent.
func TestAgentRefusals(t *testing.T) {
	srv := natstest.Server(t, nil)
	url := srv.ClientURL()
	a, nc := startAgent(t, url, false)
	if code, msg := ask(t, nc, a, "prepare", prepareReq(t, url, "R0", "v1.0.0", false)); code != agentproto.CodeVersion || !strings.Contains(msg, "v1.0.0") || !strings.Contains(msg, "v9.9.9") {
		t.Fatalf("other version: %s %s", code, msg)
	}
	if code, msg := ask(t, nc, a, "prepare", prepareReq(t, url, "R0", "v9.9.9", true)); code != agentproto.CodeExec || !strings.Contains(msg, "--allow-exec") {
		t.Fatalf("exec: %s %s", code, msg)
	}
	beat(t, nc, "R1")
	if code, _ := ask(t, nc, a, "start", agentproto.Start{Run: "nope"}); code != agentproto.CodeBusy {
		t.Fatalf("start of an unknown run: %q", code)
	}
	if code, msg := ask(t, nc, a, "prepare", prepareReq(t, url, "R1", "v9.9.9", false)); code != "" {
		t.Fatalf("prepare: %s %s", code, msg)
	}
	if code, msg := ask(t, nc, a, "prepare", prepareReq(t, url, "R2", "v9.9.9", false)); code != agentproto.CodeBusy || !strings.Contains(msg, "busy with run R1") {
		t.Fatalf("second prepare: %s %s", code, msg)
	}
	sub, err := nc.SubscribeSync(agentproto.RunWildcard("R1"))
	if err != nil {
		t.Fatal(err)
	}
	if code, _ := ask(t, nc, a, "stop", agentproto.Stop{Run: "unknown"}); code != "" {
		t.Fatalf("stop of an unknown run: %q", code)
	}
	if code, _ := ask(t, nc, a, "stop", agentproto.Stop{Run: "R1"}); code != "" {
		t.Fatalf("stop: %q", code)
	}
	// The stopped run's end is published (no Result: it never started).
	for {
		m, err := sub.NextMsg(10 * time.Second)
		if err != nil {
			t.Fatal("no result after stop:", err)
		}
		if strings.HasSuffix(m.Subject, ".result") {
			var ch agentproto.ResultChunk
			if err := json.Unmarshal(m.Data, &ch); err != nil || ch.Error == "" || ch.Chunks != 1 {
				t.Fatalf("result %q", m.Data)
			}
			break
		}
	}
	if code, msg := ask(t, nc, a, "prepare", prepareReq(t, url, "R3", "v9.9.9", false)); code != "" {
		t.Fatalf("prepare after stop: %s %s", code, msg)
	}
}

// A prepared run that is started runs, beats its heart and publishes its Result.
func TestAgentRunsAndPublishesResult(t *testing.T) {
	srv := natstest.Server(t, nil)
	url := srv.ClientURL()
	a, nc := startAgent(t, url, false)
	sub, err := nc.SubscribeSync(agentproto.RunWildcard("R1"))
	if err != nil {
		t.Fatal(err)
	}
	beat(t, nc, "R1")
	if code, msg := ask(t, nc, a, "prepare", prepareReq(t, url, "R1", "v9.9.9", false)); code != "" {
		t.Fatalf("prepare: %s %s", code, msg)
	}
	if code, _ := ask(t, nc, a, "start", agentproto.Start{Run: "R1", AtNS: time.Now().UnixNano()}); code != "" {
		t.Fatalf("start: %q", code)
	}
	beats := 0
	for {
		m, err := sub.NextMsg(30 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(m.Subject, "."+a.ID()+".hb") {
			beats++
			continue
		}
		if !strings.HasSuffix(m.Subject, ".result") {
			continue // the coordinator's own beat
		}
		var ch agentproto.ResultChunk
		if err := json.Unmarshal(m.Data, &ch); err != nil || ch.Error != "" || ch.Chunks != 1 || ch.Agent != a.ID() {
			t.Fatalf("result %q", m.Data)
		}
		var res struct {
			Command string `json:"command"`
			Groups  []struct {
				Aggregate struct{ Msgs int64 } `json:"aggregate"`
			} `json:"groups"`
		}
		if err := json.Unmarshal(ch.Data, &res); err != nil || res.Command != "pub" || res.Groups[0].Aggregate.Msgs != 1000 {
			t.Fatalf("Result %+v (%v)", res, err)
		}
		break
	}
	if beats == 0 {
		t.Fatal("no heartbeat")
	}
}

// A prepared run whose coordinator goes silent is stopped after the loss bound, and the
// agent is free again.
func TestAgentStopsWhenCoordinatorSilent(t *testing.T) {
	srv := natstest.Server(t, nil)
	url := srv.ClientURL()
	a, nc := startAgent(t, url, false)
	sub, err := nc.SubscribeSync(agentproto.RunSubject("R1", a.ID(), "result"))
	if err != nil {
		t.Fatal(err)
	}
	if code, msg := ask(t, nc, a, "prepare", prepareReq(t, url, "R1", "v9.9.9", false)); code != "" {
		t.Fatalf("prepare: %s %s", code, msg)
	}
	start := time.Now()
	m, err := sub.NextMsg(30 * time.Second)
	if err != nil {
		t.Fatal("no result:", err)
	}
	if took := time.Since(start); took < time.Duration(agentproto.LossAfter)/2 {
		t.Fatalf("stopped after %v, before the loss bound", took)
	}
	var ch agentproto.ResultChunk
	if err := json.Unmarshal(m.Data, &ch); err != nil || ch.Error == "" {
		t.Fatalf("result %q", m.Data)
	}
	natstest.Eventually(t, 10*time.Second, 20*time.Millisecond, func() error {
		if code, msg := ask(t, nc, a, "prepare", prepareReq(t, url, "R2", "v9.9.9", false)); code != "" {
			return errors.New(msg)
		}
		return nil
	})
}
