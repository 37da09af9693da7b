package embedded

import (
	"fmt"
	"net"
	"strconv"
)

// reservePorts finds a free TCP port on each of hosts. Routes must name
// every cluster port before any server starts, so the ports are picked by
// listening on port 0 and closing again. All listeners stay open until the
// last one is bound so that the kernel cannot hand out a port twice.
func reservePorts(hosts ...string) ([]int, error) {
	ports := make([]int, 0, len(hosts))
	ls := make([]net.Listener, 0, len(hosts))
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	for _, host := range hosts {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("reserve port on %s: %w", host, err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, nil
}

// checkPortFree fails fast when a requested port is taken, instead of
// letting the server retry until ReadyTimeout.
func checkPortFree(host string, port int) error {
	l, err := net.Listen("tcp", hostPort(host, port))
	if err != nil {
		return fmt.Errorf("port %d unavailable: %w", port, err)
	}
	return l.Close()
}

func hostPort(host string, port int) string {
	return net.JoinHostPort(host, strconv.Itoa(port))
}
