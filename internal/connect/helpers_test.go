package connect

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nkeys"
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

// pki is a throwaway CA with a server certificate for 127.0.0.1 and a client
// certificate, written as PEM files.
type pki struct {
	CA, ServerCert, ServerKey, ClientCert, ClientKey string
}

func newPKI(t *testing.T) pki {
	t.Helper()
	dir := t.TempDir()
	caKey := genKey(t)
	caTmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "natsperf test CA"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		IsCA:                  true,
		KeyUsage:              x509.KeyUsageCertSign,
		BasicConstraintsValid: true,
	}
	caDER, err := x509.CreateCertificate(rand.Reader, caTmpl, caTmpl, &caKey.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	caCert, err := x509.ParseCertificate(caDER)
	if err != nil {
		t.Fatal(err)
	}
	leaf := func(serial int64, name string, usage x509.ExtKeyUsage) (certFile, keyFile string) {
		key := genKey(t)
		tmpl := &x509.Certificate{
			SerialNumber: big.NewInt(serial),
			Subject:      pkix.Name{CommonName: name},
			NotBefore:    time.Now().Add(-time.Hour),
			NotAfter:     time.Now().Add(time.Hour),
			KeyUsage:     x509.KeyUsageDigitalSignature,
			ExtKeyUsage:  []x509.ExtKeyUsage{usage},
			IPAddresses:  []net.IP{net.ParseIP("127.0.0.1")},
			DNSNames:     []string{"localhost"},
		}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, caCert, &key.PublicKey, caKey)
		if err != nil {
			t.Fatal(err)
		}
		keyDER, err := x509.MarshalECPrivateKey(key)
		if err != nil {
			t.Fatal(err)
		}
		certFile = writeFile(t, filepath.Join(dir, name+".pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
		keyFile = writeFile(t, filepath.Join(dir, name+"-key.pem"), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}))
		return certFile, keyFile
	}
	p := pki{CA: writeFile(t, filepath.Join(dir, "ca.pem"), pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}))}
	p.ServerCert, p.ServerKey = leaf(2, "server", x509.ExtKeyUsageServerAuth)
	p.ClientCert, p.ClientKey = leaf(3, "client", x509.ExtKeyUsageClientAuth)
	return p
}

func genKey(t *testing.T) *ecdsa.PrivateKey {
	t.Helper()
	k, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// tlsServer runs a server presenting p's server certificate; verify also
// demands a client certificate signed by p's CA.
func tlsServer(t *testing.T, p pki, verify, handshakeFirst bool) *server.Server {
	t.Helper()
	tc, err := server.GenTLSConfig(&server.TLSConfigOpts{
		CertFile: p.ServerCert, KeyFile: p.ServerKey, CaFile: p.CA, Verify: verify,
	})
	if err != nil {
		t.Fatalf("server TLS config: %v", err)
	}
	return startServer(t, &server.Options{
		TLS: true, TLSConfig: tc, TLSVerify: verify, TLSTimeout: 2, TLSHandshakeFirst: handshakeFirst,
	})
}

// operatorServer runs a server in JWT (operator) mode and returns it with a
// valid creds file for one of its users.
func operatorServer(t *testing.T) (*server.Server, string) {
	t.Helper()
	okp := must(t, nkeys.CreateOperator)
	opub := must(t, okp.PublicKey)
	ojwt, err := jwt.NewOperatorClaims(opub).Encode(okp)
	if err != nil {
		t.Fatal(err)
	}
	oc, err := jwt.DecodeOperatorClaims(ojwt)
	if err != nil {
		t.Fatal(err)
	}

	akp := must(t, nkeys.CreateAccount)
	apub := must(t, akp.PublicKey)
	ajwt, err := jwt.NewAccountClaims(apub).Encode(okp)
	if err != nil {
		t.Fatal(err)
	}
	resolver := &server.MemAccResolver{}
	if err := resolver.Store(apub, ajwt); err != nil {
		t.Fatal(err)
	}

	ukp := must(t, nkeys.CreateUser)
	ujwt, err := jwt.NewUserClaims(must(t, ukp.PublicKey)).Encode(akp)
	if err != nil {
		t.Fatal(err)
	}
	seed := must(t, ukp.Seed)
	creds, err := jwt.FormatUserConfig(ujwt, seed)
	if err != nil {
		t.Fatal(err)
	}
	s := startServer(t, &server.Options{TrustedOperators: []*jwt.OperatorClaims{oc}, AccountResolver: resolver})
	return s, writeFile(t, filepath.Join(t.TempDir(), "user.creds"), creds)
}

func must[T any](t *testing.T, f func() (T, error)) T {
	t.Helper()
	v, err := f()
	if err != nil {
		t.Fatal(err)
	}
	return v
}
