package connect

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nkeys"
)

func TestConnectAuth(t *testing.T) {
	open := startServer(t, nil)
	token := startServer(t, &server.Options{Authorization: "tok-Secret-1"})
	userPass := startServer(t, &server.Options{Username: "alice", Password: "pw-Secret-2"})

	ukp := must(t, nkeys.CreateUser)
	seed := writeFile(t, filepath.Join(t.TempDir(), "user.nk"), must(t, ukp.Seed))
	otherSeed := writeFile(t, filepath.Join(t.TempDir(), "other.nk"), must(t, must(t, nkeys.CreateUser).Seed))
	nkeySrv := startServer(t, &server.Options{Nkeys: []*server.NkeyUser{{Nkey: must(t, ukp.PublicKey)}}})
	opSrv, creds := operatorServer(t)

	tests := []struct {
		name string
		srv  *server.Server
		in   Settings // Servers defaults to the server's URL
		ok   bool
	}{
		{"no auth", open, Settings{}, true},
		{"token", token, Settings{Token: "tok-Secret-1"}, true},
		{"wrong token", token, Settings{Token: "tok-Secret-wrong"}, false},
		{"missing token", token, Settings{}, false},
		{"token in URL", token, Settings{Servers: "nats://tok-Secret-1@" + hostPort(token)}, true},
		{"user and password", userPass, Settings{User: "alice", Password: "pw-Secret-2"}, true},
		{"wrong password", userPass, Settings{User: "alice", Password: "pw-Secret-wrong"}, false},
		{"wrong password in URL", userPass, Settings{Servers: "nats://alice:pw-Secret-wrong@" + hostPort(userPass)}, false},
		{"nkey seed", nkeySrv, Settings{NKey: seed}, true},
		{"unknown nkey", nkeySrv, Settings{NKey: otherSeed}, false},
		{"creds", opSrv, Settings{Creds: creds}, true},
		{"no creds in operator mode", opSrv, Settings{}, false},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := tt.in
			if s.Servers == "" {
				s.Servers = tt.srv.ClientURL()
			}
			s.ConnectTimeout = 2 * time.Second
			name := fmt.Sprintf("natsperf-test-%d", i) // unique: servers are shared
			nc, err := Connect(context.Background(), s, name)
			if tt.ok {
				if err != nil {
					t.Fatalf("connect: %v", err)
				}
				defer nc.Close()
				if err := nc.Flush(); err != nil {
					t.Fatalf("flush: %v", err)
				}
				connz, err := tt.srv.Connz(nil)
				if err != nil {
					t.Fatal(err)
				}
				for _, c := range connz.Conns {
					if c.Name == name {
						return
					}
				}
				t.Fatalf("server sees no connection named %s", name)
			}
			if err == nil {
				nc.Close()
				t.Fatal("connected with bad credentials")
			}
			msg := err.Error()
			if !errors.Is(err, nats.ErrAuthorization) || !strings.Contains(msg, "authorization violation") {
				t.Errorf("want an authorization error, got %q", msg)
			}
			if !strings.Contains(msg, hostPort(tt.srv)) {
				t.Errorf("error %q does not name the server", msg)
			}
			if strings.Contains(msg, "Secret") || strings.Contains(msg, "\n") {
				t.Errorf("error leaks a secret or spans lines: %q", msg)
			}
		})
	}
}

// TestConnectOutlivesCtx checks the ctx only bounds the initial connect: the
// connection must survive its cancellation, and reconnects must work after.
func TestConnectOutlivesCtx(t *testing.T) {
	srv := startServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	nc, err := Connect(ctx, Settings{Servers: srv.ClientURL()}, "t", nats.ReconnectWait(10*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	cancel()
	time.Sleep(50 * time.Millisecond) // let a wrongly armed hook fire
	if err := nc.Flush(); err != nil || !nc.IsConnected() {
		t.Fatalf("connection died with its connect ctx: %v", err)
	}

	reconnected := make(chan struct{}, 1)
	nc.SetReconnectHandler(func(*nats.Conn) { reconnected <- struct{}{} })
	cid, err := nc.GetClientID()
	if err != nil {
		t.Fatal(err)
	}
	if err := srv.DisconnectClientByID(cid); err != nil {
		t.Fatal(err)
	}
	select {
	case <-reconnected:
	case <-time.After(3 * time.Second):
		t.Fatal("no reconnect after the initial ctx was cancelled")
	}
	if err := nc.Flush(); err != nil {
		t.Fatalf("flush after reconnect: %v", err)
	}
}

func TestConnectRejectsBadSettingsBeforeDialing(t *testing.T) {
	tests := []struct {
		name   string
		in     Settings
		errHas string
	}{
		{"bad URL", Settings{Servers: "nats://u:pw-Secret@h:x"}, `--server: invalid server URL "nats://[redacted]@h:x"`},
		{"missing creds", Settings{Servers: "nats://127.0.0.1:1", Creds: "/nonexistent/u.creds"}, "--creds: open /nonexistent/u.creds"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Connect(context.Background(), tt.in, "t")
			if err == nil || !strings.Contains(err.Error(), tt.errHas) || strings.Contains(err.Error(), "pw-Secret") {
				t.Fatalf("got %v, want error containing %q and no secret", err, tt.errHas)
			}
		})
	}
}
