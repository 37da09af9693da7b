package spec

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files")

func ptr[T any](v T) *T { return &v }

func sec(n float64) Duration { return Duration(time.Duration(n * float64(time.Second))) }

// everyKind is one spec per workload kind, every field of the kind's config set, so the golden
// files show and pin every key.
func everyKind() map[string]*Spec {
	pub := JSPublish{Stream: "orders", Subject: "orders.new", Size: 512, MultiSubject: true, MultiSubjectMax: 10, MultiSubjectRandomize: true, Dedup: true, AckTimeout: sec(2),
		Payload: Payload{Random: true, Headers: []string{"X-App:bench"}, Stamp: "header"}}
	cons := JSConsumer{Stream: "orders", Size: 1024, Batch: 100, Filter: "orders.>", Deliver: "all", IdleTimeout: sec(4), AckTimeout: sec(2)}
	dur := JSDurable{Consumer: "bench", Acks: "all", DoubleAck: true, MaxAckPending: 1000, AckWait: sec(30), Force: true}
	stream := Stream{Name: "orders", Subjects: []string{"orders.new", "orders.new.>"}, Storage: "memory", Replicas: 3,
		MaxBytes: ptr(Size(1 << 30)), DedupWindow: ptr(sec(120)), Create: true, Purge: true, Force: true}
	kv := KV{Bucket: "cache", Size: 256, Randomize: 1000, AckTimeout: sec(3)}
	bucket := Bucket{Name: "cache", Storage: "file", Replicas: 3, History: 5, MaxBytes: 1 << 20, Purge: true, Force: true}
	sender := Pacing{Msgs: 100_000, Rate: 2500.5, Duration: sec(10), Sleep: Duration(time.Millisecond)}
	receiver := Pacing{Msgs: 50_000, Sleep: Duration(time.Microsecond)}
	one := func(w Workload, setup Setup) *Spec {
		return &Spec{Version: Version, Name: w.Kind(), Setup: setup, Workloads: []Workload{w}, Warmup: sec(1), Interval: sec(0.5), PacePrecision: Duration(250 * time.Microsecond)}
	}
	streams := Setup{Streams: []Stream{stream}}
	out := map[string]*Spec{
		"pub": one(Workload{Clients: 4, Pacing: sender, Config: &Pub{Subject: "foo", Size: 16384, MultiSubject: true, MultiSubjectMax: 100,
			Payload: Payload{File: "order.json", Headers: []string{"X-App:bench", "X-Tenant:a"}, Stamp: "header"}}}, Setup{}),
		"sub": one(Workload{Clients: 2, Pacing: receiver, Config: &Sub{Subject: "foo", Queue: "workers", MultiSubject: true, IdleTimeout: sec(5), PendingMsgs: 65536, PendingBytes: 64 << 20}}, Setup{}),
		"pubsub": one(Workload{Name: "pod", Instances: 3, Pacing: sender, Config: &PubSub{Subject: "app.bench", Size: 1024, Pubs: 2, Subs: 10,
			Queue: "q", MultiSubject: true, MultiSubjectMax: 50, IdleTimeout: sec(3), PendingMsgs: -1, PendingBytes: -1, SubSleep: Duration(time.Millisecond),
			JS: &PubSubJS{Stream: "orders", SyncPub: true, ConsumerKind: "push", Batch: 200, AckTimeout: sec(5)}}}, streams),
		"service serve":   one(Workload{Clients: 2, Pacing: Pacing{Msgs: 1000, Sleep: Duration(time.Millisecond)}, Config: &ServiceServe{Subject: "svc"}}, Setup{}),
		"service request": one(Workload{Clients: 50, Pacing: sender, Config: &ServiceRequest{Subject: "svc", Size: 64, Timeout: sec(2)}}, Setup{}),
		"js pub sync":     one(Workload{Pacing: sender, Config: &JSPubSync{JSPublish: pub}}, streams),
		"js pub async":    one(Workload{Clients: 2, Pacing: sender, Config: &JSPubAsync{JSPublish: pub, Batch: 250}}, streams),
		"js pub batch":    one(Workload{Pacing: Pacing{Msgs: 10_000, Duration: sec(10)}, Config: &JSPubBatch{JSPublish: pub, Batch: 100}}, streams),
		"js pub fast":     one(Workload{Pacing: sender, Config: &JSPubFast{JSPublish: pub, Batch: 100, MaxOutstandingAcks: 2}}, streams),
		"js ordered":      one(Workload{Clients: 4, Pacing: receiver, Config: &JSOrdered{JSConsumer: cons}}, streams),
		"js consume":      one(Workload{Clients: 4, Pacing: receiver, Config: &JSConsume{JSConsumer: cons, JSDurable: dur}}, streams),
		"js fetch":        one(Workload{Clients: 4, Pacing: receiver, Config: &JSFetch{JSConsumer: cons, JSDurable: dur}}, streams),
		"js push": one(Workload{Clients: 4, Pacing: receiver, Config: &JSPush{JSConsumer: cons, JSDurable: dur, DeliverGroup: "grp",
			FlowControl: ptr(false), Heartbeat: ptr(sec(0))}}, streams),
		"js get sync":  one(Workload{Clients: 2, Pacing: receiver, Config: &JSGetSync{Stream: "orders", Size: 128, Filter: "orders.new", AckTimeout: sec(1)}}, streams),
		"js get batch": one(Workload{Clients: 2, Pacing: receiver, Config: &JSGetBatch{JSGetSync: JSGetSync{Stream: "orders", Size: 128, Filter: "orders.new", AckTimeout: sec(1)}, Batch: 500}}, streams),
		"kv put":       one(Workload{Clients: 4, Pacing: Pacing{Msgs: 10_000, Rate: 500, Duration: sec(10), Sleep: Duration(time.Millisecond)}, Config: &KVPut{KV: kv}}, Setup{Buckets: []Bucket{bucket}}),
		"kv get":       one(Workload{Clients: 16, Pacing: Pacing{Msgs: 10_000}, Config: &KVGet{KV: kv}}, Setup{Buckets: []Bucket{bucket}}),
		"latency":      one(Workload{Pacing: Pacing{Rate: 1000, Duration: sec(5)}, Config: &Latency{Subject: "lat", Size: 512, ServerB: "nats://127.0.0.1:4223"}}, Setup{}),
	}
	// The target and run-level settings once, on the pubsub spec (faults and verify need it).
	ps := out["pubsub"]
	ps.Target = Target{Embedded: &Embedded{Nodes: 3}, ConnectTimeout: sec(5)}
	ps.Faults = Faults{Inject: []string{"4s:kill-leader", "6s:restart", "8s:pause:1s:2"}, Exec: []string{"5s:echo hi"}, ExecTimeout: sec(10)}
	ps.Verify, ps.NoLatency = true, false
	out["pub"].Target = Target{Servers: []string{"nats://127.0.0.1:4222", "nats://127.0.0.1:4223"}, Creds: "/etc/nats/user.creds",
		User: "bench", TLSCert: "c.pem", TLSKey: "k.pem", TLSCA: "ca.pem", TLSFirst: true, TLSInsecure: true, ConnectTimeout: sec(2)}
	out["sub"].Target = Target{Context: "prod", NKey: "/etc/nats/user.nk"}
	out["js pub fast"].Target = Target{Servers: []string{"nats://leaf.example:4222"}, JWT: "/etc/nats/user.jwt", Seed: "/etc/nats/user.nk",
		ConnectionName: "bench", SocksProxy: "socks5://127.0.0.1:1080", NoContext: true, JSDomain: "hub", JSEventPrefix: "$JS.EVENT",
		InboxPrefix: "_INBOX_bench", Timeout: sec(3), Trace: true}
	out["sub"].NoLatency = true
	return out
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", "kinds", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./spec -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs from the golden file:\n%s", path, got)
	}
}

// TestEveryKindGolden pins the JSON and YAML of a spec of every kind, and checks that both
// read back to the same value and write back to the same bytes.
func TestEveryKindGolden(t *testing.T) {
	specs := everyKind()
	if len(specs) != len(Kinds()) {
		t.Fatalf("the test covers %d kinds, the registry has %d", len(specs), len(Kinds()))
	}
	for _, k := range Kinds() {
		s := specs[k]
		t.Run(k, func(t *testing.T) {
			if err := s.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			file := strings.ReplaceAll(k, " ", "-")
			j, err := s.JSON()
			if err != nil {
				t.Fatal(err)
			}
			y, err := s.YAML()
			if err != nil {
				t.Fatal(err)
			}
			golden(t, file+".json", j)
			golden(t, file+".yaml", y)
			for name, data := range map[string][]byte{"json": j, "yaml": y} {
				back, err := Parse(data)
				if err != nil {
					t.Fatalf("%s: Parse: %v", name, err)
				}
				if !reflect.DeepEqual(back, s) {
					t.Errorf("%s: read back differs:\n got %#v\nwant %#v", name, back, s)
				}
				if back.Workloads[0].Kind() != k {
					t.Errorf("%s: kind %q, want %q", name, back.Workloads[0].Kind(), k)
				}
				j2, _ := back.JSON()
				y2, _ := back.YAML()
				if !bytes.Equal(j2, j) || !bytes.Equal(y2, y) {
					t.Errorf("%s: written again, the spec changed", name)
				}
			}
		})
	}
}

// TestZeroConfigRoundTrip: a kind with all defaults writes "config: {}" and reads back.
func TestZeroConfigRoundTrip(t *testing.T) {
	for _, k := range Kinds() {
		s := &Spec{Version: Version, Workloads: []Workload{{Config: kinds[k].new()}}}
		for _, enc := range []func() ([]byte, error){s.JSON, s.YAML} {
			b, err := enc()
			if err != nil {
				t.Fatal(err)
			}
			back, err := Parse(b)
			if err != nil {
				t.Fatalf("%s: %v\n%s", k, err, b)
			}
			if !reflect.DeepEqual(back, s) {
				t.Errorf("%s: read back differs:\n%s", k, b)
			}
		}
	}
}

func TestUnknownFieldRefused(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"top json", `{"version":"natsperf.spec/v1","workloads":[],"colour":1}`, `unknown field "colour"`},
		{"top yaml", "version: natsperf.spec/v1\ncolour: 1\nworkloads: []\n", `unknown field "colour"`},
		{"target", "version: natsperf.spec/v1\ntarget: {servers: [nats://a:4222], passwd: x}\nworkloads: []\n", `target: unknown field "passwd"`},
		{"stream", "version: natsperf.spec/v1\nsetup: {streams: [{name: s, replica: 3}]}\nworkloads: []\n", `setup.streams[0]: unknown field "replica"`},
		{"workload", "version: natsperf.spec/v1\nworkloads: [{kind: pub, clent: 2, config: {subject: foo}}]\n", `workloads[0]: unknown field "clent"`},
		{"config json", `{"version":"natsperf.spec/v1","workloads":[{"kind":"pub","config":{"subject":"foo","sizee":16}}]}`, `workloads[0].config: unknown field "sizee"`},
		{"config yaml", "version: natsperf.spec/v1\nworkloads:\n  - kind: js pub async\n    config: {subject: foo, window: 10}\n", `workloads[0].config: unknown field "window"`},
		{"embedded field of another kind", "version: natsperf.spec/v1\nworkloads: [{kind: js ordered, config: {consumer: x}}]\n", `workloads[0].config: unknown field "consumer"`},
		{"pacing", "version: natsperf.spec/v1\nworkloads: [{kind: pub, pacing: {msg: 5}, config: {subject: foo}}]\n", `workloads[0].pacing: unknown field "msg"`},
		{"unknown kind", "version: natsperf.spec/v1\nworkloads: [{kind: js pull, config: {}}]\n", `workloads[0]: kind: unknown kind "js pull"`},
		{"missing kind", "version: natsperf.spec/v1\nworkloads: [{config: {}}]\n", `workloads[0]: kind: missing`},
		{"version", "version: natsperf.spec/v2\nworkloads: []\n", `version: "natsperf.spec/v2" is not supported`},
		{"no version", "workloads: []\n", `version: missing`},
		{"password", "version: natsperf.spec/v1\ntarget: {password: hunter2}\nworkloads: []\n", `a password or token in a spec is refused`},
		{"redacted token", `{"version":"natsperf.spec/v1","target":{"token":"[redacted]"},"workloads":[]}`, `a password or token in a spec is refused`},
		{"system password", "version: natsperf.spec/v1\ntarget: {sys_password: hunter2}\nworkloads: []\n", `a password or token in a spec is refused`},
		{"duration number", "version: natsperf.spec/v1\nwarmup: 5\nworkloads: []\n", `write it as a string`},
		{"duplicate key", "version: natsperf.spec/v1\nname: a\nname: b\nworkloads: []\n", `key "name" appears twice`},
		{"trailing json", `{"version":"natsperf.spec/v1","workloads":[]} {}`, `unexpected data after the spec`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.in))
			if err == nil {
				t.Fatalf("accepted %q", tc.in)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q does not say %q", err, tc.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
			if strings.Contains(err.Error(), "hunter2") {
				t.Errorf("error shows the secret: %q", err)
			}
		})
	}
}

func TestSecretsNeverWritten(t *testing.T) {
	s := &Spec{Version: Version, Target: Target{Servers: []string{"nats://127.0.0.1:4222"}, User: "u", Password: "hunter2", Token: "s3cr3t",
		SysUser: "sys", SysPassword: "sysp4ss"}, Workloads: []Workload{{Config: &Pub{Subject: "foo"}}}}
	j, _ := s.JSON()
	y, _ := s.YAML()
	for _, out := range []string{string(j), string(y), s.Target.Password.String(), s.Target.Token.GoString()} {
		if strings.Contains(out, "hunter2") || strings.Contains(out, "s3cr3t") || strings.Contains(out, "sysp4ss") {
			t.Fatalf("a secret was written: %s", out)
		}
	}
	if !strings.Contains(string(j), `"password": "[redacted]"`) || !strings.Contains(string(j), `"sys_password": "[redacted]"`) {
		t.Errorf("a password is not marked redacted:\n%s", j)
	}
	if _, err := Parse(j); err == nil {
		t.Error("a spec with a redacted password was read as if it had none")
	}
}

func TestSizeStrings(t *testing.T) {
	s, err := Parse([]byte("version: natsperf.spec/v1\nworkloads: [{kind: pub, config: {subject: foo, size: 16kb}}]\n"))
	if err != nil {
		t.Fatal(err)
	}
	if got := s.Workloads[0].Config.(*Pub).Size; got != 16384 {
		t.Errorf("size 16kb read as %d, want 16384", got)
	}
}

func TestValidate(t *testing.T) {
	base := func(w Workload) *Spec { return &Spec{Version: Version, Workloads: []Workload{w}} }
	pub := func() Workload { return Workload{Config: &Pub{Subject: "foo"}} }
	cases := []struct {
		name string
		mod  func(s *Spec)
		want string // "" means valid
	}{
		{"minimal pub", func(*Spec) {}, ""},
		{"no workloads", func(s *Spec) { s.Workloads = nil }, "workloads: at least one workload is needed"},
		{"no config", func(s *Spec) { s.Workloads[0].Config = nil }, "workloads[0].config: missing"},
		{"empty subject", func(s *Spec) { s.Workloads[0].Config = &Pub{} }, "workloads[0] (pub).config.subject: must not be empty"},
		{"big size", func(s *Spec) { s.Workloads[0].Config = &Pub{Subject: "a", Size: 65 << 20} }, "config.size: 68157440 is larger than NATS' 64 MiB"},
		{"clients", func(s *Spec) { s.Workloads[0].Clients = -1 }, "workloads[0] (pub).clients: must be 1 to 100000"},
		{"interval", func(s *Spec) { s.Interval = Duration(time.Millisecond) }, "interval: must be at least 10ms"},
		{"pace precision too fine", func(s *Spec) { s.PacePrecision = Duration(10 * time.Microsecond) }, "pace_precision: 10µs: the precision must be 50µs to 100ms"},
		{"pace precision too coarse", func(s *Spec) { s.PacePrecision = Duration(time.Second) }, "pace_precision: 1s: the precision must be 50µs to 100ms"},
		{"pace precision", func(s *Spec) { s.PacePrecision = Duration(250 * time.Microsecond) }, ""},
		{"warmup vs duration", func(s *Spec) { s.Warmup = sec(5); s.Workloads[0].Pacing.Duration = sec(5) }, "warmup: 5s must be shorter than"},
		{"rate for receiver", func(s *Spec) { s.Workloads[0] = Workload{Pacing: Pacing{Rate: 10}, Config: &Sub{Subject: "a"}} }, "rate and duration are for senders"},
		{"rate too low", func(s *Spec) { s.Workloads[0].Pacing = Pacing{Rate: 0.1, Duration: sec(1)} }, "sends no message"},
		{"url with password", func(s *Spec) { s.Target.Servers = []string{"nats://u:p@127.0.0.1:4222"} }, "target.servers[0]: credentials in a server URL"},
		{"bad url", func(s *Spec) { s.Target.Servers = []string{"nats://"} }, "target.servers[0]: \"nats://\" is not a server URL"},
		{"embedded and servers", func(s *Spec) { s.Target = Target{Servers: []string{"a:4222"}, Embedded: &Embedded{Nodes: 1}} }, "target.embedded: an embedded server and servers"},
		{"storage", func(s *Spec) { s.Setup.Streams = []Stream{{Name: "s", Storage: "disk"}} }, "setup.streams[0].storage: must be file or memory"},
		{"replicas", func(s *Spec) { s.Setup.Streams = []Stream{{Name: "s", Replicas: 7}} }, "setup.streams[0].replicas: must be 1 to 5"},
		{"stream name", func(s *Spec) { s.Setup.Streams = []Stream{{Name: "a.b"}} }, "setup.streams[0].name: \"a.b\" may not contain"},
		{"duplicate stream", func(s *Spec) { s.Setup.Streams = []Stream{{Name: "a"}, {Name: "a"}} }, "setup.streams[1].name: stream \"a\" is listed twice"},
		{"persist async", func(s *Spec) { s.Setup.Streams = []Stream{{Name: "a", Replicas: 3, PersistAsync: true}} }, "persist_async: needs file storage"},
		{"history", func(s *Spec) { s.Setup.Buckets = []Bucket{{Name: "b", History: 65}} }, "setup.buckets[0].history: must be 1 to 64"},
		{"pubsub clients", func(s *Spec) { s.Workloads[0] = Workload{Clients: 2, Config: &PubSub{Subject: "a"}} }, "clients: pubsub counts its clients"},
		{"consumer kind", func(s *Spec) {
			s.Workloads[0] = Workload{Config: &PubSub{Subject: "a", JS: &PubSubJS{ConsumerKind: "fetch"}}}
		}, "config.js.consumer_kind: must be ordered, pull or push"},
		{"js pub wildcard", func(s *Spec) { s.Workloads[0] = Workload{Config: &JSPubSync{JSPublish{Subject: "a.*"}}} }, "must be a literal subject"},
		{"atomic batch", func(s *Spec) { s.Workloads[0] = Workload{Config: &JSPubBatch{JSPublish{Subject: "a"}, 1001}} }, "config.batch: must be 1 to 1000"},
		{"fast flow window", func(s *Spec) {
			s.Workloads[0] = Workload{Config: &JSPubFast{JSPublish: JSPublish{Subject: "a"}, Batch: 70000}}
		}, "config.batch: must be 1 to 65535"},
		{"jwt without seed", func(s *Spec) { s.Target.JWT = "user.jwt" }, "target.jwt: jwt and seed go together"},
		{"sys alone", func(s *Spec) { s.Target.Monitor = []string{"sys"} }, ""},
		{"sys user", func(s *Spec) { s.Target.SysUser, s.Target.SysPassword = "sys", "pw" }, ""},
		{"sys beside a URL", func(s *Spec) { s.Target.Monitor = []string{"sys", "http://127.0.0.1:8222"} }, "target.monitor[0]: sys (the system account) stands alone"},
		{"sys creds and user", func(s *Spec) { s.Target.SysCreds, s.Target.SysUser = "sys.creds", "sys" }, "target.sys_creds: sys_creds and sys_user exclude each other"},
		{"sys password alone", func(s *Spec) { s.Target.SysPassword = "pw" }, "target.sys_password: goes with sys_user"},
		{"sys user and monitoring URLs", func(s *Spec) {
			s.Target.SysUser, s.Target.Monitor = "sys", []string{"http://127.0.0.1:8222"}
		}, "target.sys_user: the system account's telemetry and monitoring URLs exclude each other"},
		{"socks proxy with a password", func(s *Spec) { s.Target.SocksProxy = "socks5://u:pw@127.0.0.1:1080" }, "target.socks_proxy: credentials in the proxy URL"},
		{"deliver", func(s *Spec) { s.Workloads[0] = Workload{Config: &JSOrdered{JSConsumer{Deliver: "first"}}} }, "config.deliver: must be all, new or last"},
		{"acks", func(s *Spec) { s.Workloads[0] = Workload{Config: &JSFetch{JSDurable: JSDurable{Acks: "some"}}} }, "config.acks: must be explicit, none or all"},
		{"flow control", func(s *Spec) { s.Workloads[0] = Workload{Config: &JSPush{Heartbeat: ptr(Duration(0))}} }, "flow control needs a heartbeat"},
		{"randomize", func(s *Spec) { s.Workloads[0] = Workload{Config: &KVGet{KV{Randomize: -1}}} }, "config.randomize: must not be negative"},
		{"latency pacing", func(s *Spec) { s.Workloads[0] = Workload{Config: &Latency{}} }, "latency needs a rate and a duration"},
		{"latency size", func(s *Spec) {
			s.Workloads[0] = Workload{Pacing: Pacing{Rate: 10, Duration: sec(1)}, Config: &Latency{Size: 8}}
		}, "needs at least 16 bytes"},
		{"latency", func(s *Spec) {
			s.Workloads[0] = Workload{Pacing: Pacing{Rate: 10, Duration: sec(1)}, Config: &Latency{}}
		}, ""},
		{"fault syntax", func(s *Spec) { s.Faults.Inject = []string{"4s:explode"} }, `faults: fault "4s:explode": unknown action`},
		{"fault needs pubsub", func(s *Spec) { s.Faults.Inject = []string{"4s:stepdown"} }, "faults and verify need a pubsub or js pub workload"},
		{"verify needs pubsub", func(s *Spec) { s.Verify = true }, "faults and verify need a pubsub or js pub workload"},
		{"fault on servers", func(s *Spec) {
			s.Target.Servers = []string{"nats://127.0.0.1:4222"}
			s.Workloads[0] = Workload{Config: &PubSub{Subject: "a", JS: &PubSubJS{}}}
			s.Faults.Inject = []string{"4s:kill-leader"}
		}, "needs the embedded server"},
		{"fault node", func(s *Spec) {
			s.Target.Embedded = &Embedded{Nodes: 3}
			s.Workloads[0] = Workload{Config: &PubSub{Subject: "a", JS: &PubSubJS{}}}
			s.Faults.Inject = []string{"4s:kill:5"}
		}, "node 5 does not exist"},
		{"fault ok", func(s *Spec) {
			s.Workloads[0] = Workload{Config: &JSPubAsync{JSPublish: JSPublish{Subject: "a"}}}
			s.Faults.Inject, s.Verify = []string{"4s:kill-leader", "6s:restart"}, true
		}, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := base(pub())
			tc.mod(s)
			err := s.Validate()
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && err == nil:
				t.Fatalf("accepted, want %q", tc.want)
			case err != nil && !strings.Contains(err.Error(), tc.want):
				t.Errorf("error %q does not say %q", err, tc.want)
			case err != nil && strings.Contains(err.Error(), "\n"):
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

// FuzzParse: any input is refused with an error or read into a spec that writes and reads back
// to itself, in both formats; nothing panics.
func FuzzParse(f *testing.F) {
	for _, s := range everyKind() {
		j, _ := s.JSON()
		y, _ := s.YAML()
		f.Add(j)
		f.Add(y)
	}
	f.Add([]byte("version: natsperf.spec/v1\nworkloads: [{kind: pub, config: {subject: foo, size: 1kb}}]\n"))
	f.Add([]byte("a: &a [*a, *a]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse(data)
		if err != nil {
			return
		}
		if s.Target.Password != "" || s.Target.Token != "" {
			t.Fatal("a secret was read")
		}
		for _, enc := range []func() ([]byte, error){s.JSON, s.YAML} {
			b, err := enc()
			if err != nil {
				if hasNilConfig(s) {
					return
				}
				t.Fatalf("read but cannot write: %v", err)
			}
			back, err := Parse(b)
			if err != nil {
				t.Fatalf("written spec does not read back: %v\n%s", err, b)
			}
			if !reflect.DeepEqual(back, s) {
				t.Fatalf("round trip changed the spec:\n%s", b)
			}
		}
	})
}

func hasNilConfig(s *Spec) bool {
	for _, w := range s.Workloads {
		if w.Config == nil {
			return true
		}
	}
	return false
}

// TestYAMLAliasBombs: self-referencing and exponential aliases are refused, not followed.
func TestYAMLAliasBombs(t *testing.T) {
	for name, in := range map[string]string{
		"self":        "version: natsperf.spec/v1\nworkloads: &a [*a]\n",
		"exponential": "a: &a [x,x,x,x,x,x,x,x,x,x]\nb: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a,*a]\nc: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b,*b]\nd: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c,*c]\ne: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d,*d]\nf: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e,*e]\ng: [*f,*f,*f,*f,*f,*f,*f,*f,*f,*f]\n",
	} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}
