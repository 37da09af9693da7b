package connect

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
)

func TestConnectTLS(t *testing.T) {
	p := newPKI(t)
	plainTLS := tlsServer(t, p, false, false)
	mutual := tlsServer(t, p, true, false)
	first := tlsServer(t, p, false, true)
	plain := startServer(t, nil)

	tests := []struct {
		name   string
		srv    string
		in     Settings
		errHas []string // nil means the connect must succeed over TLS
	}{
		{"CA given", plainTLS.ClientURL(), Settings{TLSCA: p.CA}, nil},
		{"CA given with tls scheme", "tls://" + hostPort(plainTLS), Settings{TLSCA: p.CA}, nil},
		{"no CA", plainTLS.ClientURL(), Settings{}, []string{"TLS handshake failed", "certificate", "--tlsca"}},
		{"insecure", plainTLS.ClientURL(), Settings{TLSInsecure: true}, nil},
		{"client certificate", mutual.ClientURL(), Settings{TLSCA: p.CA, TLSCert: p.ClientCert, TLSKey: p.ClientKey}, nil},
		{"client certificate missing", mutual.ClientURL(), Settings{TLSCA: p.CA}, []string{hostPort(mutual)}},
		{"TLS first", first.ClientURL(), Settings{TLSCA: p.CA, TLSFirst: true}, nil},
		{"TLS first against a plain server", plain.ClientURL(), Settings{TLSCA: p.CA, TLSFirst: true}, []string{"TLS handshake failed", "--tlsfirst"}},
		{"TLS wanted, server has none", plain.ClientURL(), Settings{TLSInsecure: true}, []string{"TLS was requested but the server does not offer it"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.in
			s.Servers, s.ConnectTimeout = tt.srv, 2*time.Second
			start := time.Now()
			nc, err := Connect(context.Background(), s, "t")
			if tt.errHas == nil {
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				defer nc.Close()
				if _, err := nc.TLSConnectionState(); err != nil {
					t.Fatalf("connection is not TLS: %v", err)
				}
				return
			}
			if err == nil {
				nc.Close()
				t.Fatal("connect succeeded, want a TLS failure")
			}
			if time.Since(start) > 3*time.Second {
				t.Errorf("failure took %v", time.Since(start))
			}
			for _, h := range tt.errHas {
				if !strings.Contains(err.Error(), h) {
					t.Errorf("error %q lacks %q", err, h)
				}
			}
		})
	}
}

func TestConnectTLSErrorUnwraps(t *testing.T) {
	p := newPKI(t)
	srv := tlsServer(t, p, false, false)
	_, err := Connect(context.Background(), Settings{Servers: srv.ClientURL()}, "t")
	if !errors.Is(err, nats.ErrTLS) {
		t.Fatalf("error %v does not unwrap to nats.ErrTLS", err)
	}
}
