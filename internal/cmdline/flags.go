package cmdline

import (
	"fmt"
	"io"
	"math"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/natsperf/natsperf/internal/connect"
	idlepkg "github.com/natsperf/natsperf/internal/idle"
	"github.com/natsperf/natsperf/internal/pace"
	"github.com/natsperf/natsperf/spec"
)

// Conn are the nats CLI's connection flags.
type Conn struct {
	// Settings are the connection settings (a Result echoes them).
	Settings connect.Settings
	// JSEncryption is --js-encryption: the embedded server's encryption at rest (encryption.go).
	JSEncryption string
	// Links are the network flags (links.go).
	Links Links
	// SyncInterval is --sync-interval: the embedded server's sync_interval (sync.go).
	SyncInterval string
	// SysCreds, SysUser and SysPassword are the system account user of --sys-creds or --sys-user and $NATSPERF_SYS_PASSWORD:
	// server telemetry through $SYS.REQ.SERVER.PING. Kept apart from s, which a Result echoes.
	SysCreds, SysUser, SysPassword string
	// sysPasswordFlag is set when --sys-password was given, which is refused (its value is
	// never kept).
	sysPasswordFlag bool
	// Servers are --server-bin, --server-version and --cluster (procs.go).
	Servers ServerFlags
}

func (c *Conn) register(f *pflag.FlagSet) {
	f.StringVarP(&c.Settings.Servers, "server", "s", "", "NATS server URLs, comma separated (default: $NATS_URL, the nats context, or an embedded server)")
	f.StringVar(&c.Settings.Context, "context", "", "nats CLI context to use")
	f.StringVar(&c.Settings.Creds, "creds", "", "user credentials file")
	f.StringVar(&c.Settings.NKey, "nkey", "", "nkey seed file")
	f.StringVar(&c.Settings.User, "user", "", "user name")
	f.StringVar(&c.Settings.Password, "password", "", "password")
	f.StringVar(&c.Settings.Token, "token", "", "authentication token")
	f.StringVar(&c.Settings.TLSCert, "tlscert", "", "TLS client certificate file")
	f.StringVar(&c.Settings.TLSKey, "tlskey", "", "TLS client private key file")
	f.StringVar(&c.Settings.TLSCA, "tlsca", "", "TLS certificate authority file")
	f.BoolVar(&c.Settings.TLSFirst, "tlsfirst", false, "do the TLS handshake before the server's INFO")
	f.BoolVar(&c.Settings.TLSInsecure, "tls-insecure", false, "skip verification of the server's certificate")
	f.DurationVar(&c.Settings.ConnectTimeout, "connect-timeout", connect.DefaultConnectTimeout, "how long to wait for a server to answer")
	f.StringVar(&c.JSEncryption, "js-encryption", "none", jsEncryptionHelp)
	c.Links.register(f)
	c.Servers.register(f)
	f.StringVar(&c.SyncInterval, "sync-interval", "", syncIntervalHelp)
	f.StringVar(&c.Settings.JWT, "jwt", "", "file holding a user JWT, with --seed (files only: natsperf keeps credentials out of the process list)")
	f.StringVar(&c.Settings.Seed, "seed", "", "file holding the nkey seed that signs for --jwt")
	f.StringVar(&c.Settings.ConnectionName, "connection-name", "", "name every connection this (server /connz); default: natsperf-GROUP-N per client")
	f.StringVar(&c.Settings.SocksProxy, "socks-proxy", "", "connect through this SOCKS5 proxy (socks5://host:port; no credentials in the URL)")
	f.DurationVar(&c.Settings.JS.Timeout, "timeout", 0, "JetStream API and request timeout (default 5s); the JetStream and KV commands also take it as --ack-timeout, service request as its reply timeout")
	f.StringVar(&c.Settings.JS.Domain, "js-domain", "", "JetStream domain to use (a leaf node's or a hub's)")
	f.StringVar(&c.Settings.JS.APIPrefix, "js-api-prefix", "", "subject prefix of the JetStream API (imported from another account)")
	f.StringVar(&c.Settings.JS.EventPrefix, "js-event-prefix", "", "subject prefix that replaces $JS.EVENT in JetStream advisories' subjects, as the nats CLI's: the server telemetry listens on PREFIX.ADVISORY.STREAM.LEADER_ELECTED.> and the other advisories it names as events")
	f.StringVar(&c.Settings.JS.InboxPrefix, "inbox-prefix", "", "prefix of the inbox subjects replies and acks come back on")
	f.BoolVar(&c.Settings.NoContext, "no-context", false, "ignore the selected nats context")
	f.BoolVar(&c.Settings.JS.Trace, "trace", false, "print every JetStream API request and response on stderr")
	f.StringVar(&c.SysCreds, "sys-creds", "", "a system account user's credentials file: sample every server's telemetry through $SYS.REQ.SERVER.PING (VARZ, JSZ) instead of monitoring endpoints")
	f.StringVar(&c.SysUser, "sys-user", "", "a system account user, its password in $NATSPERF_SYS_PASSWORD (out of the process list): server telemetry as --sys-creds")
	// The nats CLI has no --sys-password, so natsperf takes no system password where ps shows
	// it: the flag is refused (parsed), never read. Returning an error here would
	// print the value in pflag's message.
	f.Func("sys-password", "refused: set $"+SysPasswordEnv, func(string) error { c.sysPasswordFlag = true; return nil })
	_ = f.MarkHidden("sys-password")
	f.BoolFunc("no-tlsfirst", "nats bench's --no-tlsfirst: no TLS handshake first (the default)", func(string) error { c.Settings.TLSFirst = false; return nil })
	f.String("colors", "", "accepted as nats bench does; natsperf prints no colours")
	_ = f.MarkHidden("no-tlsfirst")
	_ = f.MarkHidden("colors")
	f.VisitAll(func(fl *pflag.Flag) { _ = f.SetAnnotation(fl.Name, connAnnotation, nil) }) // register runs first on the root
}

// credentialsFromEnv takes the user, password and token from NATS_USER, NATS_PASSWORD and
// NATS_TOKEN, as the nats CLI does, when the command line names no credentials and no
// context: a secret in the environment stays out of the process's argv (ps, /proc), which is
// how the Helm chart hands them over. The flags win, and --context keeps its own.
func (c *Conn) credentialsFromEnv(env connect.Env) {
	if c.SysUser != "" && c.SysPassword == "" && env.Getenv != nil {
		c.SysPassword = env.Getenv(SysPasswordEnv)
	}
	s := &c.Settings
	if s.User != "" || s.Password != "" || s.Token != "" || s.Creds != "" || s.NKey != "" || s.Context != "" || env.Getenv == nil {
		return
	}
	s.User, s.Password, s.Token = env.Getenv("NATS_USER"), env.Getenv("NATS_PASSWORD"), env.Getenv("NATS_TOKEN")
}

// parsed completes the connection flags once they are parsed (before the command runs, or
// after 'spec' and 'capacity' parse the command line they are given): --sys-password is
// refused, naming the environment variable to use, and the credentials the command line does
// not give come from the environment.
func (c *Conn) Parsed(env connect.Env) error {
	if c.sysPasswordFlag {
		return usagef("--sys-password would show the password in the process list (ps): set $%s instead, with --sys-user", SysPasswordEnv)
	}
	c.credentialsFromEnv(env)
	return nil
}

// SysPasswordEnv holds the --sys-user's (or a scenario's sys_user's) password out of the
// process list.
const SysPasswordEnv = "NATSPERF_SYS_PASSWORD"

// connAnnotation marks the flags Conn.register adds.
const connAnnotation = "natsperf-connection"

// Output are the process-only flags every command has: how results are shown and saved.
// None of them changes what a run does, so none is in a Spec.
type Output struct {
	JSON       bool
	File       string // -o
	NoProgress bool   // --no-progress, or nats bench's --progress=false
	CPU        bool
	CSV        string // --csv: nats bench's per-client CSV
	CPUProfile string // --cpuprofile (hidden)
}

func (o *Output) register(f *pflag.FlagSet) {
	f.BoolVar(&o.JSON, "json", false, "print the Result document (JSON) on stdout instead of text")
	f.StringVarP(&o.File, "output", "o", "", "also write the Result document to this file")
	f.BoolVar(&o.NoProgress, "no-progress", false, "do not draw progress bars")
	f.BoolVar(&o.CPU, "cpu", false, "print the CPU natsperf used while the clients ran (user+sys seconds, share of its cores, messages per CPU-second); always in the Result")
	f.StringVar(&o.CSV, "csv", "", "also write nats bench's per-client CSV (#RunID, ClientID, MsgCount, ...) to this file")
	f.StringVar(&o.CPUProfile, "cpuprofile", "", "write a CPU profile of the run to this file")
	_ = f.MarkHidden("cpuprofile")
	f.BoolFunc("progress", "nats bench's spelling: --progress=false is --no-progress", func(v string) error {
		switch strings.ToLower(v) {
		case "true", "1", "t":
		case "false", "0", "f":
			o.NoProgress = true
		default:
			return fmt.Errorf("--progress takes true or false, got %q", v)
		}
		return nil
	})
	_ = f.MarkHidden("progress")
}

// Globals are the flags of every natsperf command (the root's persistent flags): the
// connection and the servers natsperf starts, and the process-only output flags.
type Globals struct {
	Conn Conn
	Out  Output
	fs   *pflag.FlagSet
}

// NewGlobals registers the global flags, bound to a Globals of their own.
func NewGlobals() *Globals {
	g := &Globals{fs: newFlagSet("natsperf")}
	g.Conn.register(g.fs)
	g.Out.register(g.fs)
	return g
}

// Flags are the global flags (cobra: root.PersistentFlags().AddFlagSet).
func (g *Globals) Flags() *pflag.FlagSet { return g.fs }

// newFlagSet is a flag set that reports its errors to its caller and knows nats bench's names.
func newFlagSet(name string) *pflag.FlagSet {
	fs := pflag.NewFlagSet(name, pflag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	fs.SetNormalizeFunc(Normalize)
	return fs
}

// benchFlags are the flags every benchmark command has, named as nats bench names them.
type benchFlags struct {
	Clients               int
	Msgs, Size            int64
	Sleep                 time.Duration
	Rate                  float64
	Shape                 pace.Shape // --ramp, --steps, --arrivals and its seed
	Duration, Warmup      time.Duration
	IdleTimeout, Interval time.Duration
	NoLatency             bool
	Hist                  string
	SLO                   []spec.Threshold
	ServerMetrics         []string
	NoServerMetrics       bool
}

const (
	defaultMsgs = 100_000
	defaultSize = 128
	// maxClients bounds --clients, --pub and --sub: each client is a connection of its own.
	maxClients = 100_000
	// A fixed rate is a schedule in nanoseconds: above a billion a second no two messages are
	// apart, and below one in a thousand seconds a run's first gap outlasts any sensible run.
	maxRate = 1e9
	minRate = 1e-3
	// MaxRate and MinRate are the fastest and slowest fixed rates natsperf paces, msgs/s.
	MaxRate, MinRate = maxRate, minRate
)

// register adds the flags; receivers get --idle-timeout, senders --rate and --duration.
func (b *benchFlags) register(f *pflag.FlagSet, sender, receiver bool) {
	b.Clients, b.Msgs, b.Size, b.Interval = 1, defaultMsgs, defaultSize, time.Second
	f.IntVar(&b.Clients, "clients", 1, "number of clients, each on its own connection")
	f.Var((*countValue)(&b.Msgs), "msgs", "number of messages (a total, split across the clients unless the help says otherwise)")
	f.Var((*sizeValue)(&b.Size), "size", "message size: bytes, or with a unit B, K/KB/KiB, M/MB/MiB (powers of 1024)")
	f.DurationVar(&b.Sleep, "sleep", 0, "sleep between operations (as nats bench --sleep)")
	f.DurationVar(&b.Interval, "interval", time.Second, "width of one slice of the per-interval series in the Result")
	f.DurationVar(&b.Warmup, "warmup", 0, "leave this initial period out of the statistics")
	f.BoolVar(&b.NoLatency, "no-latency", false, "do not record latency histograms")
	f.Var(sloFlag{&b.SLO}, "slo", "a threshold the run must hold, repeatable: 'p99<5ms', 'p99.9<20ms', 'loss=0', 'rate>=0.99' (achieved/offered); a failed one exits 6")
	registerTelemetry(f, &b.ServerMetrics, &b.NoServerMetrics)
	if sender {
		b.registerShape(f)
		f.DurationVar(&b.Duration, "duration", 0, "run for this long instead of a message count (with --rate: rate x duration messages; with --msgs too: whichever ends first)")
		aliasFlag(f, "throughput", "rate") // nats bench 0.5's name for the aggregate rate
	}
	if receiver {
		f.DurationVar(&b.IdleTimeout, "idle-timeout", idlepkg.DefaultTimeout, "once messages have started, end a receiver that gets nothing for this long")
	}
}

// registerTelemetry adds the server telemetry flags, the same on every benchmark command
// (latency's too, whose other flags are its own).
func registerTelemetry(f *pflag.FlagSet, metrics *[]string, off *bool) {
	f.StringSliceVar(metrics, "server-metrics", nil, "servers' monitoring endpoints (http://host:8222,...) to sample during the run, or sys: through the system account with the run's own credentials (see --sys-creds): CPU, memory, messages, streams, in the Result's telemetry (embedded servers are sampled without it)")
	f.BoolVar(off, "no-server-metrics", false, "sample no server telemetry, not even the embedded server's")
}

// withServerMetrics puts the server telemetry flags into s.
func withServerMetrics(s *spec.Spec, metrics []string, off bool) {
	s.Target.Monitor, s.NoServerMetrics = metrics, off
}

func (b *benchFlags) validate(f *pflag.FlagSet) error {
	switch {
	case b.Clients < 1:
		return usagef("--clients must be at least 1, got %d", b.Clients)
	case b.Clients > maxClients:
		return usagef("--clients %d is more than natsperf supports (%d)", b.Clients, maxClients)
	case b.Size > 64<<20:
		return usagef("--size %d is larger than NATS' 64 MiB maximum payload", b.Size)
	case b.Sleep < 0, b.Duration < 0, b.Warmup < 0, b.IdleTimeout < 0:
		return usagef("durations must not be negative")
	case math.IsNaN(b.Rate) || b.Rate < 0 || b.Rate > maxRate || (b.Rate > 0 && b.Rate < minRate):
		return usagef("--rate must be 0 (as fast as possible) or %g to %g messages per second, got %v", minRate, maxRate, b.Rate)
	case b.Rate > 0 && b.Sleep > 0:
		return usagef("--rate and --sleep both pace the senders: give one of them")
	case b.Interval < 10*time.Millisecond:
		return usagef("--interval must be at least 10ms")
	}
	if err := CheckOutputFile("--hist", b.Hist); err != nil {
		return err
	}
	if f.Changed("duration") && !f.Changed("msgs") {
		b.Msgs = 0 // the duration bounds the run
	}
	if b.Msgs == 0 && b.Duration == 0 {
		if f.Lookup("duration") != nil {
			return usagef("--msgs 0 needs --duration")
		}
		return usagef("--msgs must be at least 1")
	}
	if b.Duration > 0 && b.Warmup >= b.Duration {
		return usagef("--warmup %v must be shorter than --duration %v, or nothing is measured", b.Warmup, b.Duration)
	}
	if err := b.validateShape(f); err != nil {
		return err
	}
	if b.Rate > 0 && b.Duration > 0 && b.Rate*b.Duration.Seconds() < 1 {
		return usagef("--rate %v for --duration %v sends no message", b.Rate, b.Duration)
	}
	return nil
}

// IsConnection reports whether f is one of the connection flags (Conn's).
func IsConnection(f *pflag.Flag) bool {
	_, ok := f.Annotations[connAnnotation]
	return ok
}
