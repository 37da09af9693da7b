package connect

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/natsperf/natsperf/internal/natstest"
)

// startServer runs an embedded nats-server on a random local port with opts' auth and TLS.
func startServer(t *testing.T, opts *server.Options) *server.Server {
	return natstest.Server(t, func(o *server.Options) {
		if opts != nil {
			*o = *opts
		}
		o.Host, o.Port, o.NoSigs, o.NoLog = "127.0.0.1", -1, true, true
	})
}

// hostPort is the server's client address without scheme.
func hostPort(s *server.Server) string {
	_, hp, _ := strings.Cut(s.ClientURL(), "://")
	return hp
}

// envOf builds an Env from key/value pairs.
func envOf(home string, kv ...string) Env {
	m := map[string]string{}
	for i := 0; i+1 < len(kv); i += 2 {
		m[kv[i]] = kv[i+1]
	}
	return Env{Home: home, Getenv: func(k string) string { return m[k] }}
}

func writeFile(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// listener accepts TCP connections on 127.0.0.1 and hands each to serve;
// it stands in for ports that are open but do not speak NATS.
func listener(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
			go serve(c)
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			c.Close()
		}
	})
	return ln.Addr().String()
}

// refusedAddr returns a local address where nothing listens.
func refusedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return addr
}

// pki is natstest's throwaway CA with server and client certificates.
type pki = natstest.PKI

func newPKI(t *testing.T) pki { return natstest.NewPKI(t) }

// tlsServer runs a server presenting p's server certificate; verify also
// demands a client certificate signed by p's CA.
func tlsServer(t *testing.T, p pki, verify, handshakeFirst bool) *server.Server {
	t.Helper()
	return natstest.Server(t, p.TLS(t, verify, handshakeFirst))
}

// operatorServer runs a server in JWT (operator) mode and returns it with a
// valid creds file for one of its users.
func operatorServer(t *testing.T) (*server.Server, string) {
	t.Helper()
	configure, creds := natstest.Operator(t)
	opts := &server.Options{}
	configure(opts)
	return startServer(t, opts), creds
}

func must[T any](t *testing.T, f func() (T, error)) T {
	t.Helper()
	v, err := f()
	if err != nil {
		t.Fatal(err)
	}
	return v
}
