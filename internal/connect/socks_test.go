package connect

import (
	"context"
	"encoding/binary"
	"io"
	"net"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/nats-io/nats-server/v2/server"
	"testing"
)

// socks5 is a minimal SOCKS5 proxy (no authentication, CONNECT only, RFC 1928) on loopback
// that counts the connections it relayed: the test's reference that traffic went through it.
func socks5(t *testing.T, relayed *atomic.Int32) string {
	return listener(t, func(c net.Conn) {
		defer c.Close()
		var hdr [2]byte
		if _, err := io.ReadFull(c, hdr[:]); err != nil || hdr[0] != 5 {
			return
		}
		if _, err := io.ReadFull(c, make([]byte, hdr[1])); err != nil {
			return
		}
		_, _ = c.Write([]byte{5, 0}) // no authentication
		var req [4]byte
		if _, err := io.ReadFull(c, req[:]); err != nil || req[1] != 1 {
			return
		}
		var host string
		switch req[3] {
		case 1:
			ip := make([]byte, 4)
			if _, err := io.ReadFull(c, ip); err != nil {
				return
			}
			host = net.IP(ip).String()
		case 3:
			var n [1]byte
			if _, err := io.ReadFull(c, n[:]); err != nil {
				return
			}
			name := make([]byte, n[0])
			if _, err := io.ReadFull(c, name); err != nil {
				return
			}
			host = string(name)
		default:
			return
		}
		var port [2]byte
		if _, err := io.ReadFull(c, port[:]); err != nil {
			return
		}
		up, err := net.Dial("tcp", net.JoinHostPort(host, strconv.Itoa(int(binary.BigEndian.Uint16(port[:])))))
		if err != nil {
			_, _ = c.Write([]byte{5, 5, 0, 1, 0, 0, 0, 0, 0, 0})
			return
		}
		defer up.Close()
		relayed.Add(1)
		_, _ = c.Write([]byte{5, 0, 0, 1, 0, 0, 0, 0, 0, 0})
		go func() { _, _ = io.Copy(up, c) }()
		_, _ = io.Copy(c, up)
	})
}

// TestSocksProxy: with --socks-proxy every connection goes through the proxy (it relayed it)
// and works; a proxy URL that is not socks5 is refused naming the flag, without its password.
func TestSocksProxy(t *testing.T) {
	s := startServer(t, nil)
	var relayed atomic.Int32
	proxy := socks5(t, &relayed)
	nc, err := Connect(context.Background(), Settings{Servers: s.ClientURL(), SocksProxy: "socks5://" + proxy}, "via-socks")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	if relayed.Load() != 1 {
		t.Fatalf("the proxy relayed %d connections, want 1", relayed.Load())
	}
	_, err = Connect(context.Background(), Settings{Servers: s.ClientURL(), SocksProxy: "http://u:s3cret@" + proxy}, "x")
	if err == nil || !strings.Contains(err.Error(), "--socks-proxy") || strings.Contains(err.Error(), "s3cret") {
		t.Fatalf("error %v: want one naming --socks-proxy, without the password", err)
	}
}

// TestConnectionNameAndInboxPrefix: --connection-name names the connection on the server (its
// /connz) instead of natsperf's client name; --inbox-prefix is where replies come back.
func TestConnectionNameAndInboxPrefix(t *testing.T) {
	s := startServer(t, nil)
	nc, err := Connect(context.Background(), Settings{Servers: s.ClientURL(), ConnectionName: "bench-run", JS: JS{InboxPrefix: "_MY_INBOX"}}, "natsperf-pub-1")
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	cz, err := s.Connz(&server.ConnzOptions{})
	if err != nil || len(cz.Conns) != 1 || cz.Conns[0].Name != "bench-run" {
		t.Fatalf("connz %v %+v: want one connection named bench-run", err, cz)
	}
	if inbox := nc.NewRespInbox(); !strings.HasPrefix(inbox, "_MY_INBOX.") {
		t.Fatalf("inbox %q", inbox)
	}
}
