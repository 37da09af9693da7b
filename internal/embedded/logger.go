package embedded

import (
	"fmt"
	"sync"

	"github.com/nats-io/nats-server/v2/server"
)

// nodeLogger is installed on every server, even when Options.Logger is nil:
//   - a server.Logger's Fatalf normally exits the process, which must never
//     happen to the process natsperf runs in;
//   - the first fatal message (e.g. "Error listening on port") is kept so
//     that Start fails at once with the server's own reason instead of
//     waiting out ReadyTimeout.
type nodeLogger struct {
	next   server.Logger // nil = discard
	prefix string

	mu    sync.Mutex
	fatal string
}

func newNodeLogger(next server.Logger, prefix string) *nodeLogger {
	return &nodeLogger{next: next, prefix: prefix}
}

// fatalError returns the first fatal message logged, or "".
func (l *nodeLogger) fatalError() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.fatal
}

func (l *nodeLogger) Fatalf(format string, v ...any) {
	msg := fmt.Sprintf(format, v...)
	l.mu.Lock()
	if l.fatal == "" {
		l.fatal = msg
	}
	l.mu.Unlock()
	if l.next != nil {
		l.next.Errorf("%s%s", l.prefix, msg)
	}
}

func (l *nodeLogger) Noticef(format string, v ...any) {
	if l.next != nil {
		l.next.Noticef(l.prefix+format, v...)
	}
}

func (l *nodeLogger) Warnf(format string, v ...any) {
	if l.next != nil {
		l.next.Warnf(l.prefix+format, v...)
	}
}

func (l *nodeLogger) Errorf(format string, v ...any) {
	if l.next != nil {
		l.next.Errorf(l.prefix+format, v...)
	}
}

func (l *nodeLogger) Debugf(format string, v ...any) {
	if l.next != nil {
		l.next.Debugf(l.prefix+format, v...)
	}
}

func (l *nodeLogger) Tracef(format string, v ...any) {
	if l.next != nil {
		l.next.Tracef(l.prefix+format, v...)
	}
}
