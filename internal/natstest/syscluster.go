package natstest

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
)

// SysCluster starts a 3-node JetStream cluster whose users are app/apppw (account APP,
// JetStream on) and sys/syspw (the system account SYS).
func SysCluster(t testing.TB) []*server.Server {
	t.Helper()
	// A JetStream cluster's every node needs its routes up front: reserve the cluster ports.
	var ports, routes []string
	for range 3 {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, l.Addr().String())
		routes = append(routes, "nats://"+l.Addr().String())
		l.Close()
	}
	var nodes []*server.Server
	for i := 1; i <= 3; i++ {
		conf := fmt.Sprintf(`server_name: sysn%d
cluster { name: syscluster, listen: "%s", routes: [%s] }
accounts {
  APP { jetstream: enabled, users: [{user: app, password: apppw}] }
  SYS { users: [{user: sys, password: syspw}] }
}
system_account: SYS
`, i, ports[i-1], strings.Join(routes, ", "))
		file := filepath.Join(t.TempDir(), "n.conf")
		if err := os.WriteFile(file, []byte(conf), 0o600); err != nil {
			t.Fatal(err)
		}
		parsed, err := server.ProcessConfigFile(file)
		if err != nil {
			t.Fatal(err)
		}
		nodes = append(nodes, Server(t, func(o *server.Options) {
			parsed.Host, parsed.Port, parsed.NoSigs, parsed.NoLog = o.Host, o.Port, true, true
			parsed.JetStream, parsed.StoreDir = true, o.StoreDir
			parsed.JetStreamMaxMemory, parsed.JetStreamMaxStore = o.JetStreamMaxMemory, o.JetStreamMaxStore
			*o = *parsed
		}))
	}
	return nodes
}
