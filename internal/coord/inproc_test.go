package coord

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	"github.com/natsperf/natsperf/internal/agent"
	"github.com/natsperf/natsperf/internal/connect"
	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/internal/result"
	"github.com/natsperf/natsperf/spec"
)

// A target that needs a password: the agents get it next to the Spec (which never holds
// it) and their clients log in with it.
func TestRunPasswordReachesAgents(t *testing.T) {
	srv := natstest.Server(t, func(o *server.Options) { o.Username, o.Password = "bench", "s3cret" })
	url := srv.ClientURL()
	login := connect.Settings{Servers: url, User: "bench", Password: "s3cret"}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	for i := range 2 {
		a, err := agent.Start(ctx, agent.Config{Control: login, Target: login, Name: fmt.Sprintf("p%d", i+1), Version: "vT"})
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
	}
	s := &spec.Spec{Version: spec.Version, Target: spec.Target{Servers: []string{url}, User: "bench", Password: "s3cret"},
		Workloads: []spec.Workload{{Clients: 2, Pacing: spec.Pacing{Msgs: 2000}, Config: &spec.Pub{Subject: "pw.test"}}}}
	res, err := Run(ctx, s, Config{Control: login, Count: 2, Wait: 10 * time.Second, Version: "vT"})
	if err != nil {
		t.Fatal(err)
	}
	if res.Stop.Reason != result.StopCompleted || res.Groups[0].Aggregate.Msgs != 2000 {
		t.Fatalf("stop %+v, %d msgs", res.Stop, res.Groups[0].Aggregate.Msgs)
	}
}
