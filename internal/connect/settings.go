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
	return s.User != "" || s.Password != "" || s.Token != "" || s.Creds != "" || s.NKey != ""
}
