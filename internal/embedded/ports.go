package embedded

import (
	"fmt"
	"net"
	"strconv"
)

// holdPorts finds a free TCP port on each of hosts. Routes must name every
// cluster port before any server starts, so the ports are picked by
// listening on port 0. All listeners stay open until release, after the
// last one is bound and the links (listening on port 0 too) are open, so
// that the kernel cannot hand out a port twice.
func holdPorts(hosts ...string) (ports []int, release func(), err error) {
	ports = make([]int, 0, len(hosts))
	ls := make([]net.Listener, 0, len(hosts))
	release = func() {
		for _, l := range ls {
			l.Close()
		}
	}
	for _, host := range hosts {
		l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			release()
			return nil, func() {}, fmt.Errorf("reserve port on %s: %w", host, err)
		}
		ls = append(ls, l)
		ports = append(ports, l.Addr().(*net.TCPAddr).Port)
	}
	return ports, release, nil
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
