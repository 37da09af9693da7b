package connect

import "time"

// DefaultConnectTimeout bounds one server attempt when Settings.ConnectTimeout
// is not set.
const DefaultConnectTimeout = 5 * time.Second

// Flag names as the nats CLI spells them. Errors name the flag so the user
// knows which input to fix.
const (
	flagServer   = "--server"
	flagContext  = "--context"
	flagCreds    = "--creds"
	flagNKey     = "--nkey"
	flagUser     = "--user"
	flagPassword = "--password"
	flagToken    = "--token"
	flagTLSCert  = "--tlscert"
	flagTLSKey   = "--tlskey"
	flagTLSCA    = "--tlsca"
	flagJWT      = "--jwt"
	flagSeed     = "--seed"
	flagSocks    = "--socks-proxy"
)

// Settings is what the user gave to reach NATS. It is embedded in the run
// settings that are echoed into result files, so Redacted() must be used
// before output.
type Settings struct {
	Servers        string        `json:"servers,omitempty"` // comma-separated URLs (-s/--server)
	Context        string        `json:"context,omitempty"` // nats CLI context name (--context)
	Creds          string        `json:"creds,omitempty"`   // path to .creds file
	NKey           string        `json:"nkey,omitempty"`    // path to nkey seed file
	User           string        `json:"user,omitempty"`
	Password       string        `json:"password,omitempty"`
	Token          string        `json:"token,omitempty"`
	TLSCert        string        `json:"tls_cert,omitempty"`
	TLSKey         string        `json:"tls_key,omitempty"`
	TLSCA          string        `json:"tls_ca,omitempty"`
	TLSFirst       bool          `json:"tls_first,omitempty"`
	TLSInsecure    bool          `json:"tls_insecure,omitempty"` // skip server cert verification (latency-tests -secure)
	ConnectTimeout time.Duration `json:"connect_timeout,omitempty"`
	// JWT and Seed are files holding a user JWT and its nkey seed: the credential pair of
	// --jwt and --seed.
	JWT  string `json:"jwt,omitempty"`
	Seed string `json:"seed,omitempty"`
	// ConnectionName names every connection on the server (/connz) instead of natsperf's
	// per-client names (--connection-name).
	ConnectionName string `json:"connection_name,omitempty"`
	// SocksProxy is a SOCKS5 proxy URL every connection goes through (--socks-proxy).
	SocksProxy string `json:"socks_proxy,omitempty"`
	// NoContext ignores the selected nats context (--no-context).
	NoContext bool `json:"no_context,omitempty"`
	JS
}

// JS is how JetStream is reached: a domain or an API prefix (leaf nodes, hub and spoke,
// imported JetStream), the inbox prefix replies come back on, and the API timeout.
type JS struct {
	Domain      string `json:"js_domain,omitempty"`       // --js-domain
	APIPrefix   string `json:"js_api_prefix,omitempty"`   // --js-api-prefix
	EventPrefix string `json:"js_event_prefix,omitempty"` // --js-event-prefix: replaces $JS.EVENT in the advisories the telemetry listens for
	InboxPrefix string `json:"inbox_prefix,omitempty"`    // --inbox-prefix
	// Timeout bounds JetStream API calls and requests (--timeout; 0: the library's 5s).
	Timeout time.Duration `json:"timeout,omitempty"`
	// Trace prints every JetStream API request and response on stderr (--trace).
	Trace bool `json:"trace,omitempty"`
}

// timeout is the per-attempt budget actually used.
func (s Settings) timeout() time.Duration {
	if s.ConnectTimeout > 0 {
		return s.ConnectTimeout
	}
	return DefaultConnectTimeout
}

// hasAuth reports whether any credential is set; Resolve uses it to replace
// the context's authentication as a whole.
func (s Settings) hasAuth() bool {
	return s.User != "" || s.Password != "" || s.Token != "" || s.Creds != "" || s.NKey != "" || s.JWT != "" || s.Seed != ""
}
