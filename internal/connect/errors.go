package connect

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"
	"syscall"

	"github.com/nats-io/nats.go"
)

// connectError is a one-line explanation that still unwraps to every
// underlying error, so callers can test errors.Is(err, nats.ErrAuthorization),
// context.Canceled and so on. Its text is built only from redacted URLs,
// dialed addresses and library error texts, none of which hold credentials.
type connectError struct {
	msg  string
	errs []error
}

func (e *connectError) Error() string   { return e.msg }
func (e *connectError) Unwrap() []error { return e.errs }

// errHandshakeUnknown stands for an earlier server that was reached but then
// dropped: nats.go keeps only the last server's error.
var errHandshakeUnknown = errors.New("reached, but the NATS handshake failed")

// describe builds the error for a failed connect to servers (already
// redacted) from the attempts the dialer saw and nats.go's final error.
func describe(servers string, attempts []*attempt, final error) error {
	e := &connectError{}
	// No de-duplication: == on errors can panic, and a repeat is harmless.
	add := func(err error) {
		if err != nil {
			e.errs = append(e.errs, err)
		}
	}
	var parts []string
	for i, a := range attempts {
		err := a.dialErr
		if err == nil {
			if i == len(attempts)-1 {
				err = final
			} else {
				err = errHandshakeUnknown
			}
		}
		if a.cause == nil && a.dialErr == nil && (isTimeout(err) || a.elapsed >= a.budget) {
			// nats.go's handshake deadline, as long as our budget but
			// armed after the dial, won the race against our timer. A
			// failed attempt that lasted the whole budget was ended by
			// one of the two.
			a.fired, a.cause = true, &timeoutError{after: a.budget}
		}
		add(a.cause) // first, so errors.As finds the timeout before a closed-socket error
		add(err)
		if len(attempts) == 1 {
			parts = append(parts, reason(err, a))
		} else {
			parts = append(parts, a.addr+": "+reason(err, a))
		}
	}
	if last := lastOf(attempts); last == nil || last.dialErr != nil {
		// final was not used above: nats.go failed without a dial of ours
		// (ctx already done, or extra set its own dialer) or after them.
		add(final)
	}
	if len(attempts) == 0 {
		parts = append(parts, reason(final, nil))
	}
	e.msg = oneLine(fmt.Sprintf("connect to %s: %s", servers, strings.Join(parts, "; ")))
	return e
}

// reason explains err, the outcome of attempt a (nil when unknown), in
// words a benchmark user can act on. A cut attempt is explained by its cut
// unless nats.go had already failed it for a more specific reason.
func reason(err error, a *attempt) string {
	if a != nil && a.cause != nil {
		dialCut := a.dialErr != nil && (isTimeout(a.dialErr) || errors.Is(a.dialErr, context.Canceled))
		vague := err == nil || errors.Is(err, errHandshakeUnknown) || errors.Is(err, net.ErrClosed) || isTimeout(err)
		if dialCut || (a.fired && vague) {
			return cutReason(a)
		}
	}
	return classify(err)
}

// cutReason explains an attempt stopped by its budget or by the caller.
func cutReason(a *attempt) string {
	var te *timeoutError
	switch {
	case errors.As(a.cause, &te) && a.dialErr != nil:
		return fmt.Sprintf("timed out after %v opening the TCP connection (host down or port filtered?)", te.after)
	case errors.As(a.cause, &te):
		return fmt.Sprintf("no NATS handshake within %v: the port accepted the connection but never completed the handshake (not a NATS server, or a --tlsfirst mismatch?)", te.after)
	case errors.Is(a.cause, context.Canceled):
		return "canceled"
	case errors.Is(a.cause, context.DeadlineExceeded):
		return "the caller's deadline was exceeded"
	case a.cause != nil:
		return a.cause.Error()
	}
	return "connection closed"
}

// classify maps library errors to a short explanation.
func classify(err error) string {
	switch {
	case err == nil:
		return "unknown error"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused (is a NATS server listening there?)"
	case errors.Is(err, syscall.EHOSTUNREACH):
		return "host unreachable"
	case errors.Is(err, syscall.ENETUNREACH):
		return "network unreachable"
	case errors.Is(err, nats.ErrAuthorization):
		return "authorization violation: the server rejected the credentials"
	case errors.Is(err, nats.ErrAuthExpired):
		return "authentication expired"
	case errors.Is(err, nats.ErrAuthRevoked):
		return "authentication revoked"
	case errors.Is(err, nats.ErrAccountAuthExpired):
		return "account authentication expired"
	case errors.Is(err, nats.ErrSecureConnWanted):
		return "TLS was requested but the server does not offer it"
	case errors.Is(err, nats.ErrSecureConnRequired):
		return "the server requires TLS"
	case isTLSError(err):
		return "TLS handshake failed: " + strings.TrimPrefix(err.Error(), nats.ErrTLS.Error()+": ") + tlsHint(err)
	case errors.Is(err, nats.ErrNoInfoReceived), strings.Contains(err.Error(), "expected 'PONG'"):
		return "not a NATS server: the port answered, but not with the NATS protocol"
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		return "connection closed by the server during the NATS handshake (not a NATS server, or TLS expected?)"
	case errors.Is(err, context.Canceled):
		return "canceled"
	case isTimeout(err):
		return "timed out"
	}
	var dnsErr *net.DNSError
	if errors.As(err, &dnsErr) {
		return fmt.Sprintf("cannot resolve %s: %s", dnsErr.Name, dnsErr.Err)
	}
	return err.Error()
}

func isTimeout(err error) bool {
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

func isTLSError(err error) bool {
	var (
		unknownCA x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		verify    *tls.CertificateVerificationError
		header    tls.RecordHeaderError
		alert     tls.AlertError
	)
	return errors.Is(err, nats.ErrTLS) || errors.As(err, &unknownCA) || errors.As(err, &hostname) ||
		errors.As(err, &invalid) || errors.As(err, &verify) || errors.As(err, &header) || errors.As(err, &alert)
}

// tlsHint names the flag most likely to fix a TLS failure.
func tlsHint(err error) string {
	var (
		unknownCA x509.UnknownAuthorityError
		header    tls.RecordHeaderError
	)
	switch {
	case errors.As(err, &unknownCA):
		return " (give the CA with --tlsca)"
	case errors.As(err, &header):
		return " (does the server expect --tlsfirst?)"
	}
	return ""
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
