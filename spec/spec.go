package spec

// Version names this format. A spec of another version is refused when read.
const Version = "natsperf.spec/v1"

// Spec is one run. Zero values mean the command line's defaults, as documented per field.
type Spec struct {
	Version string `json:"version"`
	// Name labels the run, e.g. a scenario cell ("storage-file_replicas-3").
	Name   string `json:"name,omitempty"`
	Target Target `json:"target,omitzero"`
	Setup  Setup  `json:"setup,omitzero"`
	// Workloads run at the same time, all clients released at one start barrier.
	Workloads []Workload `json:"workloads"`
	// Warmup leaves the run's first moments out of the statistics (--warmup).
	Warmup Duration `json:"warmup,omitempty"`
	// Interval is the width of one slice of the per-interval series (--interval; 0: 1s, or
	// 250ms in a run with faults).
	Interval Duration `json:"interval,omitempty"`
	// PacePrecision is the least time between two wake-ups of a fixed-rate sender's pacer
	// (--pace-precision, MinPacePrecision to MaxPacePrecision): messages due sooner go together,
	// up to this late. 0: the client's default (natsperf 1ms, natsperf-rust 250us). One value
	// for the run: a process paces all its senders at one precision. The Result's groups
	// record it (pace_precision_ns).
	PacePrecision Duration `json:"pace_precision,omitempty"`
	// NoLatency records no latency histograms (--no-latency).
	NoLatency bool `json:"no_latency,omitempty"`
	// NoServerMetrics samples no server telemetry, not even an embedded server's
	// (--no-server-metrics).
	NoServerMetrics bool   `json:"no_server_metrics,omitempty"`
	Faults          Faults `json:"faults,omitzero"`
	// Verify checks delivery per publisher (--verify): JetStream streams are read back after
	// the run and reconciled against the acknowledgements.
	Verify bool `json:"verify,omitempty"`
	// SLO are thresholds the run must hold (--slo): "p99<5ms", "p99.9<=20ms", "loss=0",
	// "rate>=0.99" (achieved over offered rate); docs/capacity.md. Each is read once, when the
	// Spec is (ParseThreshold), and judged from its typed form.
	SLO []Threshold `json:"slo,omitempty"`
}

// Target is where the clients connect. With no servers, context or embedded it is resolved as
// the command line does: $NATS_URL, then the selected nats context, else an embedded server.
type Target struct {
	// Servers are NATS URLs (-s/--server); credentials in a URL are refused.
	Servers []string `json:"servers,omitempty"`
	Context string   `json:"context,omitempty"` // nats CLI context name (--context)
	Creds   string   `json:"creds,omitempty"`   // credentials file path (--creds)
	NKey    string   `json:"nkey,omitempty"`    // nkey seed file path (--nkey)
	User    string   `json:"user,omitempty"`    // --user
	// Password and Token are never serialised (see Secret).
	Password       Secret   `json:"password,omitempty"`
	Token          Secret   `json:"token,omitempty"`
	TLSCert        string   `json:"tls_cert,omitempty"`        // --tlscert
	TLSKey         string   `json:"tls_key,omitempty"`         // --tlskey
	TLSCA          string   `json:"tls_ca,omitempty"`          // --tlsca
	TLSFirst       bool     `json:"tls_first,omitempty"`       // --tlsfirst
	TLSInsecure    bool     `json:"tls_insecure,omitempty"`    // --tls-insecure
	ConnectTimeout Duration `json:"connect_timeout,omitempty"` // --connect-timeout (0: 5s)
	JWT            string   `json:"jwt,omitempty"`             // user JWT file (--jwt, with --seed)
	Seed           string   `json:"seed,omitempty"`            // nkey seed file (--seed)
	ConnectionName string   `json:"connection_name,omitempty"` // --connection-name
	SocksProxy     string   `json:"socks_proxy,omitempty"`     // SOCKS5 proxy URL without credentials (--socks-proxy)
	NoContext      bool     `json:"no_context,omitempty"`      // ignore the selected nats context (--no-context)
	// JetStream behind a domain or an API prefix, and the inbox prefix (--js-domain,
	// --js-api-prefix, --js-event-prefix, --inbox-prefix); Timeout bounds JetStream API calls
	// and requests (--timeout; 0: 5s).
	JSDomain      string   `json:"js_domain,omitempty"`
	JSAPIPrefix   string   `json:"js_api_prefix,omitempty"`
	JSEventPrefix string   `json:"js_event_prefix,omitempty"`
	InboxPrefix   string   `json:"inbox_prefix,omitempty"`
	Timeout       Duration `json:"timeout,omitempty"`
	Trace         bool     `json:"trace,omitempty"` // print JetStream API requests and responses on stderr (--trace)
	// Embedded starts natsperf's own nats-server (JetStream on) instead of connecting to
	// servers.
	Embedded *Embedded `json:"embedded,omitempty"`
	// Monitor are the servers' HTTP monitoring endpoints (http://host:8222), sampled during
	// the run for the Result's telemetry (--server-metrics). Embedded servers are sampled
	// without them.
	Monitor []string `json:"monitor,omitempty"`
	// SysCreds, or SysUser and SysPassword, are a system account user's: telemetry is then
	// read through $SYS.REQ.SERVER.PING (--sys-creds, --sys-user with $NATSPERF_SYS_PASSWORD). Monitor
	// "sys" reads it so with the target's own credentials. SysPassword is never serialised.
	SysCreds    string `json:"sys_creds,omitempty"`
	SysUser     string `json:"sys_user,omitempty"`
	SysPassword Secret `json:"sys_password,omitempty"`
}

// SysMetrics reports whether the target's telemetry comes through the system account.
func (t Target) SysMetrics() bool {
	return t.SysCreds != "" || t.SysUser != "" || (len(t.Monitor) == 1 && t.Monitor[0] == "sys")
}

// Embedded is natsperf's own server: one node, or a JetStream cluster on loopback.
type Embedded struct {
	// Nodes is 1 for a single server, 3 or more for a cluster (0: 1, or 3 when a stream has
	// replicas or a fault acts on nodes).
	Nodes int `json:"nodes,omitempty"`
	// Encryption encrypts the JetStream store at rest (--js-encryption): aes or chacha
	// (nats-server's ciphers); empty or none: off. The key comes from $NATSPERF_JS_KEY, else
	// one is generated for the run; a spec never holds it.
	Encryption string `json:"encryption,omitempty"`
	// The network (docs/network.md): with any of these, every route between two nodes, and
	// with a client delay every client connection, goes through a link natsperf controls.
	// Delays are one way, each direction; jitter varies them within ±jitter.
	LinkDelay     Duration `json:"link_delay,omitempty"`     // every route (--link-delay D[,J])
	LinkJitter    Duration `json:"link_jitter,omitempty"`    //
	LinkBandwidth Size     `json:"link_bandwidth,omitempty"` // bytes/s each way on every route (--link-bandwidth)
	Zones         int      `json:"zones,omitempty"`          // nodes spread over zones, node i in zone (i-1)%zones+1 (--zones)
	ZoneDelay     Duration `json:"zone_delay,omitempty"`     // added to routes between zones (--zone-delay)
	ClientDelay   Duration `json:"client_delay,omitempty"`   // between the clients and the servers (--client-delay D[,J])
	ClientJitter  Duration `json:"client_jitter,omitempty"`  //
	// Leafnodes adds leaf nodes to the cluster (the hub), each through a link with the route
	// conditions; the clients connect to the leaves and use the hub's JetStream as domain
	// "hub" (--leafnodes).
	Leafnodes int `json:"leafnodes,omitempty"`
	// Gateways, 2 or more, makes a supercluster: this many clusters of Nodes nodes each, joined
	// by gateways that carry link_delay and, added between the clusters, GatewayDelay; the
	// clients connect to the first cluster (--gateways, --gateway-delay).
	Gateways     int      `json:"gateways,omitempty"`
	GatewayDelay Duration `json:"gateway_delay,omitempty"`
	// ServerBin runs this nats-server executable as child processes (one per node) instead of
	// the in-process server (--server-bin); ServerVersion runs that release (v2.12.15), built
	// with go install into natsperf's cache unless it is there (--server-version). One at most.
	ServerBin     string `json:"server_bin,omitempty"`
	ServerVersion string `json:"server_version,omitempty"`
	// SyncInterval is nats-server's sync_interval (--sync-interval): always (fsync every
	// write) or a duration; empty: its default, 2 minutes.
	SyncInterval string `json:"sync_interval,omitempty"`
}

// Processes reports whether e runs nats-server processes rather than the in-process server.
func (e *Embedded) Processes() bool { return e != nil && (e.ServerBin != "" || e.ServerVersion != "") }

// Setup is what is created before the workloads start.
type Setup struct {
	Streams []Stream `json:"streams,omitempty"`
	Buckets []Bucket `json:"buckets,omitempty"`
}

// Stream is a JetStream stream the workloads use. Settings left zero are not asked for: an
// existing stream is used as it is, a new one gets the default.
type Stream struct {
	Name     string   `json:"name"`
	Subjects []string `json:"subjects,omitempty"`
	Storage  string   `json:"storage,omitempty"`  // file (default) or memory (--storage)
	Replicas int      `json:"replicas,omitempty"` // 1 to 5 (--replicas; 0: 1)
	// MaxBytes bounds a stream natsperf creates (--maxbytes; absent: 1 GiB, 0: unlimited).
	MaxBytes     *Size     `json:"max_bytes,omitempty"`
	DedupWindow  *Duration `json:"dedup_window,omitempty"`  // --dedup-window (absent: 2m)
	PersistAsync bool      `json:"persist_async,omitempty"` // --persistasync
	// Compression is the stream's compression at rest (--compression): s2 or none (absent: none,
	// and an existing stream's is not compared).
	Compression string `json:"compression,omitempty"`
	// Create creates the stream when it is missing (--create; always on an embedded server and
	// for read benchmarks).
	Create bool `json:"create,omitempty"`
	// Recreate deletes a stream natsperf created earlier and creates it afresh, so the run
	// starts empty with these settings (a scenario's setup streams).
	Recreate bool `json:"recreate,omitempty"`
	// Purge empties it first (--purge): only a stream natsperf created, unless Force.
	Purge bool `json:"purge,omitempty"`
	Force bool `json:"force,omitempty"` // --force
	// DeleteAfter removes it after the run when natsperf created it (a scenario's setup without
	// run --keep).
	DeleteAfter bool `json:"delete_after,omitempty"`
}

// Bucket is a JetStream KV bucket, created when missing.
type Bucket struct {
	Name     string `json:"name"`
	Storage  string `json:"storage,omitempty"`  // file (default) or memory
	Replicas int    `json:"replicas,omitempty"` // 1 to 5 (0: 1)
	History  int    `json:"history,omitempty"`  // 1 to 64 (0: 1)
	// Compression is the bucket's stream compression (--compression): s2 or none.
	Compression string `json:"compression,omitempty"`
	// MaxBytes bounds a bucket natsperf creates (--maxbytes; 0: unlimited).
	MaxBytes Size `json:"max_bytes,omitempty"`
	// Purge empties it first (kv put --purge): only a bucket natsperf created, unless Force.
	Purge bool `json:"purge,omitempty"`
	// Force allows purging, or putting into, a bucket natsperf did not create (--force).
	Force bool `json:"force,omitempty"`
	// Create makes it before the workloads start when it is missing (a scenario's setup
	// buckets); a kv workload creates its own bucket when missing anyway.
	Create bool `json:"create,omitempty"`
	// DeleteAfter removes it after the run when this run created it (a scenario's setup
	// without run --keep).
	DeleteAfter bool `json:"delete_after,omitempty"`
}

// Faults are injected during the run, in internal/fault's spec format (docs/faults.md).
type Faults struct {
	// Inject are --fault specs: AT:kill-leader, AT:kill:N, AT:restart[:N], AT:pause:D[:N],
	// AT:stepdown.
	Inject []string `json:"inject,omitempty"`
	// Exec are --fault-exec specs, AT:COMMAND, run with sh -c.
	Exec        []string `json:"exec,omitempty"`
	ExecTimeout Duration `json:"exec_timeout,omitempty"` // --fault-exec-timeout (0: 30s)
}

// Workload is one benchmark command's clients. Its kind is the command's path as the Result
// names it ("pub", "js pub async", "kv get"); Config is the kind's own type.
type Workload struct {
	// Name prefixes the workload's groups in the Result ("pod" gives pod1/pub, pod2/pub ...
	// with instances); empty for a single command.
	Name string `json:"name,omitempty"`
	// Instances runs this many copies at once (0: 1), each with its own clients.
	Instances int `json:"instances,omitempty"`
	// Clients is the number of connections (--clients; 0: 1). pubsub counts --pub and --sub in
	// its config instead; latency always has one publisher and one subscriber.
	Clients int    `json:"clients,omitempty"`
	Pacing  Pacing `json:"pacing,omitzero"`
	Config  Config `json:"config"`
	// Client is the NATS client library the clients run on (--client): "" or go (nats.go, in
	// natsperf's engine), rust (async-nats, through natsperf-rust agents: docs/clients.md).
	Client string `json:"client,omitempty"`
	// PayloadFill is what follows the stamp in every message body (--payload-fill): text
	// (default; a repeated alphabet) or zeros; both compress well.
	PayloadFill string `json:"payload_fill,omitempty"`
}

// Kind is the workload's kind, from its config ("" when it has none).
func (w Workload) Kind() string {
	if w.Config == nil {
		return ""
	}
	return w.Config.Kind()
}

// Pacing is how much work a workload does and how fast.
type Pacing struct {
	// Msgs is the number of messages (--msgs): a total split across the clients for senders
	// and shared consumers, per client for fan-out receivers, as the command's help says. 0:
	// the command's default (100,000), or open-ended when Duration is set.
	Msgs int64 `json:"msgs,omitempty"`
	// Rate is a fixed rate in messages per second across the clients (--rate; senders only).
	Rate float64 `json:"rate,omitempty"`
	// Duration bounds a sender's run (--duration).
	Duration Duration `json:"duration,omitempty"`
	// Sleep pauses after each operation (--sleep): a sender's throttle, a receiver's or
	// responder's simulated processing time.
	Sleep Duration `json:"sleep,omitempty"`
	// RateTo and Ramp ramp the rate linearly from Rate to RateTo over Ramp, then hold RateTo
	// (--rate A..B --ramp D).
	RateTo float64  `json:"rate_to,omitempty"`
	Ramp   Duration `json:"ramp,omitempty"`
	// Steps are rates held for StepDuration each, the last one then held (--steps,
	// --step-duration); Rate is then 0 or Steps[0].
	Steps        []float64 `json:"steps,omitempty"`
	StepDuration Duration  `json:"step_duration,omitempty"`
	// Arrivals spaces the messages: "" or "uniform" evenly, "poisson" with exponential gaps
	// around the rate (--arrivals), drawn from Seed (--arrivals-seed; 0: one is drawn and recorded in
	// the Result's settings, so a run can be repeated).
	Arrivals string `json:"arrivals,omitempty"`
	Seed     uint64 `json:"seed,omitempty"`
	// MaxInflight bounds the operations awaiting answers, across the clients, of a
	// service request, js pub sync or kv put workload at a fixed rate (--max-inflight): each
	// is sent at its time whether or not earlier ones were answered (the open model). 0:
	// rate x twice the tightest latency threshold, else rate x 1s.
	MaxInflight int `json:"max_inflight,omitempty"`
}
