package harness

import (
	"fmt"
	"io"
	"net"
	"os"
	"syscall"
	"testing"

	"github.com/nats-io/nats.go"
)

// TestConnectionsOwn: a socket error the connection reports asynchronously (a killed node's
// "connection reset by peer") is the connection's, counted as its disconnect; an operation's
// error (a permission violation, a bad header) is counted among the errors.
func TestConnectionsOwn(t *testing.T) {
	reset := &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}
	for _, c := range []struct {
		err  error
		want bool
	}{
		{reset, true},
		{fmt.Errorf("sendConnect: %w", reset), true},
		{io.EOF, true},
		{syscall.EPIPE, true},
		{nats.ErrPermissionViolation, false},
		{nats.ErrBadHeaderMsg, false},
		{nats.ErrMaxSubscriptionsExceeded, false},
	} {
		if got := connectionsOwn(nil, c.err); got != c.want {
			t.Errorf("connectionsOwn(%v) = %v, want %v", c.err, got, c.want)
		}
	}
}
