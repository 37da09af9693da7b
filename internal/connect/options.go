package connect

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"os"
	"strings"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

// Options turns the settings into nats.go options: timeout, authentication
// and TLS. Servers are not included (see URLs) and neither is the connection
// name (see Connect). Every file named is read and checked now, so a typo
// fails before any dial with a one-line error naming the flag, e.g.
// "--creds: open /x/y.creds: no such file or directory".
func (s Settings) Options() ([]nats.Option, error) {
	if s.ConnectTimeout < 0 {
		return nil, fmt.Errorf("connect timeout must not be negative (got %v)", s.ConnectTimeout)
	}
	if err := s.JS.Check(); err != nil {
		return nil, err
	}
	if err := s.checkSocks(); err != nil {
		return nil, err
	}
	opts := []nats.Option{nats.Timeout(s.timeout())}
	if s.InboxPrefix != "" {
		opts = append(opts, nats.CustomInboxPrefix(s.InboxPrefix))
	}
	auth, err := s.authOptions()
	if err != nil {
		return nil, err
	}
	tlsOpts, err := s.tlsOptions()
	if err != nil {
		return nil, err
	}
	return append(append(opts, auth...), tlsOpts...), nil
}

// authOptions allows one method only: nats.go would send them all and the
// server would pick one, hiding which credential was wrong.
func (s Settings) authOptions() ([]nats.Option, error) {
	var given []string
	for _, m := range []struct {
		set  bool
		flag string
	}{
		{s.User != "" || s.Password != "", flagUser},
		{s.Token != "", flagToken},
		{s.Creds != "", flagCreds},
		{s.NKey != "", flagNKey},
		{s.JWT != "" || s.Seed != "", flagJWT + "/" + flagSeed},
	} {
		if m.set {
			given = append(given, m.flag)
		}
	}
	if len(given) > 1 {
		return nil, fmt.Errorf("%s: choose one authentication method", strings.Join(given, ", "))
	}

	switch {
	case s.Password != "" && s.User == "":
		return nil, fmt.Errorf("%s: given without %s", flagPassword, flagUser)
	case s.User != "":
		return []nats.Option{nats.UserInfo(s.User, s.Password)}, nil
	case s.Token != "":
		return []nats.Option{nats.Token(s.Token)}, nil
	case s.Creds != "":
		if err := checkCreds(s.Creds); err != nil {
			return nil, fmt.Errorf("%s: %w", flagCreds, err)
		}
		return []nats.Option{nats.UserCredentials(s.Creds)}, nil
	case s.NKey != "":
		b, err := os.ReadFile(s.NKey)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flagNKey, err)
		}
		wipe(b) // read only to report a missing file by flag; nats.go parses it
		opt, err := nats.NkeyOptionFromSeed(s.NKey)
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", flagNKey, s.NKey, err)
		}
		return []nats.Option{opt}, nil
	case s.JWT != "" || s.Seed != "":
		opt, err := s.jwtAndSeed()
		if err != nil {
			return nil, err
		}
		return []nats.Option{opt}, nil
	}
	return nil, nil
}

// checkCreds reads a creds file the way nats.go will at connect time, so a
// wrong file fails here instead of as a puzzling handshake error.
func checkCreds(path string) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	defer wipe(b)
	kp, err := nkeys.ParseDecoratedUserNKey(b)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	kp.Wipe()
	return nil
}

func wipe(b []byte) {
	for i := range b {
		b[i] = 'x'
	}
}

// tlsOptions builds TLS from files. nats.ClientCert and nats.RootCAs re-read
// the files on every reconnect (so rotation works); they are loaded here once
// only to report problems early and by flag.
func (s Settings) tlsOptions() ([]nats.Option, error) {
	var opts []nats.Option
	if s.TLSInsecure {
		// Must come first: the options below keep an existing TLSConfig.
		opts = append(opts, insecureTLS())
	}
	if s.TLSCert != "" || s.TLSKey != "" {
		if s.TLSCert == "" || s.TLSKey == "" {
			return nil, fmt.Errorf("%s and %s must be given together", flagTLSCert, flagTLSKey)
		}
		for _, f := range []struct{ flag, path string }{{flagTLSCert, s.TLSCert}, {flagTLSKey, s.TLSKey}} {
			if _, err := os.ReadFile(f.path); err != nil {
				return nil, fmt.Errorf("%s: %w", f.flag, err)
			}
		}
		if _, err := tls.LoadX509KeyPair(s.TLSCert, s.TLSKey); err != nil {
			return nil, fmt.Errorf("%s, %s: %w", flagTLSCert, flagTLSKey, err)
		}
		opts = append(opts, nats.ClientCert(s.TLSCert, s.TLSKey))
	}
	if s.TLSCA != "" {
		pem, err := os.ReadFile(s.TLSCA)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", flagTLSCA, err)
		}
		if !x509.NewCertPool().AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("%s: %s: no PEM certificate found", flagTLSCA, s.TLSCA)
		}
		opts = append(opts, nats.RootCAs(s.TLSCA))
	}
	if s.TLSFirst {
		opts = append(opts, nats.TLSHandshakeFirst())
	}
	return opts, nil
}

// insecureTLS asks for TLS without verifying the server certificate, as
// latency-tests -secure does. It is opt-in for test rigs with throwaway
// certificates.
func insecureTLS() nats.Option {
	return func(o *nats.Options) error {
		cfg := &tls.Config{MinVersion: tls.VersionTLS12}
		if o.TLSConfig != nil {
			cfg = o.TLSConfig.Clone()
		}
		cfg.InsecureSkipVerify = true //nolint:gosec // explicitly requested by the user
		o.TLSConfig = cfg
		o.Secure = true
		return nil
	}
}
