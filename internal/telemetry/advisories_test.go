package telemetry

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/natsperf/natsperf/internal/natstest"
	"github.com/natsperf/natsperf/result"
)

func TestEventSubject(t *testing.T) {
	for _, c := range []struct{ subject, prefix, want string }{
		{"$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.>", "", "$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.>"},
		{"$JS.EVENT.ADVISORY.STREAM.LEADER_ELECTED.>", "hub.events", "hub.events.ADVISORY.STREAM.LEADER_ELECTED.>"},
		{"$JS.EVENT.ADVISORY.CONSUMER.MSG_NAKED.>", "js.$JS.EVENT", "js.$JS.EVENT.ADVISORY.CONSUMER.MSG_NAKED.>"},
		{"$SYS.REQ.SERVER.PING", "hub.events", "$SYS.REQ.SERVER.PING"}, // not an event: as nats' jsm.EventSubject
	} {
		if got := EventSubject(c.subject, c.prefix); got != c.want {
			t.Errorf("EventSubject(%q, %q) = %q, want %q", c.subject, c.prefix, got, c.want)
		}
	}
}

// With --js-event-prefix the advisories come from where that prefix says: an account that
// imports another's JetStream advisories under a prefix sees a nak there as an event, and
// a sampler without the prefix in that account sees nothing.
func TestAdvisoriesHonourTheEventPrefix(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "s.conf")
	if err := os.WriteFile(conf, []byte(`accounts {
  JS { jetstream: enabled, users: [{user: js, password: jspw}], exports: [{stream: "$JS.EVENT.ADVISORY.>"}] }
  MON { users: [{user: mon, password: monpw}], imports: [{stream: {account: JS, subject: "$JS.EVENT.ADVISORY.>"}, prefix: "fromjs"}] }
}
`), 0o600); err != nil {
		t.Fatal(err)
	}
	parsed, err := server.ProcessConfigFile(conf)
	if err != nil {
		t.Fatal(err)
	}
	srv := natstest.Server(t, func(o *server.Options) {
		parsed.Host, parsed.Port, parsed.NoSigs, parsed.NoLog = o.Host, o.Port, true, true
		parsed.JetStream, parsed.StoreDir = true, o.StoreDir
		parsed.JetStreamMaxMemory, parsed.JetStreamMaxStore = o.JetStreamMaxMemory, o.JetStreamMaxStore
		*o = *parsed
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	samplers := map[string]*Sampler{}
	for _, prefix := range []string{"fromjs.$JS.EVENT", ""} {
		nc, err := nats.Connect(srv.ClientURL(), nats.UserInfo("mon", "monpw"))
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		smp := &Sampler{Source: Monitor{}, Interval: time.Hour, EventPrefix: prefix}
		stop, err := smp.Subscribe(nc)
		if err != nil {
			t.Fatal(err)
		}
		defer stop()
		go smp.Run(ctx, time.Now())
		samplers[prefix] = smp
	}
	nc, err := nats.Connect(srv.ClientURL(), nats.UserInfo("js", "jspw"))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, _ := jetstream.New(nc)
	natstest.CreateStream(t, js, jetstream.StreamConfig{Name: "advs", Subjects: []string{"advs"}, Storage: jetstream.MemoryStorage})
	cons, err := js.CreateConsumer(ctx, "advs", jetstream.ConsumerConfig{Durable: "c", AckPolicy: jetstream.AckExplicitPolicy})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "advs", []byte("x")); err != nil {
		t.Fatal(err)
	}
	msg, err := cons.Next(jetstream.FetchMaxWait(5 * time.Second))
	if err != nil {
		t.Fatal(err)
	}
	if err := msg.Nak(); err != nil {
		t.Fatal(err)
	}
	nak := func(evs []result.Event) bool {
		for _, e := range evs {
			if e.Kind == "nak" && e.Source == "advisory" && e.Stream == "advs" && e.Consumer == "c" {
				return true
			}
		}
		return false
	}
	natstest.WaitFor(t, 5*time.Second, "the nak advisory under the prefix", func() bool { return nak(samplers["fromjs.$JS.EVENT"].Events()) })
	if evs := samplers[""].Events(); len(evs) != 0 {
		t.Fatalf("without the prefix, the importing account saw %+v", evs)
	}
}
