package spec

import (
	"fmt"
	"math"
	"net/url"
	"strings"
	"time"

	"github.com/natsperf/natsperf/internal/fault"
)

// Limits the command line applies too.
const (
	maxClients  = 100_000
	maxPayload  = 64 << 20 // NATS' maximum payload
	stampSize   = 16       // a natsperf stamp: publisher, sequence, send time
	minInterval = 10 * time.Millisecond
	maxBatch    = 1000 // atomic batch limit of the server
	// maxInflight bounds pacing.max_inflight: each place is a slot of a few words per client.
	maxInflight = 10_000_000
)

// openModel are the kinds that keep a fixed rate with operations awaiting answers
// (pacing.max_inflight).
var openModel = map[string]bool{"service request": true, "js pub sync": true, "kv put": true}

// The range of PacePrecision (--pace-precision): finer than 50us is a sleep per message at any
// rate that matters (a spinning core's worth of wake-ups); coarser than 100ms is no schedule.
const (
	MinPacePrecision = 50 * time.Microsecond
	MaxPacePrecision = 100 * time.Millisecond
)

// CheckPacePrecision checks a pacing precision (0: the default) and says what is wrong with
// it in one line.
func CheckPacePrecision(d time.Duration) error {
	if d != 0 && (d < MinPacePrecision || d > MaxPacePrecision) {
		return fmt.Errorf("%v: the precision must be %v to %v", d, MinPacePrecision, MaxPacePrecision)
	}
	return nil
}

// checker keeps the first problem found, with the path of its field.
type checker struct {
	err error
	at  string // the workload being checked: "workloads[2] (js fetch)"
}

func (c *checker) failf(path, format string, args ...any) {
	if c.err == nil {
		c.err = &FieldError{Path: path, Msg: fmt.Sprintf(format, args...)}
	}
}

// Validate checks the spec as the command line checks its flags and returns the first
// problem as one line naming the field, e.g. `workloads[0].config.size: 80 MiB is larger
// than NATS' 64 MiB maximum payload`.
func (s *Spec) Validate() error {
	c := &checker{}
	if s.Version != Version {
		c.failf("version", "%q is not %q", s.Version, Version)
	}
	s.Target.check(c)
	s.Setup.check(c)
	if len(s.Workloads) == 0 {
		c.failf("workloads", "at least one workload is needed")
	}
	if s.Warmup < 0 {
		c.failf("warmup", "must not be negative")
	}
	if s.Interval != 0 && s.Interval.D() < minInterval {
		c.failf("interval", "must be at least %v, got %v", minInterval, s.Interval.D())
	}
	if err := CheckPacePrecision(s.PacePrecision.D()); err != nil {
		c.failf("pace_precision", "%v", err)
	}
	for i := range s.Workloads {
		s.Workloads[i].check(c, fmt.Sprintf("workloads[%d]", i), s.Warmup)
	}
	s.checkFaults(c)
	for i, t := range s.SLO {
		if t.Metric == "" { // built in code, not read
			c.failf(fmt.Sprintf("slo[%d]", i), "%q was not read with ParseThreshold", t.Text)
			continue
		}
		if why := s.unrecorded(t); why != "" {
			c.failf(fmt.Sprintf("slo[%d]", i), "%q: %s", t.Text, why)
		}
	}
	return c.err
}

// unrecorded says why the run records nothing th can judge ("" when it does): a latency
// percentile on a run without latency would fail every time, for no fault of the system.
func (s *Spec) unrecorded(th Threshold) string {
	if th.Metric != "p" {
		return ""
	}
	if s.NoLatency {
		return "no_latency (--no-latency) records no latency to judge"
	}
	kinds := make([]string, 0, len(s.Workloads))
	for _, w := range s.Workloads {
		if w.Config == nil {
			return ""
		}
		k := w.Config.Kind()
		if k != "pub" {
			return ""
		}
		kinds = append(kinds, k)
	}
	if len(kinds) == 0 {
		return ""
	}
	return "core pub records no latency (nothing answers a core publish): judge loss or rate, or measure latency with pubsub"
}

// Validate checks the target alone, as Spec.Validate does (a scenario file's target).
func (t *Target) Validate() error {
	c := &checker{}
	t.check(c)
	return c.err
}

func (t *Target) check(c *checker) {
	for i, u := range t.Servers {
		checkURL(c, fmt.Sprintf("target.servers[%d]", i), u)
	}
	if t.Embedded != nil {
		if len(t.Servers) > 0 || t.Context != "" {
			c.failf("target.embedded", "an embedded server and servers or a context exclude each other")
		}
		if t.Embedded.Nodes < 0 || t.Embedded.Nodes > 9 {
			c.failf("target.embedded.nodes", "must be 1 to 9, got %d", t.Embedded.Nodes)
		}
		switch t.Embedded.Encryption {
		case "", "none", "aes", "chacha":
		default:
			c.failf("target.embedded.encryption", "must be none, aes or chacha, got %q", t.Embedded.Encryption)
		}
		t.Embedded.checkNetwork(c)
		t.Embedded.checkProcesses(c)
		if si := t.Embedded.SyncInterval; si != "" && si != "always" {
			if d, err := time.ParseDuration(si); err != nil || d <= 0 {
				c.failf("target.embedded.sync_interval", "must be always or a positive duration such as 10s, got %q", si)
			}
		}
	}
	for i, u := range t.Monitor {
		if u == "sys" && len(t.Monitor) == 1 {
			continue // the system account's pings, with the target's credentials
		}
		if u == "sys" {
			c.failf(fmt.Sprintf("target.monitor[%d]", i), "sys (the system account) stands alone: not beside monitoring URLs")
			continue
		}
		checkMonitorURL(c, fmt.Sprintf("target.monitor[%d]", i), u)
	}
	switch {
	case t.SysCreds != "" && t.SysUser != "":
		c.failf("target.sys_creds", "sys_creds and sys_user exclude each other (one system account user)")
	case t.SysPassword != "" && t.SysUser == "":
		c.failf("target.sys_password", "goes with sys_user")
	case (t.SysCreds != "" || t.SysUser != "") && len(t.Monitor) > 0 && t.Monitor[0] != "sys":
		c.failf("target.sys_user", "the system account's telemetry and monitoring URLs exclude each other")
	}
	if t.ConnectTimeout < 0 {
		c.failf("target.connect_timeout", "must not be negative")
	}
	if (t.TLSCert == "") != (t.TLSKey == "") {
		c.failf("target.tls_cert", "tls_cert and tls_key go together")
	}
	if (t.JWT == "") != (t.Seed == "") {
		c.failf("target.jwt", "jwt and seed go together (a user JWT file and its nkey seed file)")
	}
	if t.SocksProxy != "" {
		u, err := url.Parse(t.SocksProxy)
		switch {
		case err != nil || (u.Scheme != "socks5" && u.Scheme != "socks5h") || u.Host == "":
			c.failf("target.socks_proxy", "want socks5://host:port")
		case u.User != nil:
			c.failf("target.socks_proxy", "credentials in the proxy URL are not kept in a spec (or a Result): use a proxy without authentication")
		}
	}
	if t.JSDomain != "" && t.JSAPIPrefix != "" {
		c.failf("target.js_domain", "js_domain and js_api_prefix exclude each other")
	}
	if t.Timeout < 0 {
		c.failf("target.timeout", "must not be negative")
	}
}

// checkURL refuses a server URL that does not parse or that carries credentials.
func checkURL(c *checker, path, raw string) {
	s := strings.TrimSpace(raw)
	if s == "" {
		c.failf(path, "empty URL")
		return
	}
	if !strings.Contains(s, "://") {
		s = "nats://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" {
		c.failf(path, "%q is not a server URL such as nats://127.0.0.1:4222", raw)
		return
	}
	if u.User != nil {
		c.failf(path, "credentials in a server URL are not kept in a spec: use target.user, or --password, --token, --creds")
	}
}

// checkMonitorURL refuses a monitoring endpoint that is not http(s)://host:port or that
// carries credentials (they would show in errors and in the Result).
func checkMonitorURL(c *checker, path, raw string) {
	u, err := url.Parse(strings.TrimSpace(raw))
	switch {
	case err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https"):
		c.failf(path, "%q is not a monitoring URL such as http://127.0.0.1:8222", raw)
	case u.User != nil:
		c.failf(path, "credentials in a monitoring URL are not supported")
	}
}

// check keeps the first problem of any item (CheckSetup has them all).
func (s *Setup) check(c *checker) {
	if errs := CheckSetup(s); len(errs) > 0 && c.err == nil {
		c.err = errs[0]
	}
}

// checkCompression refuses a compression nats-server does not know. A memory stream takes s2
// and stores uncompressed (the engine says so): a matrix of storage x compression stays whole.
func checkCompression(c *checker, path, comp string) {
	switch comp {
	case "", "none", "s2":
	default:
		c.failf(path, "must be s2 or none, got %q", comp)
	}
}

// checkName refuses names JetStream does not take for streams, consumers and buckets.
func checkName(c *checker, path, name string) {
	if name == "" {
		c.failf(path, "must not be empty")
	} else if strings.ContainsAny(name, " \t.*>/\\") {
		c.failf(path, "%q may not contain spaces, '.', '*', '>', '/' or '\\'", name)
	} else if len(name) > maxNameLen {
		c.failf(path, "%d characters: the server allows %d", len(name), maxNameLen)
	}
}

func checkStorage(c *checker, path, s string) {
	switch s {
	case "", "file", "memory":
	default:
		c.failf(path, "must be file or memory, got %q", s)
	}
}

func checkReplicas(c *checker, path string, n int) {
	if n < 0 || n > 5 {
		c.failf(path, "must be 1 to 5, got %d", n)
	}
}

func (w *Workload) check(c *checker, p string, warmup Duration) {
	if w.Config == nil {
		c.failf(p+".config", "missing: every workload needs a kind and its config")
		return
	}
	k := w.Config.Kind()
	p = fmt.Sprintf("%s (%s)", p, k)
	c.at = p
	if w.Instances < 0 {
		c.failf(p+".instances", "must not be negative")
	}
	if w.Client != "" && w.Client != "go" && w.Client != "rust" {
		c.failf(p+".client", "must be go or rust, got %q", w.Client)
	}
	switch w.PayloadFill {
	case "", "text", "zeros":
	default:
		c.failf(p+".payload_fill", "must be text or zeros, got %q", w.PayloadFill)
	}
	if w.Clients < 0 || w.Clients > maxClients {
		c.failf(p+".clients", "must be 1 to %d, got %d", maxClients, w.Clients)
	}
	pc := w.Pacing
	switch {
	case pc.Msgs < 0:
		c.failf(p+".pacing.msgs", "must not be negative")
	case pc.Rate < 0:
		c.failf(p+".pacing.rate", "must not be negative")
	case pc.Duration < 0, pc.Sleep < 0:
		c.failf(p+".pacing", "durations must not be negative")
	case pc.MaxInflight < 0 || pc.MaxInflight > maxInflight:
		c.failf(p+".pacing.max_inflight", "must be 0 (rate x twice the tightest latency threshold) to %d, got %d", maxInflight, pc.MaxInflight)
	case pc.MaxInflight > 0 && !openModel[k]:
		c.failf(p+".pacing.max_inflight", "is for service request, js pub sync and kv put (operations that await answers)")
	}
	if !kinds[k].sender && (pc.Rate != 0 || pc.Duration != 0 || pc.RateTo != 0 || len(pc.Steps) > 0 || pc.Arrivals != "") {
		c.failf(p+".pacing", "rate and duration are for senders; %s receives (bound it with msgs)", k)
	}
	if pc.Duration > 0 && warmup >= pc.Duration {
		c.failf("warmup", "%v must be shorter than %s's duration %v, or nothing is measured", warmup.D(), p, pc.Duration.D())
	}
	checkShape(c, p+".pacing", pc)
	if pc.Rate > 0 && pc.Duration > 0 && pc.Rate*pc.Duration.D().Seconds() < 1 {
		c.failf(p+".pacing", "rate %v for duration %v sends no message", pc.Rate, pc.Duration.D())
	}
	w.Config.check(c, w)
}

// cfg is the path of a field of the workload's config.
func (c *checker) cfg(field string) string { return c.at + ".config." + field }

func checkSubject(c *checker, w *Workload, s string, literal bool) {
	switch {
	case s == "":
		c.failf(c.cfg("subject"), "must not be empty")
	case strings.ContainsAny(s, " \t"):
		c.failf(c.cfg("subject"), "%q is not a subject", s)
	case literal && strings.ContainsAny(s, "*>"):
		c.failf(c.cfg("subject"), "must be a literal subject, got %q", s)
	}
}

func checkSize(c *checker, w *Workload, n Size) {
	if n < 0 {
		c.failf(c.cfg("size"), "must not be negative")
	} else if n > maxPayload {
		c.failf(c.cfg("size"), "%d is larger than NATS' 64 MiB maximum payload", n)
	}
}

func checkMulti(c *checker, w *Workload, max int) {
	if max < 0 {
		c.failf(c.cfg("multisubject_max"), "must not be negative")
	}
}

func checkPending(c *checker, w *Workload, msgs int, bytes Size) {
	if msgs < -1 || bytes < -1 {
		c.failf(c.cfg("pending_msgs"), "pending_msgs and pending_bytes must be positive, or 0/-1 for unlimited")
	}
}

func checkPositive(c *checker, w *Workload, field string, d Duration) {
	if d < 0 {
		c.failf(c.cfg(field), "must not be negative (0: the default)")
	}
}

func checkBatch(c *checker, w *Workload, n, max int) {
	if n < 0 || (max > 0 && n > max) {
		if max > 0 {
			c.failf(c.cfg("batch"), "must be 1 to %d, got %d", max, n)
		} else {
			c.failf(c.cfg("batch"), "must be at least 1, got %d", n)
		}
	}
}

func (x *Pub) check(c *checker, w *Workload) {
	checkSubject(c, w, x.Subject, false)
	checkSize(c, w, x.Size)
	checkMulti(c, w, x.MultiSubjectMax)
	x.Payload.check(c, w)
}

func (p *Payload) check(c *checker, w *Workload) {
	if w.PayloadFill != "" && (p.File != "" || p.Random) {
		c.failf(c.at+".payload_fill", "fills a payload natsperf makes: not with a payload file or random bytes")
	}
	switch p.Stamp {
	case "", "payload", "header":
	default:
		c.failf(c.cfg("payload.stamp"), "must be payload or header, got %q", p.Stamp)
	}
	if p.File != "" && (p.Random || p.Stamp == "payload") {
		c.failf(c.cfg("payload.file"), "a payload file is sent as it is: not with random or a stamp in the payload")
	}
	for i, h := range p.Headers {
		if k, _, ok := strings.Cut(h, ":"); !ok || strings.TrimSpace(k) == "" {
			c.failf(c.cfg(fmt.Sprintf("payload.headers[%d]", i)), "want KEY:VALUE, got %q", h)
		}
	}
}

func (x *Sub) check(c *checker, w *Workload) {
	checkSubject(c, w, x.Subject, false)
	checkSize(c, w, x.Size)
	checkPositive(c, w, "idle_timeout", x.IdleTimeout)
	checkPending(c, w, x.PendingMsgs, x.PendingBytes)
}

func (x *PubSub) check(c *checker, w *Workload) {
	checkSubject(c, w, x.Subject, false)
	checkSize(c, w, x.Size)
	checkMulti(c, w, x.MultiSubjectMax)
	checkPositive(c, w, "idle_timeout", x.IdleTimeout)
	checkPositive(c, w, "sub_sleep", x.SubSleep)
	checkPending(c, w, x.PendingMsgs, x.PendingBytes)
	x.Payload.check(c, w)
	if w.Clients != 0 {
		c.failf(c.at+".clients", "pubsub counts its clients in config.pubs and config.subs")
	}
	if x.Pubs < 0 || x.Subs < 0 || x.Pubs > maxClients || x.Subs > maxClients {
		c.failf(c.cfg("pubs"), "pubs and subs must be 1 to %d (got %d and %d)", maxClients, x.Pubs, x.Subs)
	}
	if j := x.JS; j != nil {
		switch j.ConsumerKind {
		case "", "ordered", "pull", "consume", "push":
		default:
			c.failf(c.cfg("js.consumer_kind"), "must be ordered, pull or push, got %q", j.ConsumerKind)
		}
		if j.Stream != "" {
			checkName(c, c.cfg("js.stream"), j.Stream)
		}
		if j.Batch < 0 {
			c.failf(c.cfg("js.batch"), "must be at least 1, got %d", j.Batch)
		}
		checkPositive(c, w, "js.ack_timeout", j.AckTimeout)
	}
}

func (x *ServiceServe) check(c *checker, w *Workload) {
	checkSubject(c, w, x.Subject, false)
	checkSize(c, w, x.Size)
}

func (x *ServiceRequest) check(c *checker, w *Workload) {
	checkSubject(c, w, x.Subject, false)
	checkSize(c, w, x.Size)
	checkPositive(c, w, "timeout", x.Timeout)
	x.Payload.check(c, w)
}

func (x *JSPublish) check(c *checker, w *Workload) {
	if x.Stream != "" {
		checkName(c, c.cfg("stream"), x.Stream)
	}
	checkSubject(c, w, x.Subject, true)
	checkSize(c, w, x.Size)
	checkMulti(c, w, x.MultiSubjectMax)
	checkPositive(c, w, "ack_timeout", x.AckTimeout)
	x.Payload.check(c, w)
}

func (x *JSPubSync) check(c *checker, w *Workload) { x.JSPublish.check(c, w) }

func (x *JSPubAsync) check(c *checker, w *Workload) {
	x.JSPublish.check(c, w)
	checkBatch(c, w, x.Batch, 0)
}

func (x *JSPubBatch) check(c *checker, w *Workload) {
	x.JSPublish.check(c, w)
	checkBatch(c, w, x.Batch, maxBatch)
	if p := w.Pacing; p.RateTo > 0 || len(p.Steps) > 0 || p.Arrivals == "poisson" {
		c.failf(c.at+".pacing", "load shapes (ramp, steps, poisson arrivals) are not supported with atomic batches; a constant rate is")
	}
}

func (x *JSPubFast) check(c *checker, w *Workload) {
	x.JSPublish.check(c, w)
	checkBatch(c, w, x.Batch, maxFastFlow)
	if x.MaxOutstandingAcks < 0 || x.MaxOutstandingAcks > maxFastFlow {
		c.failf(c.cfg("max_outstanding_acks"), "must be 1 to %d, got %d", maxFastFlow, x.MaxOutstandingAcks)
	}
}

// maxFastFlow bounds the fast batch's flow window and outstanding acks (uint16 on the wire).
const maxFastFlow = 65535

func (x *JSConsumer) check(c *checker, w *Workload) {
	if x.Stream != "" {
		checkName(c, c.cfg("stream"), x.Stream)
	}
	checkSize(c, w, x.Size)
	checkBatch(c, w, x.Batch, 0)
	switch x.Deliver {
	case "", "all", "new", "last":
	default:
		c.failf(c.cfg("deliver"), "must be all, new or last, got %q", x.Deliver)
	}
	checkPositive(c, w, "idle_timeout", x.IdleTimeout)
	checkPositive(c, w, "ack_timeout", x.AckTimeout)
}

func (x *JSDurable) check(c *checker, w *Workload) {
	if x.Consumer != "" {
		checkName(c, c.cfg("consumer"), x.Consumer)
	}
	switch x.Acks {
	case "", "explicit", "none", "all":
	default:
		c.failf(c.cfg("acks"), "must be explicit, none or all, got %q", x.Acks)
	}
	if x.MaxAckPending < 0 {
		c.failf(c.cfg("max_ack_pending"), "must not be negative")
	}
	checkPositive(c, w, "ack_wait", x.AckWait)
}

func (x *JSOrdered) check(c *checker, w *Workload) { x.JSConsumer.check(c, w) }

func (x *JSConsume) check(c *checker, w *Workload) {
	x.JSConsumer.check(c, w)
	x.JSDurable.check(c, w)
}

func (x *JSFetch) check(c *checker, w *Workload) {
	x.JSConsumer.check(c, w)
	x.JSDurable.check(c, w)
}

func (x *JSPush) check(c *checker, w *Workload) {
	x.JSConsumer.check(c, w)
	x.JSDurable.check(c, w)
	if x.Heartbeat != nil && *x.Heartbeat < 0 {
		c.failf(c.cfg("heartbeat"), "must not be negative")
	}
	if (x.FlowControl == nil || *x.FlowControl) && x.Heartbeat != nil && *x.Heartbeat == 0 {
		c.failf(c.cfg("flow_control"), "flow control needs a heartbeat")
	}
}

func (x *JSGetSync) check(c *checker, w *Workload) {
	if x.Stream != "" {
		checkName(c, c.cfg("stream"), x.Stream)
	}
	checkSize(c, w, x.Size)
	checkPositive(c, w, "ack_timeout", x.AckTimeout)
}

func (x *JSGetBatch) check(c *checker, w *Workload) {
	x.JSGetSync.check(c, w)
	checkBatch(c, w, x.Batch, 0)
}

func (x *KV) check(c *checker, w *Workload) {
	if x.Bucket != "" {
		checkName(c, c.cfg("bucket"), x.Bucket)
	}
	checkSize(c, w, x.Size)
	if x.Randomize < 0 {
		c.failf(c.cfg("randomize"), "must not be negative")
	}
	checkPositive(c, w, "ack_timeout", x.AckTimeout)
}

func (x *KVPut) check(c *checker, w *Workload) { x.KV.check(c, w) }
func (x *KVGet) check(c *checker, w *Workload) { x.KV.check(c, w) }

func (x *Latency) check(c *checker, w *Workload) {
	if x.Subject != "" {
		checkSubject(c, w, x.Subject, true)
	}
	checkSize(c, w, x.Size)
	if x.Size != 0 && x.Size < stampSize {
		c.failf(c.cfg("size"), "%d: the latency workload needs at least %d bytes per message for its stamp", x.Size, stampSize)
	}
	if w.Clients > 1 {
		c.failf(c.at+".clients", "latency has one publisher and one subscriber")
	}
	if (w.Pacing.Rate <= 0 && len(w.Pacing.Steps) == 0) || w.Pacing.Duration <= 0 {
		c.failf(c.at+".pacing", "latency needs a rate and a duration")
	}
	if w.Pacing.Sleep != 0 {
		c.failf(c.at+".pacing.sleep", "latency is paced by its rate, not by sleep")
	}
	if x.ServerB != "" {
		checkURL(c, c.cfg("server_b"), x.ServerB)
	}
}

// checkFaults parses the fault specs and checks them against the target and workloads.
func (s *Spec) checkFaults(c *checker) {
	f := s.Faults
	if f.ExecTimeout < 0 {
		c.failf("faults.exec_timeout", "must not be negative")
	}
	p, err := fault.ParseAll(f.Inject, f.Exec)
	if err != nil {
		c.failf("faults", "%s", strings.ReplaceAll(err.Error(), "\n", "; "))
		return
	}
	stream, able, puts := false, false, false
	for _, w := range s.Workloads {
		switch x := w.Config.(type) {
		case *PubSub:
			able, stream = true, stream || x.JS != nil
		case *JSPubSync, *JSPubAsync, *JSPubBatch, *JSPubFast:
			able, stream = true, true
		case *KVPut: // faults, not verify: the bucket keeps only each key's last values
			puts, stream = true, true
		case *JSOrdered, *JSConsume, *JSFetch, *JSPush, *JSGetSync, *JSGetBatch, *KVGet:
			stream = true
		}
	}
	if (len(p) > 0 && !able && !puts) || (s.Verify && !able) {
		c.failf("faults", "faults and verify need a pubsub or js pub workload (faults: or kv put)")
		return
	}
	if len(p) == 0 {
		return
	}
	// External servers have no nodes natsperf can act on; an embedded target has its nodes,
	// and an unspecified one becomes the cluster the faults need.
	nodes := 3
	switch t := s.Target; {
	case len(t.Servers) > 0 || t.Context != "":
		nodes = 0
	case t.Embedded != nil && t.Embedded.Nodes > 0:
		nodes = t.Embedded.Nodes
	}
	if err := p.Validate(nodes, stream, true); err != nil {
		c.failf("faults", "%v", err)
	}
	if e := s.Target.Embedded; p.NeedsLinks() && nodes > 0 {
		zones := 0
		if e != nil {
			zones = e.Zones
		}
		if err := p.CheckZones(zones); err != nil {
			c.failf("faults", "%v", err)
		}
	}
}

// checkShape checks a load shape: a ramp, steps or Poisson arrivals need a fixed rate.
func checkShape(c *checker, p string, pc Pacing) {
	switch {
	case pc.RateTo < 0 || math.IsNaN(pc.RateTo):
		c.failf(p+".rate_to", "must not be negative")
	case pc.Ramp < 0 || pc.StepDuration < 0:
		c.failf(p, "durations must not be negative")
	case (pc.RateTo > 0) != (pc.Ramp > 0):
		c.failf(p, "a ramp needs both rate_to and ramp")
	case pc.RateTo > 0 && pc.Rate <= 0:
		c.failf(p+".rate", "a ramp starts at rate: give it")
	case (len(pc.Steps) > 0) != (pc.StepDuration > 0):
		c.failf(p, "steps need both steps and step_duration")
	case len(pc.Steps) > 0 && pc.RateTo > 0:
		c.failf(p, "give a ramp or steps, not both")
	case len(pc.Steps) > 0 && pc.Rate != 0 && pc.Rate != pc.Steps[0]:
		c.failf(p+".rate", "with steps, rate is 0 or the first step (%v), got %v", pc.Steps[0], pc.Rate)
	case pc.Arrivals != "" && pc.Arrivals != "uniform" && pc.Arrivals != "poisson":
		c.failf(p+".arrivals", "must be uniform or poisson, got %q", pc.Arrivals)
	case pc.Arrivals == "poisson" && pc.Rate <= 0 && len(pc.Steps) == 0:
		c.failf(p+".arrivals", "poisson arrivals need a rate")
	}
	for i, r := range pc.Steps {
		if !(r > 0) || r > 1e9 {
			c.failf(fmt.Sprintf("%s.steps[%d]", p, i), "must be a rate above 0, got %v", r)
		}
	}
}
